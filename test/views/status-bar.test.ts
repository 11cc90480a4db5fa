/**
 * The status bar meter against the typed `vscode` fake: percent of the prompt budget and tokens, the
 * state icon, a tooltip and screen-reader label with the same figures, the warning colour from the
 * compaction level on, and the item gone on dispose.
 */
import '../support/vscode-fake/register';
import { beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import type { BudgetView } from '../../src/webview/shared/protocol';
import { StatusBarMeter } from '../../src/views/status-bar';
import { host, MarkdownString, resetVscodeFake, ThemeColor } from '../support/vscode-fake';
import type { FakeStatusBarItem } from '../support/vscode-fake/window-parts';
import { formatTokens } from '../../src/format/tokens';

beforeEach(() => resetVscodeFake());

function budget(used: number, over: Partial<BudgetView> = {}): BudgetView {
  return {
    used,
    window: 32_768,
    reserved: 4_096,
    inputBudget: 28_672,
    compactAt: 22_938,
    compactAtFraction: 0.8,
    compactTo: 14_336,
    compactToFraction: 0.5,
    exact: true,
    breakdown: { system: 0, instructions: 0, tools: 0, history: used, summaries: 0, currentTask: 0 },
    model: 'qwen2.5-coder:7b',
    warnings: [],
    autoCompact: true,
    ...over,
  };
}

const item = () => host.live('status-bar-item')[0]?.target as FakeStatusBarItem | undefined;

test('shows percent and tokens of the prompt budget with the state icon; approximate counts are marked', () => {
  const meter = new StatusBarMeter();
  assert.equal(item()?.visible, true);
  assert.equal(item()?.command, 'contextKeeper.sidebar.focus');
  meter.update(budget(12_345), 'idle');
  assert.equal(item()?.text, '$(dashboard) 43% · 12k/29k');
  meter.update(budget(950, { exact: false }), 'streaming');
  assert.equal(item()?.text, '$(loading~spin) 3% · ~950/29k');
  meter.update(budget(0, { inputBudget: 0 }), 'error');
  assert.equal(item()?.text, '$(error) 0% · 0/0', 'no division by zero before a window is known');
  meter.dispose();
});

test('tooltip and accessibility label carry the same figures; the warning colour starts at the compaction level', () => {
  const meter = new StatusBarMeter();
  meter.update(
    budget(22_937, { windowSource: '32,768 tokens, reported by the server', autoCompact: false }),
    'running-tool',
  );
  const tooltip = item()!.tooltip as MarkdownString;
  assert.ok(tooltip instanceof MarkdownString);
  assert.match(tooltip.value, /\*\*ContextKeeper\*\* — qwen2\.5-coder:7b/);
  assert.match(tooltip.value, /22,937 of 28,672 prompt tokens \(80%\), exact/);
  assert.match(tooltip.value, /Context window: 32,768 tokens, reported by the server/);
  assert.match(tooltip.value, /Compacts at 22,938, down to 14,336 \(automatic compaction off\)/);
  assert.equal(
    item()!.accessibilityInformation?.label,
    'ContextKeeper: 80 percent of the context budget used, 22937 of 28672 tokens, exact, running-tool',
  );
  assert.equal(item()!.backgroundColor, undefined, 'below the compaction level');
  meter.update(budget(22_938), 'idle');
  assert.deepEqual(item()!.backgroundColor, new ThemeColor('statusBarItem.warningBackground'));
  meter.dispose();
  assert.equal(item(), undefined, 'disposed with the meter');
});

test('token counts read 950, 1.2k, 12k, 1.05M', () => {
  assert.deepEqual([950, 1_234, 12_345, 1_050_000].map(formatTokens), ['950', '1.2k', '12k', '1.05M']);
});

test("an imported recording's tooltip shows the provider's recorded figure and why it differs from the count", () => {
  const meter = new StatusBarMeter();
  meter.update(budget(365_000, { inputBudget: 1_000_000, recordedPromptTokens: 69_400 }), 'idle');
  const below = (item()!.tooltip as MarkdownString).value;
  assert.match(
    below,
    /Recorded by the provider: 69\.4k prompt tokens for the recording's newest request, less than the whole recording: the agent condensed or cut its own context/,
  );
  meter.update(budget(300, { recordedPromptTokens: 135_528 }), 'idle');
  assert.match(
    (item()!.tooltip as MarkdownString).value,
    /Recorded by the provider: 135\.5k prompt tokens for the recording's newest request, including what the recording does not hold/,
  );
  meter.update(budget(300), 'idle');
  assert.doesNotMatch(
    (item()!.tooltip as MarkdownString).value,
    /Recorded by the provider/,
    'none without a recorded figure',
  );
  meter.dispose();
});

test('while the saved session loads it shows a loading state, never a false 0%; the real figure follows', () => {
  const meter = new StatusBarMeter();
  meter.update(budget(0), 'idle', true);
  assert.equal(item()?.text, '$(sync~spin) ContextKeeper');
  assert.doesNotMatch(item()?.text ?? '', /0%/);
  assert.match(String(item()?.tooltip), /loading the session/);
  assert.match(item()?.accessibilityInformation?.label ?? '', /not known yet/);
  meter.update(budget(12_345), 'idle');
  assert.equal(item()?.text, '$(dashboard) 43% · 12k/29k');
  meter.dispose();
});

test('while the saved session loads, the figure last shown for it is on the item, labelled as last known', () => {
  const meter = new StatusBarMeter();
  meter.update(budget(0), 'idle', true, {
    sessionId: 's1',
    used: 22_000,
    inputBudget: 28_672,
    exact: true,
    time: '2026-11-30T09:15:00.000Z',
  });
  assert.equal(item()?.text, '$(sync~spin) 77% · ~22k/29k (last known)');
  assert.match(String(item()?.tooltip), /loading the session .*Last known: 22,000 of 28,672 prompt tokens \(77%\)/);
  assert.match(item()?.accessibilityInformation?.label ?? '', /loading the session; last known 77 percent/);
  assert.equal(item()?.backgroundColor, undefined, 'no warning colour for a figure that is not current');
  meter.update(budget(12_345), 'idle');
  assert.equal(item()?.text, '$(dashboard) 43% · 12k/29k', 'the current figure replaces it');
  meter.dispose();
});

test('with no conversation in the workspace yet it names itself, with no figure', () => {
  const meter = new StatusBarMeter();
  meter.showNoSession();
  assert.equal(item()?.text, '$(dashboard) ContextKeeper');
  assert.doesNotMatch(item()?.text ?? '', /%/);
  assert.match(String(item()?.tooltip), /no conversation in this workspace yet/);
  assert.equal(item()?.accessibilityInformation?.label, 'ContextKeeper: no conversation yet');
  meter.update(budget(777), 'idle');
  assert.equal(item()?.text, '$(dashboard) 3% · 777/29k', 'the real figure once a session is open');
  meter.dispose();
});

test('a pause of automatic compaction is marked on the item, told in the tooltip with a link that resumes it, and read out', () => {
  const meter = new StatusBarMeter();
  meter.update(budget(12_345, { autoPaused: 'paused after 3 failed compactions in a row' }), 'idle');
  assert.equal(item()?.text, '$(dashboard) 43% · 12k/29k $(debug-pause)');
  const tooltip = item()!.tooltip as MarkdownString;
  assert.match(tooltip.value, /Automatic compaction is paused after 3 failed compactions in a row/);
  assert.match(tooltip.value, /\[Compact Conversation\]\(command:contextKeeper\.compactConversation\) resumes it/);
  assert.deepEqual(tooltip.isTrusted, { enabledCommands: ['contextKeeper.compactConversation'] });
  assert.equal(tooltip.supportThemeIcons, true, 'the pause icon renders in the tooltip');
  assert.match(item()!.accessibilityInformation?.label ?? '', /automatic compaction paused after 3 failed/);
  assert.deepEqual(
    item()!.backgroundColor,
    new ThemeColor('statusBarItem.warningBackground'),
    'below the level, yet paused',
  );
  assert.equal(item()?.command, 'contextKeeper.sidebar.focus', 'a click opens the view that tells the pause');
  meter.update(budget(12_345), 'idle');
  assert.equal(item()?.text, '$(dashboard) 43% · 12k/29k', 'the mark goes when it resumes');
  assert.doesNotMatch((item()!.tooltip as MarkdownString).value, /paused/);
  assert.equal(item()!.backgroundColor, undefined);
  meter.dispose();
});
