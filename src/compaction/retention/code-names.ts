/**
 * Names of the code the agent worked with (functions, classes, services it called, imported,
 * constructed or declared), from what the agent wrote: its messages and its tool-call arguments (code
 * it wrote, commands, search patterns). Tool output is not read: a file listing names what exists,
 * not what the agent used. Rules written for measurement; no code shared with the summary writer. Pure.
 */
import { textWithPlaceholders } from '../content-text';
import { agentCalls, argStrings, type AgentCall, type RetentionEntry } from './calls';
import { MessageMemo, messageMemosKept } from '../message-memo';
import type { ChatMessage } from '../types';
import { isPrefix } from '../prefix';

const KEYWORDS = new Set(
  'abstract await async break case catch class const constructor continue debugger default delete else enum export extends false finally for from function if implements import in instanceof interface let new null package private protected public return static super switch this throw true try type typeof undefined var void while with yield def elif except lambda nonlocal pass raise self None True False print len range list dict str int float bool tuple set open super isinstance require console module exports process Promise Object Array String Number Boolean Error Date Math JSON Map Set RegExp Symbol setTimeout setInterval clearTimeout parseInt parseFloat then catch finally resolve reject push pop map filter reduce forEach join split slice splice includes indexOf length keys values entries assign stringify parse toString log warn error info debug test describe expect it beforeEach afterEach'.split(
    ' ',
  ),
);

/** A name distinctive enough to stand for code: camelCase, PascalCase (5+ characters), snake_case or SCREAMING_CASE. */
function distinctive(n: string): boolean {
  // Ids and hashes (`toolu_01Sue…`, `a1b2c3d4`) are not code names.
  if (n.length < 4 || KEYWORDS.has(n) || /\d{3,}/.test(n) || PLACEHOLDER.test(n)) return false;
  return (
    /[a-z][A-Z]/.test(n) || /[A-Za-z0-9]_[A-Za-z0-9]/.test(n) || /^_[a-z]\w{3,}/.test(n) || /^[A-Z][a-z]{4,}$/.test(n)
  );
}

/** Placeholders stand for a value, they name no code (`YOUR_API_KEY_HERE`, `AIza_REDACTED_KEY`). */
const PLACEHOLDER = /REDACTED|PLACEHOLDER|^YOUR_|_HERE$|^(?:EXAMPLE|SAMPLE|DUMMY)_|^x{3,}/i;

const FORMS: RegExp[] = [
  // called: name(  or obj.name(  — the parenthesis right after the name: prose puts a space before
  // an aside ("the Certificate Authority (CA)", "Secrets (3)"), code rarely does
  /(?:^|[^\w$.])(?:[A-Za-z_$][\w$]*\.)*([A-Za-z_$][\w$]*)\(/g,
  // constructed, extended, implemented, typed
  /\b(?:new|extends|implements|instanceof)\s+([A-Z][\w$]*)/g,
  // declared
  /\b(?:function\*?|def|class|interface|enum|struct|trait|fn|func|type)\s+([A-Za-z_$][\w$]*)/g,
  /\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=/g,
  // imported (named imports are read below)
  /\bimport\s+([A-Za-z_$][\w$]*)\s+from\b/g,
  /\bfrom\s+[\w.]+\s+import\s+([\w, ]+)/g,
  // member of a service or module: Service.method / module.function
  /\b([A-Z][\w$]*)\.[a-z_$][\w$]*/g,
];

/** Names in `text` in one of the reference forms ({@link FORMS}) or inside backticks, distinctive ones only. */
export function namesInText(text: string, into: Set<string> = new Set()): Set<string> {
  for (const re of FORMS) {
    for (const m of text.matchAll(re)) for (const n of m[1].split(/[\s,]+/)) if (distinctive(n)) into.add(n);
  }
  for (const m of text.matchAll(/\bimport\s*(?:type\s*)?\{([^}]*)\}/g)) {
    for (const part of m[1].split(',')) {
      const n = part
        .trim()
        .split(/\s+as\s+/)[0]
        .replace(/^type\s+/, '');
      if (distinctive(n)) into.add(n);
    }
  }
  for (const m of text.matchAll(/`([A-Za-z_$][\w$.]*)(?:\(\))?`/g)) {
    for (const n of m[1].split('.')) if (distinctive(n)) into.add(n);
  }
  return into;
}

/**
 * Code names referenced in messages `from` ≤ index < `to`: from the assistant's text and from every
 * string argument of its tool calls (see {@link namesInText}), in first-seen order. `calls`:
 * `agentCalls(entries)` when the caller has read them already.
 */
export function codeNames(
  entries: readonly RetentionEntry[],
  from = 0,
  to = entries.length,
  calls: readonly AgentCall[] = agentCalls(entries),
): string[] {
  if (from <= 0 && to >= entries.length && entries.length >= KEEP_FROM) return namesOfAll(entries, calls);
  const names = new Set<string>();
  readMessages(entries, Math.max(0, from), Math.min(to, entries.length), names);
  readCalls(calls, 0, calls.length, from, to, names);
  return [...names];
}

/** Adds the names of the assistant messages of `entries[start..end)` to `names`, in order. */
function readMessages(entries: readonly RetentionEntry[], start: number, end: number, names: Set<string>): void {
  for (let i = start; i < end; i++) {
    const m = entries[i].message;
    if (m.role !== 'assistant') continue;
    let known = namesOfText.get(m);
    if (!known) namesOfText.set(m, (known = [...namesInText(textWithPlaceholders(m.content))]));
    for (const n of known) names.add(n);
  }
}

/** Adds the names of the arguments of `calls[start..end)` in messages `from` ≤ index < `to` to `names`, in order. */
function readCalls(
  calls: readonly AgentCall[],
  start: number,
  end: number,
  from: number,
  to: number,
  names: Set<string>,
): void {
  for (let i = start; i < end; i++) {
    const c = calls[i];
    // A call written in the assistant's text (SWE-agent actions, Aider edit blocks: no call id) was
    // read with that text above: its arguments are parts of it.
    if (c.index < from || c.index >= to || c.callId === undefined) continue;
    let known = namesOfArgs.get(c.args);
    if (!known) {
      const own = new Set<string>();
      for (const s of argStrings(c.args)) namesInText(s, own);
      namesOfArgs.set(c.args, (known = [...own]));
    }
    for (const n of known) names.add(n);
  }
}

/**
 * {@link codeNames} of a whole span, continuing the reading of the span read last: its messages
 * (the same objects at the start) and its calls with a result (the same objects, see `agentCalls`)
 * are not read again; the calls at the end still without a result are read apart each time (theirs
 * may come next time, as a new object). The names come in the order of a reading of all at once:
 * the messages' first, then the calls' not among them.
 */
function namesOfAll(entries: readonly RetentionEntry[], calls: readonly AgentCall[]): string[] {
  let k = keptNames;
  if (k && !isPrefix(k.messages, entries, (e) => e.message)) k = undefined;
  k ??= { messages: [], text: new Set(), calls: [], args: new Set() };
  if (!isPrefix(k.calls, calls, (c) => c)) {
    k.calls = [];
    k.args = new Set();
  }
  readMessages(entries, k.messages.length, entries.length, k.text);
  for (let i = k.messages.length; i < entries.length; i++) k.messages.push(entries[i].message);
  let settled = calls.length;
  while (settled > k.calls.length && calls[settled - 1].result === undefined) settled--;
  readCalls(calls, k.calls.length, settled, 0, Infinity, k.args);
  for (let i = k.calls.length; i < settled; i++) k.calls.push(calls[i]);
  keptNames = messageMemosKept() ? k : undefined;
  const waiting = new Set<string>();
  readCalls(calls, settled, calls.length, 0, Infinity, waiting);
  const out = [...k.text];
  for (const n of k.args) if (!k.text.has(n)) out.push(n);
  for (const n of waiting) if (!k.text.has(n) && !k.args.has(n)) out.push(n);
  return out;
}

/** Spans shorter than this are read whole (cheap), so they do not push a long span's reading out. */
const KEEP_FROM = 256;

/**
 * The span {@link namesOfAll} read last: its messages and their names, its calls with a result and
 * the names of their arguments, each in first-seen order.
 */
let keptNames: { messages: ChatMessage[]; text: Set<string>; calls: AgentCall[]; args: Set<string> } | undefined;

/**
 * The names of each assistant message's text and of each call's arguments object (shared between
 * readings of a span, see calls.ts), in first-seen order: each is read once in its life. Adding
 * them in order to one set gives the names of the whole span in first-seen order.
 */
const namesOfText = new MessageMemo<object, readonly string[]>();
const namesOfArgs = new MessageMemo<object, readonly string[]>();
