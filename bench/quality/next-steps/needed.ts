/**
 * Bench-only gold sets of a compaction point, read from what the agent did after it:
 * - needed tokens: paths, long numbers and identifiers of 8+ characters in the arguments of the
 *   agent's next 40 tool calls that also appear in the replaced span and were not fetched again
 *   (shown by a tool result or a user message after the point) before their use;
 * - the latest request (the last typed message before the point);
 * - open items of the agent's todo/plan tool (Claude Code TodoWrite, Codex update_plan, Cline
 *   task_progress checklists, OpenHands task_tracker) as last written before the point.
 */
import { agentCalls, argStrings, type AgentCall, type RetentionEntry } from '../../../src/compaction/retention';
import { textWithPlaceholders } from '../../../src/compaction/content-text';

/** How many tool calls after the point are read for needed tokens. */
export const NEXT_CALLS = 40;

/** One needed token and the call that used it. */
export interface NeededToken {
  token: string;
  kind: 'path' | 'number' | 'identifier';
  /** Message index of the first call after the point that used it. */
  usedAt: number;
  /** Name of that call's tool. */
  tool: string;
}

/** An address with a scheme (`https://…`, `ws://…`): not a path; masked before paths are looked for. */
const URL = /\b[A-Za-z][\w+.-]*:\/\/[^\s<>"'`)\]}]+/g;
/**
 * A path: rooted (`/`, `~/`, `./`, `../`, `@/`) with two or more segments, at a word boundary (so
 * `USDC/USDT/USDe` in prose is not one); or a file name with a folder and an extension (`src/x.ts`,
 * `C:\\app\\x.ts`).
 */
const PATH =
  /(?<![\w@.~/-])(?:~|\.{1,2}|@)?(?:\/[\w@.+-]+){2,}\/?|(?<![\w@.~/-])(?:[A-Za-z]:\\|[\w@.-]+[\\/])(?:[\w@. +-]+[\\/])*[\w@.+-]+\.\w{1,8}\b/g;
const NUMBER = /(?<![\w.])\d{6,}(?![\w.])/g;
const IDENT = /(?<![\w$/.-])[A-Za-z_$][\w$]{7,}(?![\w$])/g;

/**
 * Tokens of one argument string: paths (two or more segments, or a file name with a folder and an
 * extension), numbers of 6+ digits, identifiers of 8+ characters that are not plain words (a plain
 * word is all lower case, capitalised, or all upper case without a digit or an underscore).
 */
export function argTokens(text: string): Array<{ token: string; kind: NeededToken['kind'] }> {
  const out: Array<{ token: string; kind: NeededToken['kind'] }> = [];
  const seen = new Set<string>();
  const add = (token: string, kind: NeededToken['kind']) => {
    if (!seen.has(token)) {
      seen.add(token);
      out.push({ token, kind });
    }
  };
  text = text.replace(URL, ' ');
  for (const m of text.matchAll(PATH)) {
    const p = m[0].replace(/[.,:;)]+$/, '');
    if (p.length >= 6 && !/^\/\/|:\/\//.test(p) && !/^\/(?:dev|proc|tmp)\/?$/.test(p)) add(p, 'path');
  }
  const withoutPaths = text.replace(PATH, ' ');
  for (const m of withoutPaths.matchAll(NUMBER)) add(m[0], 'number');
  for (const m of withoutPaths.matchAll(IDENT)) {
    const t = m[0];
    // Plain words (lower case, capitalised or all upper case) are prose, not identifiers.
    if (/^[a-z]+$/.test(t) || /^[A-Z][a-z]+$/.test(t) || /^[A-Z]+$/.test(t)) continue;
    add(t, 'identifier');
  }
  return out;
}

/** Text of messages `from` ≤ index < `to` as the model read it: content and tool-call arguments. */
export function spanText(entries: readonly RetentionEntry[], from: number, to: number): string {
  const out: string[] = [];
  for (let i = from; i < to; i++) {
    const m = entries[i].message;
    out.push(textWithPlaceholders(m.content));
    for (const c of (m as { tool_calls?: Array<{ function?: { arguments?: string } }> }).tool_calls ?? [])
      out.push(c.function?.arguments ?? '');
  }
  return out.join('\n');
}

/**
 * Whether the span holds `token` as a whole: a path anywhere (a longer path may hold it), an
 * identifier or number not glued to a letter, digit, `_` or `$` on either side (`bus_data` is not
 * found in `bus_data_imports`).
 */
function inSpan(token: string, kind: NeededToken['kind'], span: string): boolean {
  if (kind === 'path') return span.includes(token);
  for (let at = span.indexOf(token); at >= 0; at = span.indexOf(token, at + 1)) {
    const before = at > 0 ? span[at - 1] : ' ';
    const after = span[at + token.length] ?? ' ';
    if (!/[\w$]/.test(before) && !/[\w$]/.test(after)) return true;
  }
  return false;
}

function unescapedArgs(call: AgentCall): string[] {
  return argStrings(call.args);
}

/**
 * Needed tokens at `point` for the span `spanIndexes` (message indexes the compaction replaced).
 * `lead` is the text never replaced (system prompt, tool schemas): a token found there is not needed
 * from the span.
 */
export function neededTokens(
  entries: readonly RetentionEntry[],
  point: number,
  spanIndexes: readonly number[],
  lead = '',
): NeededToken[] {
  const calls = agentCalls(entries)
    .filter((c) => c.index >= point)
    .slice(0, NEXT_CALLS);
  if (calls.length === 0) return [];
  const spanParts: string[] = [];
  for (const i of spanIndexes) spanParts.push(spanText(entries, i, i + 1));
  const span = spanParts.join('\n');
  const spanJsonless = span.replace(/\\\\/g, '\\').replace(/\\"/g, '"');
  const out: NeededToken[] = [];
  const seen = new Set<string>();
  for (const call of calls) {
    // What the agent was shown after the point and before this call: tool results and user messages.
    const shown: string[] = [];
    for (let i = point; i < call.index; i++) {
      const m = entries[i].message;
      if (m.role === 'tool' || m.role === 'user') shown.push(textWithPlaceholders(m.content));
    }
    const fetched = shown.join('\n');
    for (const s of unescapedArgs(call)) {
      for (const { token, kind } of argTokens(s)) {
        if (seen.has(token)) continue;
        if (!inSpan(token, kind, span) && !inSpan(token, kind, spanJsonless)) continue;
        if (lead.includes(token)) continue;
        seen.add(token);
        if (fetched.includes(token)) continue;
        out.push({ token, kind, usedAt: call.index, tool: call.name });
      }
    }
  }
  return out;
}

/** Status words that mean an item is done. */
const DONE = /^(?:completed|complete|done|finished|cancelled|canceled)$/i;

/**
 * Open items of the last todo/plan the agent wrote before `point`: Claude Code `TodoWrite`
 * (`todos[].content`, `status`), Codex `update_plan` (`plan[].step`, `status`), OpenHands
 * `task_tracker` (`task_list[].title`, `status`), Cline's `task_progress` checklist (`- [ ] item`).
 * Empty when the agent has no such tool or wrote no plan.
 */
export function openTodoItems(entries: readonly RetentionEntry[], point: number): string[] {
  let last: string[] | undefined;
  for (const c of agentCalls(entries)) {
    if (c.index >= point) break;
    const a = c.args;
    const list: unknown = a.todos ?? a.plan ?? a.task_list;
    if (Array.isArray(list) && /todo|plan|task/i.test(c.name)) {
      const text = (v: unknown) => (typeof v === 'string' ? v : '');
      last = (list as Array<Record<string, unknown> | null>)
        .filter((x) => !DONE.test(text(x?.status)))
        .map((x) => (text(x?.content) || text(x?.step) || text(x?.title)).trim())
        .filter(Boolean);
    } else if (typeof a.task_progress === 'string') {
      last = [...a.task_progress.matchAll(/^\s*-\s*\[ \]\s*(.+)$/gm)].map((m) => m[1].trim());
    }
  }
  return last ?? [];
}
