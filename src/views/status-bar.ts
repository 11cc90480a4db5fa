/**
 * The status bar meter: used tokens against the prompt budget, the state as an icon, and a click
 * that opens the sidebar. Has an id, a name and accessibility text (read by screen readers in full).
 */
import * as vscode from 'vscode';
import type { BudgetView, ActivityState } from '../webview/shared/protocol';
import { Commands } from './commands/command-ids';
import { recordedK, recordedReason } from '../transcripts/reported';
import type { LastBudget } from './sidebar/last-budget';
import { formatTokens, formatTokensFull } from '../format/tokens';
import type { AgentGaugeView } from '../webview/shared/agent-gauge';
import { formatDateTime } from '../format/display';

const STATE_ICONS: Record<ActivityState, string> = {
  idle: '$(dashboard)',
  streaming: '$(loading~spin)',
  'running-tool': '$(tools)',
  compacting: '$(fold)',
  error: '$(error)',
};

/** Marks the item while automatic compaction is paused. */
const PAUSED_ICON = '$(debug-pause)';

/** Shows the meter in the status bar. */
export class StatusBarMeter implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;

  constructor() {
    this.item = vscode.window.createStatusBarItem('contextKeeper.meter', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'ContextKeeper Budget';
    this.item.command = Commands.focusSidebar;
    this.item.show();
  }

  /**
   * Redraws the item for a budget and state. `loading` is true while the session saved in the
   * workspace is still being opened (some seconds after a window reload): the item then says so
   * instead of the empty conversation's "0%", which would be a false figure, and shows `last`, the
   * figure last shown for that session (remembered in workspace state), labelled as such.
   */
  update(budget: BudgetView, state: ActivityState, loading = false, last?: LastBudget): void {
    this.item.command = Commands.focusSidebar;
    if (loading) {
      this.item.backgroundColor = undefined;
      if (!last) {
        this.item.text = '$(sync~spin) ContextKeeper';
        this.item.tooltip = 'ContextKeeper: loading the session saved in this workspace; its token count follows.';
        this.item.accessibilityInformation = {
          label: 'ContextKeeper: loading the session, token count not known yet',
          role: 'button',
        };
        return;
      }
      const percent = last.inputBudget > 0 ? Math.round((last.used / last.inputBudget) * 100) : 0;
      const when = formatDateTime(last.time);
      this.item.text = `$(sync~spin) ${percent}% · ~${formatTokens(last.used)}/${formatTokens(last.inputBudget)} (last known)`;
      this.item.tooltip = `ContextKeeper: loading the session saved in this workspace. Last known: ${formatTokensFull(last.used)} of ${formatTokensFull(last.inputBudget)} prompt tokens (${percent}%), shown ${when}; the current count follows.`;
      this.item.accessibilityInformation = {
        label: `ContextKeeper: loading the session; last known ${percent} percent of the context budget, ${last.used} of ${last.inputBudget} tokens`,
        role: 'button',
      };
      return;
    }
    const percent = budget.inputBudget > 0 ? Math.round((budget.used / budget.inputBudget) * 100) : 0;
    const approx = budget.exact ? '' : '~';
    // A pause holds compaction back until the user acts, so it is marked on the item itself, not only on hover.
    const paused = budget.autoPaused ? ` ${PAUSED_ICON}` : '';
    this.item.text = budget.counting
      ? `${STATE_ICONS[state]} ≈ ${formatTokens(budget.used)} (estimate)${paused}`
      : `${STATE_ICONS[state]} ${percent}% · ${approx}${formatTokens(budget.used)}/${formatTokens(budget.inputBudget)}${paused}`;
    const accuracy = budget.counting
      ? 'an estimate (about 4 characters a token) while the tokenizer loads'
      : budget.exact
        ? 'exact'
        : 'estimated';
    const tooltip = new vscode.MarkdownString(
      [
        `**ContextKeeper** — ${budget.model}`,
        '',
        ...(budget.autoPaused
          ? [
              `${PAUSED_ICON} **Automatic compaction is ${budget.autoPaused}.** A request that would not fit the window is still compacted first. [Compact Conversation](command:${Commands.compactConversation}) resumes it; click the item for details.`,
            ]
          : []),
        `${formatTokensFull(budget.used)} of ${formatTokensFull(budget.inputBudget)} prompt tokens (${percent}%), ${accuracy}${budget.usedSource ? `: ${budget.usedSource}` : ''}`,
        ...(budget.windowSource ? [`Context window: ${budget.windowSource}`] : []),
        ...(budget.recordedPromptTokens !== undefined
          ? [
              `Recorded by the provider: ${recordedK(budget.recordedPromptTokens)} prompt tokens for the recording's newest request, ${recordedReason(budget.recordedPromptTokens, budget.used, budget.importedTokens)}`,
            ]
          : []),
        `Compacts at ${formatTokensFull(budget.compactAt)}, down to ${formatTokensFull(budget.compactTo)}${budget.autoCompact ? '' : ' (automatic compaction off)'}`,
        `State: ${state}`,
      ].join('\n\n'),
      true,
    );
    // Only the link to Compact Conversation runs from the tooltip.
    tooltip.isTrusted = { enabledCommands: [Commands.compactConversation] };
    this.item.tooltip = tooltip;
    this.item.accessibilityInformation = {
      label: `ContextKeeper: ${percent} percent of the context budget used, ${budget.used} of ${budget.inputBudget} tokens, ${accuracy}, ${state}${budget.autoPaused ? `, automatic compaction ${budget.autoPaused}` : ''}`,
      role: 'button',
    };
    const warn = budget.used >= budget.compactAt || budget.autoPaused !== undefined;
    this.item.backgroundColor = warn ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  /**
   * The watched agent's gauge (see {@link AgentGaugeView}), shown while no ContextKeeper task runs and
   * the agent was active since the last one: its used tokens against its window, where it compacts
   * itself and how far that is. A click opens the Watched Agent view.
   */
  showAgent(view: AgentGaugeView): void {
    const b = view.budget;
    const percent = b.window > 0 ? Math.round((b.used / b.window) * 100) : 0;
    const approx = b.exact ? '' : '~';
    const toGo = view.compactsAt ? ` · ${formatTokens(view.compactsAt.toGo)} to compaction` : '';
    this.item.text = `$(eye) ${view.agent} ${percent}% · ${approx}${formatTokens(b.used)}/${formatTokens(b.window)}${toGo}`;
    this.item.command = Commands.focusAgentGauge;
    this.item.tooltip = new vscode.MarkdownString(
      [
        `**${view.agent}** (watched, read-only) — ${b.model}`,
        '',
        `${formatTokensFull(b.used)} of ${formatTokensFull(b.window)} prompt tokens (${percent}%). ${view.basis}`,
        view.compactsAt
          ? `${view.agent} compacts at about ${formatTokensFull(view.compactsAt.tokens)} (${view.compactsAt.source}): ${formatTokensFull(view.compactsAt.toGo)} to go.`
          : `Where ${view.agent} compacts is not recorded.`,
        `Session: ${view.session}. ContextKeeper's own session shows here again while one of its tasks runs, or once the sidebar shows another of its sessions.`,
      ].join('\n\n'),
    );
    this.item.accessibilityInformation = {
      label: `ContextKeeper: ${view.agent}, watched: ${percent} percent of its context window used, ${b.used} of ${b.window} tokens${view.compactsAt ? `, ${view.compactsAt.toGo} tokens before it compacts` : ''}`,
      role: 'button',
    };
    const near = view.compactsAt !== undefined && b.used >= b.compactAt * 0.9;
    this.item.backgroundColor = near ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  /**
   * No conversation in this workspace yet (a fresh start, before the sidebar or a task opens one):
   * the item names itself instead of a "0%" for a session that does not exist.
   */
  showNoSession(): void {
    this.item.command = Commands.focusSidebar;
    this.item.text = '$(dashboard) ContextKeeper';
    this.item.tooltip =
      'ContextKeeper: no conversation in this workspace yet. Open the sidebar or start a task; its token budget shows here.';
    this.item.accessibilityInformation = { label: 'ContextKeeper: no conversation yet', role: 'button' };
    this.item.backgroundColor = undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
