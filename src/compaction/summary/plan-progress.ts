/**
 * Which items of the agent's latest plan or to-do list were done after it was written: an item is
 * done when a later message of the agent's that names what the item names (a code name in backticks
 * or written as code: `_wrap_in_pandas_container`, `Mixin.set_output`, a file path) edits a file that
 * the span's ledger lists as changed (its last change did not fail), or when a later message creates
 * or edits the file the item names (`Create frontend/Dockerfile`). Items already marked done
 * (`[x]`, `[completed]`) stay as they are; a done item's "not done" status (`[pending]`,
 * `[in_progress]`) is replaced by `[done since]`. Pure: no I/O.
 */
import type { ContextItem } from '../types';
import { toolCallsOf } from '../text';
import { textWithPlaceholders } from '../content-text';
import { agentWords } from '../harness-text';

/** An item of a plan line (`1. …`, `- [ ] …`, `* …`), as `message-facts.ts` and `planItems` write them. */
const ITEM = /^\s*(?:\d+[.)]\s|[-*] \[[ xX]\]\s|[-*]\s)/;
/** An item marked done in the list itself. */
const MARKED_DONE = /^\s*(?:[-*] \[[xX]\]|\d+[.)]\s+\[(?:completed|done)\])/i;
/** Code names an item names: backticked spans, and words written as code (snake_case, camelCase, dotted). */
const CODE_NAME = /`([^`\n]{3,80})`|\b([A-Za-z_][\w]*(?:_[\w]+|[a-z][A-Z][\w]*|\.[A-Za-z_]\w+)+)\b/g;
/** Where an edit call names its file: JSON arguments' path keys, a text action's path parameter, a patch's file line. */
const EDIT_PATH =
  /"(?:path|file_path|filePath|file|target_file)"\s*:\s*"([^"]+)"|<parameter=path>([^<\n]+)<\/parameter>|\*\*\* (?:Add|Update) File: ([^\s\\"]+)/g;

/**
 * Files a plan item names: a token with a folder separator (`frontend/Dockerfile`, `src/app.ts`), a
 * file name with an extension (`nginx.conf`), or a build file's bare name (`Dockerfile`, `Makefile`).
 */
const ITEM_PATH =
  /(?<![\w./@-])((?:[\w.@-]+\/)+[\w.@-]*\w|[\w@-][\w.@-]*\.[A-Za-z]\w{0,7}|(?:Docker|Make|Proc|Jenkins|Gem|Pip)file)(?![\w/@-])/g;
/** A status a to-do tool wrote for an item not done yet (`[pending]`, `[in_progress]`, `- [ ]`). */
const OPEN_MARK = /\[(?:pending|in_progress|in progress|todo|not_started| )\]/i;

/** The files a plan item names ({@link ITEM_PATH}), separators as `/`. */
function pathsOf(item: string): string[] {
  return [...item.matchAll(ITEM_PATH)].map((m) => m[1].replace(/\\/g, '/')).filter((p) => !/^\d/.test(p));
}

/** Whether the file `path` (as a call gave it) is the file `named` (as a plan item names it, maybe relative). */
function isFile(path: string, named: string): boolean {
  const p = path.replace(/\\/g, '/');
  return p === named || p.endsWith(`/${named}`);
}

/** The code names of a plan item (each part of a dotted name of 4 characters or more too). */
function namesOf(item: string): string[] {
  const out = new Set<string>();
  for (const m of item.matchAll(CODE_NAME)) {
    const n = (m[1] ?? m[2]).trim().replace(/\(\)$/, '');
    if (n.length < 4) continue;
    out.add(n);
    for (const part of n.split(/[./]/)) if (part.length >= 4 && part !== n) out.add(part);
  }
  return [...out];
}

/** Whether `text` holds `name` as a whole word (`set_output` is not in `_set_output.py`). */
function namesWord(text: string, name: string): boolean {
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
    const before = text[at - 1] ?? ' ';
    const after = text[at + name.length] ?? ' ';
    if (!/\w/.test(before) && !/\w/.test(after)) return true;
  }
  return false;
}

/** The result of {@link planProgress}. */
export interface PlanProgress {
  /** The plan line with each item done since marked ` [done since]`. */
  text: string;
  /** Items of the plan, and those done (marked in the list or since). */
  items: number;
  done: number;
  /** Items done since the list was written (by the agent's later edits), of `done`. */
  since: number;
}

/**
 * Marks the items of `plan` (a plan line, items joined by ` | `) done in `later` (the messages after
 * the one that wrote it, in order): see the module comment. `changed` holds the paths of files the
 * ledger lists as edited or created (full paths as the calls gave them).
 */
export function planProgress(plan: string, later: readonly ContextItem[], changed: ReadonlySet<string>): PlanProgress {
  const parts = plan.split(' | ');
  // A line ending in a colon introduces the items after it ("3. Modify the code. We need to:"): no task of its own.
  // The first part may start with the tool that wrote the list ("(TodoWrite) 1. [completed] …").
  const bare = (p: string) => p.replace(/^\([^)]*\) /, '');
  const isItem = (p: string) => ITEM.test(bare(p)) && !/:\s*$/.test(p);
  const open = parts.flatMap((p, k) => (isItem(p) && !MARKED_DONE.test(bare(p)) ? [k] : []));
  const listed = parts.filter(isItem).length;
  const names = new Map(open.map((k) => [k, namesOf(parts[k])]));
  const paths = new Map(open.map((k) => [k, pathsOf(parts[k])]));
  const doneSince = new Set<number>();
  if (open.length && changed.size)
    for (const it of later) {
      if (it.kind === 'summary' || it.message.role !== 'assistant') continue;
      const text = textWithPlaceholders(it.message.content);
      const said = [agentWords(text), text, ...toolCallsOf(it.message).map((c) => c.arguments)].join('\n');
      const edits = [...said.matchAll(EDIT_PATH)]
        .map((m) => (m[1] ?? m[2] ?? m[3]).trim())
        .filter((p) => changed.has(p));
      if (!edits.length) continue;
      for (const [k, ns] of names) if (!doneSince.has(k) && ns.some((n) => namesWord(said, n))) doneSince.add(k);
      // An item that names a file is carried out by a later change of that file, whatever else it says.
      for (const [k, ps] of paths)
        if (!doneSince.has(k) && ps.some((n) => edits.some((p) => isFile(p, n)))) doneSince.add(k);
    }
  // A to-do tool's own "not done" status is replaced, not contradicted by a mark after the item.
  const marked = (p: string) => (OPEN_MARK.test(p) ? p.replace(OPEN_MARK, '[done since]') : `${p} [done since]`);
  const text = parts.map((p, k) => (doneSince.has(k) ? marked(p) : p)).join(' | ');
  return { text, items: listed, done: listed - open.length + doneSince.size, since: doneSince.size };
}
