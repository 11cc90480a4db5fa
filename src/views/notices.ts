/**
 * Texts of the notifications about compaction and restore, and the token formatting they share with
 * the sidebar's gauge, so a figure reads the same everywhere ("11.9k"). Pure: no `vscode` import.
 */
import type { CheckpointRecord, CompactOutcome } from '../service/api';
import { describeOutcome, type CompactOutcomeStatus } from '../service/outcome';

/**
 * Compact token count as the gauge shows it: 950, 9.5k, 12k, 1.05M. `n` is a count of tokens;
 * negative counts keep their sign.
 */
export function formatTokens(n: number): string {
  if (n < 0) return `-${formatTokens(-n)}`;
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** What the checkpoints of one compaction did: "5 tool results collapsed, 1 summary". Empty when nothing is known. */
export function compactionParts(checkpoints: readonly Pick<CheckpointRecord, 'inserted' | 'strategy'>[]): string {
  const count = (kind: string) => checkpoints.reduce((sum, c) => sum + c.inserted.filter((i) => i.kind === kind).length, 0);
  const collapsed = count('collapsed');
  const summaries = count('summary');
  const clipped = count('clipped');
  return [
    collapsed > 0 ? `${plural(collapsed, 'tool result', 'tool results')} collapsed` : undefined,
    summaries > 0 ? plural(summaries, 'summary', 'summaries') : undefined,
    clipped > 0 ? `${plural(clipped, 'message', 'messages')} clipped` : undefined,
  ]
    .filter((p): p is string => p !== undefined)
    .join(', ');
}

/**
 * The notification after a manual compaction: each figure once, in gauge formatting, e.g.
 * "ContextKeeper: compacted 11.9k → 3.8k tokens (5 tool results collapsed, 1 summary)". A compaction
 * that was not applied gives the sentence for its typed status ({@link describeOutcome}), with the
 * context size added for the kinds whose sentence states no token figures.
 */
export function compactionNotice(outcome: Pick<CompactOutcome, 'applied' | 'status' | 'tokensBefore' | 'tokensAfter' | 'checkpoints'>): string {
  if (outcome.applied) {
    const parts = compactionParts(outcome.checkpoints);
    return `ContextKeeper: compacted ${formatTokens(outcome.tokensBefore)} → ${formatTokens(outcome.tokensAfter)} tokens${parts ? ` (${parts})` : ''}.`;
  }
  const sentence = describeOutcome(outcome.status);
  return `ContextKeeper: ${sentence}${statesFigures(outcome.status) ? '' : ` (context ${formatTokens(outcome.tokensBefore)} tokens)`}.`;
}

/** Kinds whose sentence already gives the context's tokens (see `describeCompaction`). */
function statesFigures(status: CompactOutcomeStatus): boolean {
  return status.kind === 'applied' || status.kind === 'not-needed' || status.kind === 'does-not-fit';
}

/** The notification after a restore: "ContextKeeper: restored 2 checkpoints; context 3.8k → 11.9k tokens." */
export function restoreNotice(undone: number, before: number, after: number): string {
  return `ContextKeeper: restored ${plural(undone, 'checkpoint', 'checkpoints')}; context ${formatTokens(before)} → ${formatTokens(after)} tokens.`;
}

/** The notification after undoing a restore: "ContextKeeper: restore undone, 1 checkpoint in force again; context 11.9k → 3.8k tokens." */
export function undoRestoreNotice(checkpoints: number, before: number, after: number): string {
  return `ContextKeeper: restore undone, ${plural(checkpoints, 'checkpoint', 'checkpoints')} in force again; context ${formatTokens(before)} → ${formatTokens(after)} tokens.`;
}

/** The OpenAI API's base URL: what an empty `contextKeeper.baseUrl` means. */
const DEFAULT_ENDPOINT = 'https://api.openai.com/v1';

/** Buttons of the Test Connection notification. */
export type ConnectionAction = 'Show Details' | 'Choose Endpoint' | 'Set API Key' | 'Show Log';

/**
 * The Test Connection notification: names the endpoint that was tried (and says when it is only the
 * default because none was chosen), and offers the fixes when it failed. `baseUrl` is the setting as
 * configured ('' when none was chosen); `lines` the test's report, whose last line says what failed.
 */
export function connectionVerdict(result: { ok: boolean; lines: readonly string[] }, source: 'endpoint' | 'vscode', baseUrl: string): { text: string; actions: ConnectionAction[] } {
  const chosen = baseUrl.trim();
  const where = source === 'vscode' ? "VS Code's language models" : chosen || `${DEFAULT_ENDPOINT} (OpenAI, the default: no endpoint chosen yet)`;
  if (result.ok) {
    const summary = result.lines.find((l) => /^Model /.test(l)) ?? result.lines[0] ?? '';
    return { text: `ContextKeeper: connection to ${where} works. ${summary}`, actions: ['Show Details'] };
  }
  const failure = result.lines.at(-1) ?? 'no answer';
  return { text: `ContextKeeper: connection problem with ${where}: ${failure}`, actions: source === 'vscode' ? ['Show Log'] : ['Choose Endpoint', 'Set API Key', 'Show Log'] };
}

/** The confirmation after Choose Endpoint: where requests go now, and with which model when one was picked. */
export function endpointChosenNotice(baseUrl: string, model: string | undefined): string {
  const where = baseUrl.trim() || `OpenAI (${DEFAULT_ENDPOINT})`;
  return `ContextKeeper: the agent now sends its requests to ${where}${model ? `, model ${model}` : ''}.`;
}
