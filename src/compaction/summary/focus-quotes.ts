/**
 * The extractive answer to a compaction's focus text ("focus on FW-005"): lines of the replaced span
 * that mention its words, verbatim, each with where it came from (the user, the agent, a tool's
 * output with its tool and arguments). A model summarizer gets the focus in its instruction instead.
 *
 * File text is quoted only while it is the file's (`file-currency.ts`): a line a read showed that a
 * later edit replaced, a later write left out or a later read showed again is not quoted as if it
 * still stood; an edit that replaced a line mentioning the focus is quoted with its new text.
 *
 * Pure: no I/O.
 */
import type { ContextItem } from '../types';
import { isToolOutputText, keyArguments } from '../text';
import { textWithPlaceholders } from '../content-text';
import { userTextAuthor, userWords } from '../harness-text';
import { isRecordedHarnessText } from '../tool-outcomes';
import { printedOutput } from '../retention/outcome';
import { clip } from './message-facts';
import { fileCurrency } from './file-currency';

/** Lines quoted for a focus, at most. */
export const MAX_FOCUS_LINES = 12;
/** Characters of one quoted line, at most. */
const FOCUS_LINE_CHARS = 240;

const FOCUS_STOPWORDS = new Set([
  'keep',
  'focus',
  'the',
  'that',
  'this',
  'with',
  'and',
  'about',
  'from',
  'into',
  'what',
  'when',
  'only',
  'also',
  'them',
  'their',
  'some',
  'more',
  'most',
  'please',
  'summary',
  'summarize',
]);

/** Content words of a focus text (4 letters or more, lower case, stop words removed). */
export function focusWords(focus: string): string[] {
  return [
    ...new Set(
      focus
        .toLowerCase()
        .split(/[^\p{L}\p{N}_.-]+/u)
        .filter((w) => w.length >= 4 && !FOCUS_STOPWORDS.has(w)),
    ),
  ];
}

/** Where a tool result came from, for quoting it: `output of bash \`npm test\``. */
function toolLabel(call: { name: string; arguments: string } | undefined): string {
  return call ? `output of ${call.name} ${keyArguments(call.arguments, 100)}` : 'tool output';
}

/**
 * At most {@link MAX_FOCUS_LINES} lines `- (source) text` of `items` (the replaced span) that
 * mention a word of `focus` ({@link focusWords}), in the span's order, each once, cut to 240
 * characters. `after`: the messages kept after the span, read only for later changes of a file the
 * span quotes. `calls`: the span's tool calls by id (name and JSON arguments), for labelling results.
 */
export function focusQuotes(
  focus: string,
  items: readonly ContextItem[],
  after: readonly ContextItem[],
  calls: ReadonlyMap<string, { name: string; arguments: string }>,
): string[] {
  const words = focusWords(focus);
  const focused: string[] = [];
  if (words.length === 0) return focused;
  const mentions = (t: string) => {
    const lower = t.toLowerCase();
    return words.some((w) => lower.includes(w));
  };
  const add = (from: string, t: string) => {
    const quoted = `- (${from}) ${clip(t, FOCUS_LINE_CHARS)}`;
    if (!focused.includes(quoted)) focused.push(quoted);
  };
  const files = fileCurrency(items, after);
  for (let i = 0; i < items.length && focused.length < MAX_FOCUS_LINES; i++) {
    const it = items[i];
    if (it.kind === 'summary') continue;
    const role = it.message.role;
    const full = textWithPlaceholders(it.message.content);
    // An edit that changed a line about the focus says what the line reads now.
    if (role === 'assistant')
      for (const edit of files.newText(i, mentions))
        if (edit.replaced.some(mentions))
          for (const l of edit.lines) if (l.length >= 6) add(`${edit.tool} of ${edit.path}, its new text`, l);
    const author = role === 'user' ? userTextAuthor(full, isRecordedHarnessText(it.message)) : undefined;
    const from =
      role === 'tool'
        ? toolLabel(calls.get((it.message as { tool_call_id?: string }).tool_call_id ?? ''))
        : role === 'user' && isToolOutputText(full)
          ? 'tool output'
          : author?.by === 'harness'
            ? author.label
            : role;
    // A user message's own lines are the user's; blocks a harness added to it are not quoted as theirs.
    // A tool's output is read as printed, out of the envelope a recording wraps it in (Codex's JSON).
    const body = role === 'user' && from === 'user' ? userWords(full) : role === 'tool' ? printedOutput(full) : full;
    for (const line of body.split('\n')) {
      const t = line.trim();
      if (t.length < 6 || focused.length >= MAX_FOCUS_LINES || !mentions(t)) continue;
      // File text that later work replaced is not the file's any more.
      if (role === 'tool' && files.superseded(i, t)) continue;
      add(from, t);
    }
  }
  return focused.slice(0, MAX_FOCUS_LINES);
}
