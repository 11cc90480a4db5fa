/**
 * Whether the work used a bare dotted name as a file. `Next.js`, `Node.js`, `Vue.js` are products as
 * often as files: such a name is a file only where a tool call opened, read, wrote or ran it, or a path
 * in the span ends with it; said in a request, shown in output or written inside a file's content, it
 * names no file.
 *
 * Pure: no I/O.
 */
import type { ContextItem } from '../../types';
import { toolCallsOf } from '../../text';
import { parseJsonObject } from '../../../format/json';

/**
 * A bare dotted name whose stem is one capitalised word (`Next.js`, `Node.js`, `D3.js`, also
 * `Main.java`): a product's name as often as a file's. Names with a folder, a case hump, a dash or an
 * underscore (`src/App.tsx`, `SessionProvider.tsx`, `next-auth.d.ts`) are files by their shape.
 */
export function productOrFile(id: string): boolean {
  return /^(?:[A-Z][a-z]+|[A-Z]\d)\d*\.[A-Za-z]{1,10}$/.test(id);
}

/** Argument keys whose value is a command line (a file it names is one the work ran or read). */
const COMMAND_KEYS = new Set(['command', 'cmd', 'script']);

/**
 * Answers {@link FileUse.has} for the names of one span: each name's tool-call arguments are searched
 * once (a handful of names per span ask).
 */
export class FileUse {
  private readonly answers = new Map<string, boolean>();
  constructor(private readonly items: readonly ContextItem[]) {}

  /**
   * Whether `name` was used as a file: a path of `paths` (paths read so far, by file name) ends with
   * it, or a tool call's argument is the name or a path ending with it, or a one-line command names it
   * as a word. The text of content written (a multi-line value) does not count.
   */
  has(name: string, paths: ReadonlyMap<string, readonly string[]>): boolean {
    if (paths.get(name)?.some((p) => p.length > name.length)) return true;
    let used = this.answers.get(name);
    if (used === undefined) {
      used = this.items.some(
        (it) => it.kind !== 'summary' && toolCallsOf(it.message).some((c) => argumentsUse(c.arguments, name)),
      );
      this.answers.set(name, used);
    }
    return used;
  }
}

function argumentsUse(args: string, name: string): boolean {
  if (!args.includes(name)) return false;
  const parsed = parseJsonObject(args);
  if (parsed === undefined) return false;
  const word = new RegExp(`(?<![\\w.-])${name.replace(/\./g, '\\.')}(?![\\w-]|\\.\\w)`);
  return Object.entries(parsed).some(([key, value]) => {
    const values = Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [value];
    return values.some((v) => {
      if (typeof v !== 'string') return false;
      if (v === name || v.endsWith(`/${name}`) || v.endsWith(`\\${name}`)) return true;
      return COMMAND_KEYS.has(key) && !v.includes('\n') && word.test(v);
    });
  });
}
