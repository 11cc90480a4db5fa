/**
 * Texts of the notifications about compaction and restore; figures are written as the sidebar's gauge
 * writes them (`format/tokens.ts`), so a figure reads the same everywhere ("11.9k"). Pure: no `vscode` import.
 */
import { describeOutcome, type CompactOutcomeStatus, type CompactOutcome } from '../service/compaction/outcome';
import type { CheckpointRecord } from '../service/records';
import { formatTokens, formatTokensFull, plural } from '../format/tokens';
import type { AnchoredTokens, ModelFailure } from '../compaction/outcome';
import { describeAnchored } from '../compaction/outcome-text';
import {
  whyAboveTarget,
  whyEditsSummarised,
  type ContinueFacts,
  type ContinueHolder,
} from '../service/compaction/continue-facts';

/** What the checkpoints of one compaction did: "5 tool results collapsed, 1 summary". Empty when nothing is known. */
export function compactionParts(checkpoints: readonly Pick<CheckpointRecord, 'inserted' | 'strategy'>[]): string {
  const count = (kind: string) =>
    checkpoints.reduce((sum, c) => sum + c.inserted.filter((i) => i.kind === kind).length, 0);
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
export function compactionNotice(
  outcome: Pick<CompactOutcome, 'status' | 'tokensBefore' | 'tokensAfter' | 'checkpoints'>,
): string {
  if (outcome.status.kind === 'applied') {
    const parts = compactionParts(outcome.checkpoints);
    return `ContextKeeper: compacted ${formatTokens(outcome.tokensBefore)} → ${formatTokens(outcome.tokensAfter)} tokens${parts ? ` (${parts})` : ''}${modelFailedClause(outcome.checkpoints)}.`;
  }
  const sentence = describeOutcome(outcome.status);
  return `ContextKeeper: ${sentence}${statesFigures(outcome.status) ? '' : ` (context ${formatTokens(outcome.tokensBefore)} tokens)`}.`;
}

/**
 * `; the summary model failed (why), so 76 messages were summarised without a model`, when the
 * summary model failed and the extractive summarizer wrote part of the summaries; empty otherwise.
 * The reason is the first failure recorded, cut to 120 characters.
 */
function modelFailedClause(checkpoints: readonly Pick<CheckpointRecord, 'coverage'>[]): string {
  const parts = checkpoints
    .flatMap((c) => c.coverage?.parts ?? [])
    .filter((p) => p.writer === 'extractive' && p.reason === 'model-failed');
  const messages = parts.reduce((sum, p) => sum + p.last - p.first + 1, 0);
  if (messages === 0) return '';
  const failure = parts
    .find((p) => p.failure)
    ?.failure?.replace(/\s+/g, ' ')
    .trim();
  const why = failure ? ` (${failure.length > 120 ? `${failure.slice(0, 119)}…` : failure})` : '';
  return `; the summary model failed${why}, so ${plural(messages, 'message was', 'messages were')} summarised without a model`;
}

/** Kinds whose sentence already gives the context's tokens (see `describeCompaction`). */
function statesFigures(status: CompactOutcomeStatus): boolean {
  return status.kind === 'applied' || status.kind === 'not-needed' || status.kind === 'does-not-fit';
}

/**
 * The notification after a restore, counted as the history shows it (one entry per compaction run):
 * "ContextKeeper: restored 1 compaction (2 steps); context 3.8k → 11.9k tokens." `runs` compaction
 * runs were undone, `checkpoints` checkpoints in all.
 */
export function restoreNotice(runs: number, checkpoints: number, before: number, after: number): string {
  const steps = checkpoints > runs ? ` (${plural(checkpoints, 'step', 'steps')})` : '';
  return `ContextKeeper: restored ${plural(runs, 'compaction', 'compactions')}${steps}; context ${formatTokens(before)} → ${formatTokens(after)} tokens.`;
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
 * configured ('' when none was chosen); `result` the test's report; `hasKey` whether a key is stored.
 * Set API Key is offered from typed data: the key was rejected, or none is stored for the default.
 */
export function connectionVerdict(
  result: ConnectionReport,
  source: 'endpoint' | 'vscode',
  baseUrl: string,
  hasKey: boolean,
): { text: string; actions: ConnectionAction[] } {
  const chosen = baseUrl.trim();
  const where =
    source === 'vscode'
      ? "VS Code's language models"
      : chosen || `${DEFAULT_ENDPOINT} (OpenAI, the default: no endpoint chosen yet)`;
  if (result.ok) {
    const summary = result.modelLine ?? result.lines[0] ?? '';
    return { text: `ContextKeeper: connection to ${where} works. ${summary}`, actions: ['Show Details'] };
  }
  // The failure's own words (status and the server's message) when the test has them, else the report's last line.
  const failure = result.reason ?? result.lines.at(-1) ?? 'no answer';
  // Set API Key when the key was rejected, or none is stored for the OpenAI default (which needs one).
  const keyFix = result.failure?.kind === 'auth' || (!hasKey && !chosen);
  return {
    text: `ContextKeeper: ${failureLead(result.failure, where)}: ${failure}`,
    actions:
      source === 'vscode'
        ? ['Show Details']
        : ['Choose Endpoint', ...(keyFix ? (['Set API Key'] as const) : []), 'Show Details'],
  };
}

/**
 * The opening words of a failed test, from the typed failure: what went wrong comes first because a
 * long notification is cut (see {@link splitNotice}) and the rest lives in the log.
 */
function failureLead(failure: ModelFailure | undefined, where: string): string {
  switch (failure?.kind) {
    case 'network':
      return `nothing answers at ${where}`;
    case 'auth':
      return `${where} rejected the API key`;
    case 'model-not-found':
      return `${where} does not serve the model`;
    case 'timeout':
      return `${where} did not answer in time`;
    case 'server':
      return `the server at ${where} failed the test request`;
    default:
      return `connection problem with ${where}`;
  }
}

/** What a connection test found, as {@link connectionVerdict} reads it. */
export interface ConnectionReport {
  ok: boolean;
  /** The report, one line each; the last one says what failed. */
  lines: readonly string[];
  /** The line about the configured model and its window, when the test got that far. */
  modelLine?: string;
  /** Why it failed, when it did and the kind is known. */
  failure?: ModelFailure;
  /** The failure in a few words (status and the server's message), shown in place of the last line. */
  reason?: string;
}

/** The confirmation after Choose Endpoint: where requests go now, and with which model when one was picked. */
export function endpointChosenNotice(baseUrl: string, model: string | undefined): string {
  const where = baseUrl.trim() || `OpenAI (${DEFAULT_ENDPOINT})`;
  return `ContextKeeper: the agent now sends its requests to ${where}${model ? `, model ${model}` : ''}.`;
}

/** Longest notification text shown as it is, in characters: longer ones are split (see {@link splitNotice}). */
export const NOTICE_MAX_CHARS = 90;

/**
 * Longest error notification shown as it is: an error toast says what failed and why, and the why
 * (a server's answer, a model id, an endpoint) is what the user acts on, so it gets more room.
 */
export const ERROR_NOTICE_MAX_CHARS = 180;

const OPENERS: Record<string, string> = { '(': ')', '[': ']', '{': '}', '"': '"', '“': '”', '«': '»' };

/**
 * For each character index of `text`, whether it lies outside every bracket and quote, so a cut there
 * leaves none open. An unmatched closer is ignored; an opener never closed keeps the rest inside.
 */
function outsideBrackets(text: string): boolean[] {
  const open: string[] = [];
  const outside: boolean[] = [];
  for (const ch of text) {
    const closer = open.at(-1);
    if (closer !== undefined && ch === closer) {
      open.pop();
      outside.push(false);
      continue;
    }
    outside.push(open.length === 0 && OPENERS[ch] === undefined);
    if (OPENERS[ch] !== undefined) open.push(OPENERS[ch]);
  }
  return outside;
}

/**
 * Splits a notification text that would not fit a toast into a short message and the whole text as
 * detail (shown on "Show Details"). The short message is only ever cut at white space, so an
 * identifier, path, URL or model id (`qwen2.5-coder:7b`, `http://127.0.0.1:11434/v1`) is shown whole
 * or not at all, and never inside a parenthesis or quote. It ends at the last sentence end (". " or
 * "; ") outside brackets within `max` characters that leaves at least three words after the
 * "ContextKeeper: " prefix; a colon is no such end, because what follows it is the reason or the
 * subject ("the agent stopped: <reason>"). Without a sentence end it ends at the last whole word
 * outside brackets, marked "…" (a list cut at a comma would read as complete). A text whose first
 * word alone is longer than `max` keeps that word whole. Texts of `max` characters or fewer come
 * back whole.
 */
export function splitNotice(text: string, max = NOTICE_MAX_CHARS): { short: string; detail?: string } {
  const whole = text.trim();
  if (whole.length <= max) return { short: whole };
  const prefix = /^ContextKeeper: /.test(whole) ? 'ContextKeeper: '.length : 0;
  const outside = outsideBrackets(whole);
  const lastOutside = (from: number, test: (i: number) => boolean): number => {
    for (let i = Math.min(from, whole.length - 1); i > prefix; i--) if (outside[i] && test(i)) return i;
    return -1;
  };
  const words = (end: number) => whole.slice(prefix, end).split(/\s+/).filter(Boolean).length;
  const boundary = lastOutside(max - 2, (i) => /[;.]/.test(whole[i]) && whole[i + 1] === ' ' && words(i) >= 3);
  if (boundary > prefix) return { short: `${whole.slice(0, boundary)}.`, detail: whole };
  const space = lastOutside(max - 1, (i) => whole[i] === ' ');
  // No white space to cut at: the first word is longer than the toast; keep it whole.
  const end = space > prefix ? space : whole.slice(prefix).search(/\s/) + prefix;
  if (end <= prefix) return { short: whole };
  return { short: `${whole.slice(0, end).replace(/[\s.,;:]+$/, '')}…`, detail: whole };
}

/** A fix the error banner and notification offer for a failed model call. */
export type ModelErrorFix = 'setApiKey' | 'openSettings' | 'showLog';

/**
 * The fixes offered after a model call failed, decided from typed data only: Set API Key when the
 * server rejected the key (`failure.kind` `auth`, HTTP 401/403) or when no key is stored for an
 * endpoint that needs one (`needsKey`); Open Settings and Show Log always. The error's text is never
 * searched for words like "key" (a 500 that mentions a "key" is no key problem).
 */
export function modelErrorFixes(failure: ModelFailure | undefined, needsKey: boolean): ModelErrorFix[] {
  return [...(needsKey || failure?.kind === 'auth' ? (['setApiKey'] as const) : []), 'openSettings', 'showLog'];
}

/**
 * Ids of the checkpoints whose summary the user edited by hand (`editedByHand`, not restored) and
 * whose summary item is no longer in the context (`contextIds`, the ids of its items): a compaction
 * since summarized it again (or the context was built without it), so the edits no longer stand word
 * for word. In the order of `checkpoints`.
 */
export function editsNotInContext(
  checkpoints: readonly Pick<CheckpointRecord, 'id' | 'editedByHand' | 'restored' | 'inserted'>[],
  contextIds: ReadonlySet<string>,
): string[] {
  return checkpoints
    .filter(
      (c) => c.editedByHand && !c.restored && c.inserted.some((i) => i.kind === 'summary' && !contextIds.has(i.id)),
    )
    .map((c) => c.id);
}

/** "system prompt 9,000, tool schemas 1,200": what holds the never-summarised tokens, largest first. */
function neverSummarisedParts(a: AnchoredTokens): string {
  return describeAnchored({ ...a, recentSteps: 0, pinned: 0 });
}

/** What fills the target, in words with its figures (see {@link ContinueHolder}). */
function describeHolder(holder: ContinueHolder, target: string): string {
  const n = formatTokensFull;
  switch (holder.kind) {
    case 'never-summarised':
      return `what is never summarised (${neverSummarisedParts(holder.anchored)}; ${n(holder.tokens)} tokens) alone fills the compaction target of ${target}`;
    case 'kept-steps':
      return `the newest steps kept verbatim (contextKeeper.keepRecentSteps) hold ${n(holder.tokens)} tokens, and with what is never summarised (${n(holder.fixed)}) they fill the compaction target of ${target}`;
    case 'pinned':
      return `pinned messages hold ${n(holder.tokens)} tokens, and with what is always kept (${n(holder.fixed)}) they fill the compaction target of ${target}`;
    case 'edited-summaries':
      return `the summaries edited by hand hold ${n(holder.tokens)} tokens as written, and with what is always kept (${n(holder.fixed)}) they fill the compaction target of ${target} (contextKeeper.compactTo)`;
    case 'hand-lines':
      return `the lines added by hand, carried whole into the new summary, hold ${n(holder.tokens)} tokens; without them it would be within the target of ${target}`;
    case 'summaries':
      return `the new summaries hold ${n(holder.tokens)} tokens above what is always kept, the least their notes need, over the target of ${target}`;
  }
}

/** A notification: its level, text, and whether it offers Open Checkpoint (an edited summary was summarised again). */
export interface ContinueNotice {
  level: 'info' | 'warning';
  text: string;
  openCheckpoint: boolean;
}

/**
 * The notification after the compaction that fitted a continued recording, when something needs
 * saying, from what the run measured and did ({@link ContinueFacts}), never assumed: why summaries
 * the user edited by hand were summarised again ({@link whyEditsSummarised}: the recording had done
 * it, the new task would not fit the input budget, or the part that really fills the target, which
 * is the edits only when the rest stays below it), and why the new task starts above the target
 * ({@link whyAboveTarget}). Undefined when every edited summary stands as written and the run
 * reached its target.
 */
export function continueNotice(facts: ContinueFacts): ContinueNotice | undefined {
  const n = formatTokensFull;
  const target = `${n(facts.targetTokens)} tokens`;
  const edits = whyEditsSummarised(facts);
  const above = whyAboveTarget(facts);
  const sentences: string[] = [];
  if (edits) {
    const count = edits.kind === 'recording' ? facts.summarisedBefore : facts.resummarised;
    const which = count === 1 ? 'a summary you edited by hand was' : `${count} summaries you edited by hand were`;
    const why =
      edits.kind === 'recording'
        ? 'a later compaction in the recording had done so before you continued it'
        : edits.kind === 'over-budget'
          ? `kept as written, the new task would not have fit the model's input budget`
          : edits.kind === 'edited-summaries'
            ? describeHolder(edits, target)
            : `not because of your edits: ${describeHolder(edits, target)}`;
    sentences.push(`${which} summarised again: ${why}.`);
    sentences.push('The checkpoint keeps your edits: Open Checkpoint shows them, Restore puts them back.');
  }
  // Said unless the edits sentence already named the same holder.
  if (above && !(edits && edits.kind === above.kind))
    sentences.push(
      `The new task starts at ${n(facts.tokensAfter)} tokens, above the target: ${describeHolder(above, target)}.`,
    );
  if (sentences.length === 0) return undefined;
  const text = sentences.join(' ');
  return {
    level: edits ? 'warning' : 'info',
    text: `ContextKeeper: ${text[0].toLowerCase()}${text.slice(1)}`,
    openCheckpoint: edits !== undefined,
  };
}
