/**
 * What the "Watched Agent" view draws for a followed Claude Code or Codex session: the same budget
 * gauge as the Context view, fed from the watch's figures, with the agent's own compaction mark and
 * the distance to it. Pure and `vscode`-free: the extension host builds it, the webview draws it,
 * the status bar reads it.
 */
import type { WatchedGauge } from '../../watch/live';
import type { BudgetView } from './protocol';
import { formatTokens, formatTokensFull } from '../../format/tokens';

/** Display names of the watched agents. */
export const AGENT_NAMES = { 'claude-code': 'Claude Code', codex: 'Codex' } as const;

/** The watched agent's gauge as the view and the status bar show it. All figures are prompt tokens. */
export interface AgentGaugeView {
  /** "Claude Code" or "Codex". */
  agent: string;
  /** The session file's name (no folder). */
  session: string;
  budget: BudgetView;
  /** Where the agent compacts itself and how far the context is from it; absent when not known. */
  compactsAt?: { tokens: number; toGo: number; source: string };
  /** One sentence: which figure `budget.used` rests on. */
  basis: string;
  /** Compactions the agent made so far. */
  compactions: number;
  /** The newest compaction's own figures ("169k → 6.6k"), when recorded or counted. */
  lastCompaction?: { before?: number; after?: number; source: 'recorded' | 'counted'; trigger?: string };
}

/** The message the host posts to the Watched Agent webview (undefined view: nothing followed). */
export interface AgentGaugeMessage {
  type: 'agentGauge';
  view?: AgentGaugeView;
  /** Why nothing is shown (nothing followed, the file is unreadable). */
  note?: string;
}

/**
 * Maps a watched session's gauge onto the Context view's {@link BudgetView}: the whole window is
 * the scale (the agent's reply reserve is not recorded), the compaction mark stands where the agent
 * compacts (the window's end when that is not known), and the part of the provider's figure the
 * file's messages do not account for is its own category, "Not in the recording": it holds the
 * agent's system prompt and tool schemas but also whatever else the agent sent without recording it,
 * so it is not called system.
 */
export function agentGaugeView(
  g: WatchedGauge,
  session: string,
  lastCompaction?: AgentGaugeView['lastCompaction'],
): AgentGaugeView {
  const agent = AGENT_NAMES[g.format];
  const b = g.breakdown;
  const unrecorded = Math.max(0, g.usedTokens - g.tokens);
  const at = g.agentCompactsAt?.tokens ?? g.window;
  const budget: BudgetView = {
    used: g.usedTokens,
    window: g.window,
    reserved: 0,
    inputBudget: g.window,
    compactAt: at,
    compactAtFraction: g.window > 0 ? at / g.window : 1,
    compactTo: lastCompaction?.after ?? 0,
    compactToFraction: g.window > 0 ? (lastCompaction?.after ?? 0) / g.window : 0,
    exact: g.basis === 'exact+new' && !g.estimated,
    ...(g.estimated ? { counting: true } : {}),
    breakdown: {
      system: b.system,
      tools: b.tools,
      history: b.user + b.assistant + b.toolResults,
      summaries: b.summaries,
      currentTask: 0,
      instructions: 0,
      unrecorded,
    },
    model: g.model ?? agent,
    warnings: g.badLines ? [`${g.badLines} line(s) of the session file were not JSON and were skipped.`] : [],
    autoCompact: true,
    windowSource: `${formatTokensFull(g.window)} tokens, ${g.windowSource === 'recording' ? 'reported by the agent' : 'from the model table'}`,
  };
  const basis =
    g.basis === 'counted'
      ? 'Counted from the file (no usage recorded): the agent’s system prompt and tool schemas are not in it, so the real figure is higher.'
      : g.reportedFrom === 'compaction'
        ? `The agent’s own figure after its compaction (${formatTokens(g.reportedTokens ?? 0)}) plus ${formatTokens(g.usedTokens - (g.reportedTokens ?? 0))} written since.`
        : `The provider’s figure for the latest request (${formatTokens(g.reportedTokens ?? 0)}) plus ${formatTokens(g.usedTokens - (g.reportedTokens ?? 0))} written since.`;
  return {
    agent,
    session,
    budget,
    ...(g.agentCompactsAt
      ? {
          compactsAt: {
            tokens: g.agentCompactsAt.tokens,
            toGo: Math.max(0, g.agentCompactsAt.tokens - g.usedTokens),
            source: g.agentCompactsAt.source,
          },
        }
      : {}),
    basis,
    compactions: g.checkpoints,
    ...(lastCompaction ? { lastCompaction } : {}),
  };
}
