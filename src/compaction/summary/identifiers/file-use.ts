/**
 * Whether the work used a bare dotted name as a file. `Next.js`, `Node.js`, `Vue.js` are products as
 * often as files: such a name is a file only where a tool call opened, read, wrote or ran it, or a path
 * in the span ends with it; said in a request, shown in output or written inside a file's content, it
 * names no file.
 *
 * Pure: no I/O.
 */
import type { ChatMessage, ContextItem } from '../../types';
import { toolCallsOf } from '../../text';
import { parseJsonObject } from '../../../format/json';
import { MessageMemo, messageMemosKept } from '../../message-memo';

/** The shape of {@link productOrFile}, as a pattern to build others from. */
const PRODUCT_OR_FILE = String.raw`(?:[A-Z][a-z]+|[A-Z]\d)\d*\.[A-Za-z]{1,10}`;

/**
 * A bare dotted name whose stem is one capitalised word (`Next.js`, `Node.js`, `D3.js`, also
 * `Main.java`): a product's name as often as a file's. Names with a folder, a case hump, a dash or an
 * underscore (`src/App.tsx`, `SessionProvider.tsx`, `next-auth.d.ts`) are files by their shape.
 */
export function productOrFile(id: string): boolean {
  return PRODUCT_OR_FILE_WHOLE.test(id);
}
const PRODUCT_OR_FILE_WHOLE = new RegExp(`^${PRODUCT_OR_FILE}$`);

/**
 * Every {@link productOrFile} name a one-line command names as a word: not inside a longer name, path
 * or option (`(?<![\w.-])`), not followed by more of a name (`Next.jsx`, `Next.js-x`, `Next.js.map`).
 * A name of that shape holds only letters, digits and one dot, so no match starts inside another
 * and a global scan finds each place the word test of one name would.
 */
const NAMED_IN_COMMAND = new RegExp(`(?<![\\w.-])${PRODUCT_OR_FILE}(?![\\w-]|\\.\\w)`, 'g');

/** Argument keys whose value is a command line (a file it names is one the work ran or read). */
const COMMAND_KEYS = new Set(['command', 'cmd', 'script']);

/**
 * Answers {@link FileUse.has} for the names of one span from the {@link productOrFile} names its tool
 * calls use as files (see {@link namesUsedBy}), gathered on the first question.
 */
export class FileUse {
  private used: ReadonlySet<string> | undefined;
  constructor(private readonly items: readonly ContextItem[]) {}

  /**
   * Whether `name` (a {@link productOrFile} name) was used as a file: a path of `paths` (paths read
   * so far, by file name) ends with it, or a tool call's argument is the name or a path ending with
   * it, or a one-line command names it as a word. The text of content written (a multi-line value)
   * does not count.
   */
  has(name: string, paths: ReadonlyMap<string, readonly string[]>): boolean {
    if (paths.get(name)?.some((p) => p.length > name.length)) return true;
    this.used ??= namesUsedIn(this.items);
    return this.used.has(name);
  }
}

/**
 * The {@link productOrFile} names the tool calls of `message` use as files: a top-level argument
 * (or a string of an array argument) that is the name or a path ending with it after `/` or `\`, or a
 * one-line command (`command`, `cmd`, `script`) that names it as a word. Only names the raw JSON
 * arguments hold as written count (a name given through `\u` escapes is not read). Kept per message.
 */
export function namesUsedBy(message: ChatMessage): ReadonlySet<string> {
  let names = namesOf.get(message);
  if (names === undefined) namesOf.set(message, (names = readNamesUsed(message)));
  return names;
}
const namesOf = new MessageMemo<object, ReadonlySet<string>>();
const NONE: ReadonlySet<string> = new Set();

function readNamesUsed(message: ChatMessage): ReadonlySet<string> {
  let out: Set<string> | undefined;
  for (const c of toolCallsOf(message)) {
    // No name of the shape in the text: nothing to parse.
    if (!/[A-Z]/.test(c.arguments) || !c.arguments.includes('.')) continue;
    const parsed = parseJsonObject(c.arguments);
    if (parsed === undefined) continue;
    const take = (name: string) => {
      if (productOrFile(name) && c.arguments.includes(name)) (out ??= new Set()).add(name);
    };
    for (const [key, value] of Object.entries(parsed)) {
      const values = Array.isArray(value) ? value : [value];
      for (const v of values) {
        if (typeof v !== 'string') continue;
        take(v);
        const cut = Math.max(v.lastIndexOf('/'), v.lastIndexOf('\\'));
        if (cut >= 0) take(v.slice(cut + 1));
        if (COMMAND_KEYS.has(key) && !v.includes('\n')) for (const m of v.matchAll(NAMED_IN_COMMAND)) take(m[0]);
      }
    }
  }
  return out ?? NONE;
}

/**
 * The names the tool calls of `items` use as files (summaries aside), the union of
 * {@link namesUsedBy}. A union grows message by message and does not depend on the order, so the
 * union of the span read last is kept with the items it covered and continued over the new items of
 * a span that starts with those same items (the next compaction's grown span): it equals the union
 * of a reading of the whole span. Another span is read from its start. Nothing is kept while the
 * per-message memos are off.
 */
function namesUsedIn(items: readonly ContextItem[]): ReadonlySet<string> {
  let k = keptNames;
  if (!messageMemosKept()) k = keptNames = undefined;
  if (k && (k.count > items.length || !sameItems(k.items, items, k.count))) k = undefined;
  // A copy: a set handed out for the span read last stays as it was.
  const names = new Set<string>(k?.names);
  for (let i = k ? k.count : 0; i < items.length; i++) {
    const it = items[i];
    if (it.kind === 'summary') continue;
    for (const name of namesUsedBy(it.message)) names.add(name);
  }
  if (messageMemosKept() && items.length >= KEEP_FROM) keptNames = { items, count: items.length, names };
  return names;
}

/** Spans shorter than this are read whole (cheap), so they do not push a long span's reading out. */
const KEEP_FROM = 256;

/** The span {@link namesUsedIn} read last, how many of its items the union covers, and the union. */
let keptNames: { items: readonly ContextItem[]; count: number; names: Set<string> } | undefined;

/** Whether `a` and `b` hold the same items (the same messages, as the same kind) in their first `n` places. */
function sameItems(a: readonly ContextItem[], b: readonly ContextItem[], n: number): boolean {
  if (a === b) return true;
  for (let i = 0; i < n; i++) if (a[i].message !== b[i].message || a[i].kind !== b[i].kind) return false;
  return true;
}
