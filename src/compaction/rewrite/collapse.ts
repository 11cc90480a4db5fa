/**
 * Collapse tier: older tool results become one-line records (tool, key arguments, size, ok/error)
 * while the tool message itself, and so the call/result pairing, stays in place. No model call.
 */
import type { ChatMessage, ContextItem } from '../types';
import { errorLines, keyArguments, looksLikeError, toolCallsOf } from '../text';
import { textWithPlaceholders } from '../content-text';
import { typedRequestOf } from '../summary/requests';
import { shortenMiddle } from '../summary/requests-section';
import { callOutcome } from '../summary/ledger/actions';
import { printedText } from '../summary/ledger/run-outcome';
import { recordedToolOutcome } from '../tool-outcomes';
import { collapsedOutputPointer } from '../summary/recall-pointer';

/**
 * Longest typed answer, in characters, a collapsed record carries whole (see {@link collapseItem});
 * a longer one is shortened in the middle with the requests' marker, so a record stays about the
 * size the planner counts for it (the whole answer stays in the checkpoint, restorable).
 */
export const MAX_COLLAPSED_ANSWER_CHARS = 300;

/**
 * The call each tool result answers, by item index (undefined for other items and for results that
 * answer no call of their step). Calls are looked up in the assistant message that opens the
 * result's run only: ids may repeat across steps (servers that number calls per reply).
 */
export function callIndex(items: readonly ContextItem[]): Map<number, { name: string; arguments: string }> {
  const map = new Map<number, { name: string; arguments: string }>();
  let step = new Map<string, { name: string; arguments: string }>();
  items.forEach((it, i) => {
    const m = it.message;
    if (m.role === 'tool') {
      const call = step.get((m as { tool_call_id?: string }).tool_call_id ?? '');
      if (call) map.set(i, call);
      return;
    }
    step = new Map();
    for (const c of toolCallsOf(m)) if (!step.has(c.id)) step.set(c.id, c);
  });
  return map;
}

/**
 * The tool call that the tool message at `index` answers, as {@link callIndex} finds it (the calls
 * of the nearest message before its run of tool messages; the first call with its id), reading only
 * that step: for a few indexes of a long context. Undefined when it answers none or is not a tool message.
 */
export function callOf(items: readonly ContextItem[], index: number): { name: string; arguments: string } | undefined {
  const m = items[index]?.message;
  if (m?.role !== 'tool') return undefined;
  let j = index - 1;
  while (j >= 0 && items[j].message.role === 'tool') j--;
  if (j < 0) return undefined;
  const id = (m as { tool_call_id?: string }).tool_call_id ?? '';
  return toolCallsOf(items[j].message).find((c) => c.id === id);
}

/** A last line that reports a run's verdict (test counts, build or lint results). */
const VERDICT =
  /\b\d+ (passed|failed|tests?|passing|failing|errors?|warnings?)\b|\b(all tests passed|build succeeded|compiled successfully|no errors)\b/i;

/** Longest last line a record quotes, in characters (a verdict line is short; a longer one is cut at a word). */
const VERDICT_CHARS = 160;

/**
 * The one-line record that stands for a tool result: tool, key arguments, outcome, size in
 * characters and lines, the first error line of a failure, and a run's verdict line. The outcome
 * follows the summary ledger's rules (`summary/ledger/run-outcome.ts`): the recording's success flag,
 * then a stated exit status, then the wording, never the words of a file a read showed. Sizes, lines
 * and quotes are of the text the tool printed (Codex wraps it in `{"output": …, "metadata": …}`).
 * `pointer` ends it: where the full output can be read (`collapsedOutputPointer`; default: the
 * checkpoint history of a session that keeps it).
 */
export function collapsedRecord(
  result: ChatMessage,
  call: { name: string; arguments: string } | undefined,
  pointer = collapsedOutputPointer(undefined, 0),
): string {
  const raw = textWithPlaceholders(result.content);
  const text = printedText(raw);
  const recorded = recordedToolOutcome(result);
  const outcome = call ? callOutcome(call.name, call.arguments, raw, recorded) : undefined;
  const failed = outcome ? !outcome.ok : recorded !== undefined ? !recorded : looksLikeError(text);
  const name = call?.name ?? 'tool';
  const args = call ? keyArguments(call.arguments) : '';
  const err = failed && !outcome?.denied ? errorLines(text, 1)[0] : undefined;
  const lines = text.length === 0 ? 0 : text.split('\n').length;
  // A test or build run's verdict is its last line ("42 passed, 0 failed"): it outlives the output.
  const last = text.trimEnd().split('\n').at(-1)?.trim() ?? '';
  const verdict = !failed && VERDICT.test(last) ? cutAtWord(last, VERDICT_CHARS) : undefined;
  const state = outcome?.denied
    ? 'denied by the user'
    : failed
      ? 'error'
      : outcome?.answer
        ? `ok (${outcome.answer})`
        : 'ok';
  return (
    `[tool result collapsed] ${name}${args ? ` ${args}` : ''} → ${state}, ${text.length} characters, ${lines} ${lines === 1 ? 'line' : 'lines'}` +
    (err ? `; ${err}` : '') +
    (verdict ? `; last line: ${verdict}` : '') +
    `. ${pointer}`
  );
}

/** `text` cut to at most `max` characters at the last white space, marked "…"; whole when it fits. */
function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const space = text.lastIndexOf(' ', max - 1);
  return `${text.slice(0, space > max / 2 ? space : max - 1).trimEnd()}…`;
}

/**
 * The collapsed item for tool result `item`. Keeps `tool_call_id` so pairing stays valid. A result
 * that carries what the user typed (Cline's answers to the agent's questions and feedback on a
 * result) keeps those words verbatim after the record, in an `<answer>` block, so later summaries
 * still find them as typed requests (`requests.ts`); a long answer is shortened in the middle with
 * a marker ({@link MAX_COLLAPSED_ANSWER_CHARS}). `pointer` ends the record (see {@link collapsedRecord}).
 */
export function collapseItem(
  item: ContextItem,
  call: { name: string; arguments: string } | undefined,
  checkpointId: string,
  pointer?: string,
): ContextItem {
  return {
    id: `${item.id}~c`,
    kind: 'collapsed',
    message: collapsedMessage(item, call, pointer),
    covers: [...item.covers],
    checkpointId,
  };
}

/**
 * The collapsed message for `item`, the same object for the same result and call: a compaction
 * that collapses the same result again (a span that grew, a preview, a summary prepared ahead)
 * then finds its token count in the meter's per-message cache instead of counting the record again.
 */
function collapsedMessage(
  item: ContextItem,
  call: { name: string; arguments: string } | undefined,
  pointer: string | undefined,
): ChatMessage {
  const hit = recordCache.get(item.message);
  if (hit && hit.name === call?.name && hit.arguments === call?.arguments && hit.pointer === pointer)
    return hit.message;
  const m = item.message as ChatMessage & { tool_call_id: string };
  const answer = typedRequestOf(item);
  const typed = answer === undefined ? undefined : shortenMiddle(answer, MAX_COLLAPSED_ANSWER_CHARS);
  const record = collapsedRecord(item.message, call, pointer);
  const message: ChatMessage = {
    role: 'tool',
    tool_call_id: m.tool_call_id,
    content: typed ? `${record}\nThe user's words in this result, verbatim:\n<answer>\n${typed}\n</answer>` : record,
  };
  recordCache.set(item.message, { name: call?.name, arguments: call?.arguments, pointer, message });
  return message;
}
const recordCache = new WeakMap<
  object,
  { name: string | undefined; arguments: string | undefined; pointer: string | undefined; message: ChatMessage }
>();

/** Arguments that name what a call worked on, most telling first (paths, then commands, then searches). */
const MAIN_ARGUMENTS = [
  'file_path',
  'path',
  'filePath',
  'filename',
  'notebook_path',
  'command',
  'cmd',
  'script',
  'pattern',
  'query',
  'url',
];

/** Longest main argument quoted in a collapse description, in characters. */
const MAIN_ARGUMENT_CHARS = 80;

/**
 * A call as a reader names it: the tool and its main argument (`Read src/x.ts`, `Bash npm test`), the
 * argument from {@link MAIN_ARGUMENTS} or else its first string value, clipped to
 * {@link MAIN_ARGUMENT_CHARS} characters; the tool alone when the arguments are not an object, and
 * `a tool result` when no call is known.
 */
export function callLabel(call: { name: string; arguments: string } | undefined): string {
  if (!call) return 'a tool result';
  let args: unknown;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    return call.name;
  }
  if (!args || typeof args !== 'object') return call.name;
  const a = args as Record<string, unknown>;
  const pick = (v: unknown): string | undefined =>
    typeof v === 'string' && v.trim()
      ? v
      : Array.isArray(v) && v.every((x) => typeof x === 'string')
        ? v.slice(v.length >= 3 && /sh$/.test(v[0]) ? 2 : 0).join(' ')
        : undefined;
  const main =
    MAIN_ARGUMENTS.map((k) => pick(a[k])).find((v) => v !== undefined) ?? Object.values(a).map(pick).find(Boolean);
  if (!main) return call.name;
  const flat = main.replace(/\s+/g, ' ').trim();
  return `${call.name} ${flat.length > MAIN_ARGUMENT_CHARS ? `${flat.slice(0, MAIN_ARGUMENT_CHARS - 1)}…` : flat}`;
}

/** Calls named in a collapse description, at most; the rest are counted. */
const NAMED_CALLS = 12;

/**
 * What a collapse did, in a sentence that names what it collapsed: `lead` (e.g. "Collapsed 5 older
 * tool results to one-line records"), then each result's call as {@link callLabel} names it (repeats
 * counted, e.g. `Read src/x.ts (×2)`), at most {@link NAMED_CALLS}, the rest counted.
 */
export function describeCollapse(
  lead: string,
  calls: ReadonlyArray<{ name: string; arguments: string } | undefined>,
): string {
  const counts = new Map<string, number>();
  for (const c of calls) {
    const label = callLabel(c);
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  const named = [...counts].slice(0, NAMED_CALLS).map(([l, n]) => (n > 1 ? `${l} (×${n})` : l));
  const rest = [...counts].slice(NAMED_CALLS).reduce((sum, [, n]) => sum + n, 0);
  return `${lead}: ${named.join('; ')}${rest ? `; and ${rest} more` : ''}.`;
}
