/**
 * Checks and structured appendices applied to a model-written summary before it is committed.
 *
 * A model summary is prose and can be wrong. What the span itself proves is appended in structured
 * form and wins over the prose:
 * - quotes attributed to the user that no real user message contains are removed;
 * - each tool call's outcome (ok / error, from its result) is listed, and prose claiming success for a
 *   call whose result shows an error is flagged;
 * - the arguments of the last task-list tool call are carried verbatim, exactly once;
 * - the latest verification result (tests, build, type check, lint) is carried verbatim;
 * - when the prose says the work is complete while failures of the span are still open (the
 *   retention scorecard's rules, `retention/errors.ts`), a correction line naming them follows it.
 *
 * When the appendix is over its size, successful calls are left out of the outcomes first (oldest
 * first, counted); a failure's line is never cut.
 *
 * Pure: no I/O, no model calls.
 */
import type { ContextItem } from '../types';
import { clipMiddle } from '../clip';
import { toolCallsOf } from './summary-prompt';
import { parseJsonOrUndefined } from '../../format/json';
import { plainText } from '../content-text';
import { recordedToolOutcome } from '../tool-outcomes';
import { openFailures } from '../retention/scorecard';
import { TASK_LIST_TOOL, writesTaskList } from './message-facts';

/** Heading of the appended task-list section. */
export const TASK_LIST_HEADING = '## Task list (last update, verbatim)';
/** Heading of the appended verification section. */
export const VERIFICATION_HEADING = '## Latest verification (verbatim)';
/** Heading of the appended per-call outcome section. */
export const OUTCOMES_HEADING = '## Tool call outcomes (from the tool results; these override the notes above)';

/** Tool names or shell commands that verify work. */
const VERIFY_TOOL = /test|lint|typecheck|type_check|build|check/i;
const VERIFY_COMMAND =
  /\b(?:npm (?:run )?(?:test|build|lint)|pnpm (?:run )?test|yarn test|npx (?:tsc|jest|vitest|mocha|eslint)|tsc\b|jest|vitest|mocha|pytest|python -m (?:pytest|unittest)|cargo (?:test|build|check|clippy)|go (?:test|build|vet)|mvn (?:test|verify)|gradle(?:w)? (?:test|build)|make (?:test|check)|ruff|eslint|mypy|dotnet test)\b/i;
/** Result text that reports failure. */
const ERROR_RESULT =
  /\b(?:error|errors|failed|failure|fail|exception|traceback|did not apply|not found|no such file|permission denied|denied|cannot|could not|couldn't|unable to|invalid|timed out|non-zero|exit code [1-9]\d*|exit status [1-9]\d*|panic)\b/i;
/** Result text that reports success explicitly even though it mentions failure words ("0 failed"). */
const CLEAN_RESULT = /\b0 (?:failed|failures|errors?)\b|\bfound 0 errors\b|\bno errors?\b|\ball \d+ tests? passed\b/i;
/** Prose words that claim success. */
const SUCCESS_CLAIM =
  /\b(?:successfully|succeeded|completed|complete|done|fixed|applied|edited|updated|implemented|passed|passing|works|working|finished|resolved)\b/i;
/** Prose words that already admit failure. */
const FAILURE_ADMITTED =
  /\b(?:fail|failed|failing|error|errors|did not|didn't|could not|couldn't|unable|not applied|unsuccessful|rejected)\b/i;

/**
 * Prose that says all the work is finished ("All work is complete", "nothing remains", "everything
 * is already properly configured").
 */
const COMPLETION_CLAIM =
  /\b(?:(?:all|the) (?:work|tasks?|changes|requests?) (?:is |are |was |were |has been |have been )?(?:now )?(?:complete|completed|done|finished)|nothing (?:else )?(?:remains|is left|left to do)|no (?:remaining|open) (?:work|tasks|issues|errors)|everything (?:is|was) (?:now |already )?(?:done|complete|completed|finished|working|(?:properly |correctly |fully )?(?:configured|set up|in place))|(?:task|work) (?:is |was |has been )(?:now )?(?:complete|completed|done|finished)|all done)\b/i;

/** Marker of a cut inside one line. */
const INLINE_CLIP = (removed: number) => ` […${removed} characters…] `;

/** Start of the correction line added when the prose claims completion beside open failures. */
export const CORRECTION_PREFIX = 'Note (added from the tool results): the notes above say the work is done, but';

/** Outcome of one tool call, from its result. */
export interface CallOutcome {
  id: string;
  name: string;
  /** Arguments JSON text as sent. */
  arguments: string;
  /** `missing` when no result answers the call in the span. */
  status: 'ok' | 'error' | 'missing';
  /** First meaningful line of the result (at most 160 characters). */
  detail: string;
}

/** Options of {@link finalizeSummary}. */
export interface FinalizeOptions {
  /** Real user requests, verbatim (from `SummaryRequest.userRequests`); quotes found here are genuine. */
  userRequests?: readonly string[];
  /** Upper bound on the appended text, in characters. Default 6000. */
  maxAppendixChars?: number;
  /** Most tool-call outcome lines listed (the newest are kept). Default 30. */
  maxOutcomeLines?: number;
}

/** What {@link finalizeSummary} did. */
export interface FinalizedSummary {
  /** The summary to commit. */
  text: string;
  /** Quotes attributed to the user that were not found in any user message and were removed. */
  removedQuotes: string[];
  /** Sentences of the summary that claim success for a call whose result shows an error. */
  contradictions: Array<{ sentence: string; callId: string }>;
  /** Per-call outcomes found in the span, oldest first. */
  outcomes: CallOutcome[];
  /**
   * Open failures (command, or `tool path`) the prose contradicts by saying the work is done; a
   * correction line names them in `text`. Empty when the prose claims no completion or none is open.
   */
  contradicted: string[];
}

/**
 * Applies the checks of this module to `text`, a model-written summary of `items`.
 *
 * Sections this module appends are first removed from `text` (a model may copy them from an earlier
 * summary), then appended fresh, so each appears exactly once. When the span holds no task-list call or
 * verification run, the corresponding section of the newest earlier summary in the span is carried over.
 *
 * @param text Summary text (already validated: non-empty, not a refusal).
 * @param items The replaced span, oldest first (may include earlier summaries).
 * @returns The text to commit and what was changed. Never throws.
 */
export function finalizeSummary(
  text: string,
  items: readonly ContextItem[],
  opts: FinalizeOptions = {},
): FinalizedSummary {
  const maxAppendix = opts.maxAppendixChars ?? 6000;
  const maxLines = opts.maxOutcomeLines ?? 30;
  const earlierSummaries = items
    .filter((item) => item.kind === 'summary')
    .map((item) => plainText(item.message.content));

  let body = removeSections(text, [TASK_LIST_HEADING, VERIFICATION_HEADING, OUTCOMES_HEADING]);
  const quoteCheck = removeInventedQuotes(body, items, opts.userRequests ?? [], earlierSummaries);
  body = quoteCheck.text;

  const outcomes = callOutcomes(items);
  const contradictions = findContradictions(body, outcomes);
  const contradicted = COMPLETION_CLAIM.test(body) ? openFailures(items) : [];
  if (contradicted.length > 0)
    body = `${body.trimEnd()}\n\n${CORRECTION_PREFIX} these failed and were not fixed: ${contradicted
      .map(
        (f) =>
          `\`${clipMiddle(f.key, 160, INLINE_CLIP)}\`${f.line ? ` (${clipMiddle(f.line, 160, INLINE_CLIP)})` : ''}`,
      )
      .join('; ')}.`;

  // The verification and the task list take at most half of the appendix when the outcomes need
  // the rest; the outcomes then leave successful calls out before any failure.
  const head: string[] = [];
  const verification = latestVerification(items, outcomes) ?? carriedSection(earlierSummaries, VERIFICATION_HEADING);
  if (verification !== undefined) head.push(`${VERIFICATION_HEADING}\n${verification}`);
  const taskList = latestTaskList(outcomes) ?? carriedSection(earlierSummaries, TASK_LIST_HEADING);
  if (taskList !== undefined) head.push(`${TASK_LIST_HEADING}\n${taskList}`);
  let headText = head.join('\n\n');
  const full = renderOutcomes(outcomes, contradictions, maxLines);
  const outcomesRoom = (room: number) => Math.max(0, room - OUTCOMES_HEADING.length - 3);
  if (full !== undefined && headText.length + full.length + OUTCOMES_HEADING.length + 3 > maxAppendix)
    headText = clipMiddle(headText, Math.max(maxAppendix - full.length - OUTCOMES_HEADING.length - 3, maxAppendix / 2));
  else if (headText.length > maxAppendix) headText = clipMiddle(headText, maxAppendix);
  const outcomeSection =
    full === undefined
      ? undefined
      : renderOutcomes(outcomes, contradictions, maxLines, outcomesRoom(maxAppendix - headText.length));
  const appendix = [headText, outcomeSection === undefined ? '' : `${OUTCOMES_HEADING}\n${outcomeSection}`]
    .filter((t) => t.length > 0)
    .join('\n\n');
  const finalText = appendix.length > 0 ? `${body.trimEnd()}\n\n${appendix}` : body.trimEnd();
  return {
    text: finalText,
    removedQuotes: quoteCheck.removed,
    contradictions,
    outcomes,
    contradicted: contradicted.map((f) => f.key),
  };
}

/**
 * Outcomes of the tool calls in `items`, oldest first: from the success flag the recording carries
 * for the result (`tool-outcomes.ts`) where it has one, else `error` when the result reads as a
 * failure (error words, non-zero exit code, `is_error`) and not as a clean run ("0 failed");
 * `missing` when no result answers the call in the span.
 */
export function callOutcomes(items: readonly ContextItem[]): CallOutcome[] {
  const results = new Map<string, string>();
  const recorded = new Map<string, boolean>();
  for (const item of items) {
    if (item.message.role !== 'tool') continue;
    results.set(item.message.tool_call_id, plainText(item.message.content));
    const ok = recordedToolOutcome(item.message);
    if (ok !== undefined) recorded.set(item.message.tool_call_id, ok);
  }
  const out: CallOutcome[] = [];
  for (const item of items) {
    for (const call of toolCallsOf(item.message)) {
      const result = results.get(call.id);
      if (result === undefined) {
        out.push({ ...call, status: 'missing', detail: '' });
        continue;
      }
      // The recording's own success flag decides where it has one; the wording only where it has none.
      const ok = recorded.get(call.id) ?? !isErrorResult(result);
      out.push({ ...call, status: ok ? 'ok' : 'error', detail: firstMeaningfulLine(result, !ok) });
    }
  }
  return out;
}

/** True when a tool result reports failure. */
export function isErrorResult(result: string): boolean {
  const exit = /"(?:exit_code|exitCode|returncode)"\s*:\s*(-?\d+)/.exec(result);
  if (exit !== null) return exit[1] !== '0';
  if (/"is_error"\s*:\s*true/.test(result)) return true;
  // Look at both ends: the command echo and the final status line carry the verdict.
  const ends = result.length > 1200 ? `${result.slice(0, 600)}\n${result.slice(-600)}` : result;
  if (CLEAN_RESULT.test(ends) && !/\b[1-9]\d* (?:failed|failures|errors?)\b/i.test(ends)) return false;
  return ERROR_RESULT.test(ends);
}

/** Removes quotes the summary attributes to the user that no user message (or earlier summary) contains. */
function removeInventedQuotes(
  text: string,
  items: readonly ContextItem[],
  userRequests: readonly string[],
  earlierSummaries: readonly string[],
): { text: string; removed: string[] } {
  const corpus = normalise(
    [
      ...items
        .filter((item) => item.message.role === 'user' && item.kind !== 'summary')
        .map((item) => plainText(item.message.content)),
      ...userRequests,
      ...earlierSummaries,
    ].join('\n'),
  );
  const removed: string[] = [];
  const lines = text.split('\n').map((line) => {
    if (!attributesToUser(line)) return line;
    return line.replace(
      /"([^"\n]{8,})"|“([^”\n]{8,})”|«([^»\n]{8,})»/g,
      (whole, a?: string, b?: string, c?: string) => {
        const quote = a ?? b ?? c ?? '';
        if (corpus.includes(normalise(quote))) return whole;
        removed.push(quote);
        return "[quote removed: not found in the user's messages]";
      },
    );
  });
  return { text: lines.join('\n'), removed };
}

/** A line that presents a quote as the user's words ("The user said …", "User: …", "asked: …"). */
function attributesToUser(line: string): boolean {
  return /\buser\b[^"“«\n]{0,60}\b(?:said|says|asked|asks|wrote|writes|requested|requests|instructed|instructs|told|stated|states|wants|wanted|demanded|added|replied|:)|^\s*(?:[-*>]\s*)?(?:\*\*)?user(?:\*\*)?\s*:/i.test(
    line,
  );
}

/** Sentences claiming success for a call whose result shows an error (matched by the call's target). */
function findContradictions(
  text: string,
  outcomes: readonly CallOutcome[],
): Array<{ sentence: string; callId: string }> {
  const failed = outcomes.filter((o) => o.status === 'error');
  if (failed.length === 0) return [];
  // Calls that later succeeded on the same target are not contradicted by a success claim.
  const succeededTargets = new Set(outcomes.filter((o) => o.status === 'ok').flatMap((o) => targetsOf(o)));
  const sentences = text.split(/(?<=[.!?])\s+|\n+/).filter((s) => s.trim().length > 0);
  const out: Array<{ sentence: string; callId: string }> = [];
  for (const call of failed) {
    const targets = targetsOf(call).filter((t) => !succeededTargets.has(t));
    if (targets.length === 0) continue;
    for (const sentence of sentences) {
      if (!SUCCESS_CLAIM.test(sentence) || FAILURE_ADMITTED.test(sentence)) continue;
      if (targets.some((t) => sentence.includes(t))) {
        out.push({ sentence: sentence.trim(), callId: call.id });
        break;
      }
    }
  }
  return out;
}

/** What a call acts on: file paths and commands from its arguments. */
function targetsOf(call: Pick<CallOutcome, 'arguments'>): string[] {
  const args = parseJsonOrUndefined(call.arguments);
  if (typeof args !== 'object' || args === null) return [];
  const out: string[] = [];
  for (const key of ['path', 'file', 'file_path', 'filePath', 'filename', 'target', 'command', 'cmd']) {
    const value = (args as Record<string, unknown>)[key];
    if (typeof value === 'string' && value.trim().length > 0) out.push(value.trim());
  }
  return out;
}

/**
 * The outcome lines of the newest `maxLines` calls, then a correction per contradiction. Within
 * `room` characters (default: no bound), successful calls are left out first (oldest first), then the
 * oldest failures; those left out are counted in a line of their own. A line is never cut.
 */
function renderOutcomes(
  outcomes: readonly CallOutcome[],
  contradictions: ReadonlyArray<{ sentence: string; callId: string }>,
  maxLines: number,
  room = Infinity,
): string | undefined {
  if (outcomes.length === 0) return undefined;
  const lineOf = (o: CallOutcome) => {
    // Older task lists would contradict the latest one: only the task-list section shows it.
    // Cut inside the line (a failure's line stays one line): failures keep more of their arguments.
    const args = TASK_LIST_TOOL.test(o.name)
      ? '(task list update)'
      : clipMiddle(o.arguments.replace(/\s+/g, ' '), o.status === 'error' ? 240 : 100, INLINE_CLIP);
    const detail = o.detail.length > 0 ? `: ${o.detail}` : '';
    return `- ${o.id} ${o.name} ${args} — ${o.status}${detail}`;
  };
  const corrections = contradictions.map((c) => {
    const call = outcomes.find((o) => o.id === c.callId);
    return `- Correction: the notes above say "${clipMiddle(c.sentence, 160)}", but ${c.callId} ${call?.name ?? ''} failed${call?.detail ? `: ${call.detail}` : ''}.`;
  });
  const shown = new Set(outcomes.slice(-maxLines));
  const render = () => {
    const left = outcomes.filter((o) => !shown.has(o));
    const errors = left.filter((o) => o.status === 'error').length;
    const lines = left.length
      ? [`- ${left.length} earlier calls not listed (${left.length - errors} ok, ${errors} error)`]
      : [];
    for (const o of outcomes) if (shown.has(o)) lines.push(lineOf(o));
    return [...lines, ...corrections].join('\n');
  };
  let text = render();
  // Leave out successes first, oldest first, then the oldest failures, until the lines fit.
  const order = [...outcomes.filter((o) => o.status !== 'error'), ...outcomes.filter((o) => o.status === 'error')];
  for (const o of order) {
    if (text.length <= room) break;
    if (!shown.delete(o)) continue;
    text = render();
  }
  return text;
}

/** The arguments of the last task-list call, verbatim, with its outcome. */
function latestTaskList(outcomes: readonly CallOutcome[]): string | undefined {
  const last = [...outcomes].reverse().find((o) => writesTaskList(o.name, o.arguments));
  if (last === undefined) return undefined;
  return `${last.id} ${last.name}${last.status === 'error' ? ' (failed)' : ''}:\n${last.arguments}`;
}

/** The last verification call's command and result lines, verbatim. */
function latestVerification(items: readonly ContextItem[], outcomes: readonly CallOutcome[]): string | undefined {
  const last = [...outcomes].reverse().find((o) => o.status !== 'missing' && isVerification(o));
  if (last === undefined) return undefined;
  const result = items.find((item) => item.message.role === 'tool' && item.message.tool_call_id === last.id);
  const text = result === undefined ? '' : plainText(result.message.content);
  return `${last.id} ${last.name} ${clipMiddle(last.arguments.replace(/\s+/g, ' '), 160)} — ${last.status}\n${verdictLines(text)}`;
}

function isVerification(call: CallOutcome): boolean {
  if (VERIFY_TOOL.test(call.name) && !TASK_LIST_TOOL.test(call.name)) return true;
  return VERIFY_COMMAND.test(call.arguments);
}

/** Result lines that state a verdict (counts, PASS/FAIL, error codes); else the last lines. */
function verdictLines(result: string): string {
  const lines = result
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim().length > 0);
  const verdict = lines.filter((l) =>
    /\b\d+ (?:passed|failed|passing|failing|pending|skipped|errors?|warnings?|tests?)\b|\b(?:PASS|FAIL|OK|FAILED)\b|error [A-Z]+\d+|^# (?:pass|fail|tests)\b|Tests?:|Found \d+ errors?/i.test(
      l,
    ),
  );
  const chosen = (verdict.length > 0 ? verdict : lines).slice(-6);
  return chosen.map((l) => clipMiddle(l, 200)).join('\n');
}

/** The body of `heading` in the newest earlier summary that has it. */
function carriedSection(earlierSummaries: readonly string[], heading: string): string | undefined {
  for (let i = earlierSummaries.length - 1; i >= 0; i--) {
    const body = sectionBody(earlierSummaries[i] ?? '', heading);
    if (body !== undefined && body.trim().length > 0) return body.trim();
  }
  return undefined;
}

function sectionBody(text: string, heading: string): string | undefined {
  const start = text.indexOf(`${heading}\n`);
  if (start < 0) return undefined;
  const from = start + heading.length + 1;
  const next = text.slice(from).search(/^## /m);
  return next < 0 ? text.slice(from) : text.slice(from, from + next);
}

/** Removes the sections named by `headings` (heading line through the line before the next `## `). */
function removeSections(text: string, headings: readonly string[]): string {
  let out = text;
  for (const heading of headings) {
    for (;;) {
      const start = out.indexOf(heading);
      if (start < 0 || (start > 0 && out[start - 1] !== '\n')) break;
      const from = start + heading.length;
      const next = out.slice(from).search(/^## /m);
      out = next < 0 ? out.slice(0, start) : out.slice(0, start) + out.slice(from + next);
    }
  }
  return out.trimEnd();
}

function firstMeaningfulLine(result: string, failed: boolean): string {
  const lines = result
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  const errorLine = lines.find((l) => ERROR_RESULT.test(l) && !CLEAN_RESULT.test(l));
  const line =
    failed && errorLine !== undefined ? errorLine : (lines.find((l) => CLEAN_RESULT.test(l)) ?? lines[0] ?? '');
  return clipMiddle(line, 160, INLINE_CLIP);
}

function normalise(s: string): string {
  return s
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[^\p{L}\p{N}']+/gu, ' ')
    .trim();
}
