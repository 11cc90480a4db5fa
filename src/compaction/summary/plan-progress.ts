/**
 * Which items of the agent's latest plan or to-do list were done, or worked on, after it was written.
 * An item is done since only on evidence that completes it: the file it names was created later
 * (`Create frontend/Dockerfile`), or a later to-do list of the agent's (the plan tool called again,
 * Cline's `task_progress`) marks it completed. An edit is no such evidence where the list carries
 * statuses: the agent marks what it finished there, and an item it left in progress (or pending)
 * whose code or file was edited since reads `[in progress; edited index.ts since]`, never done. A
 * plan written in prose (numbered steps, no status) has no place to mark an item finished: there a
 * later edit by a message that names what the item names (a code name in backticks or written as
 * code: `_wrap_in_pandas_container`, `Mixin.set_output`; a file path) carries it out. Items already
 * marked done (`[x]`, `[completed]`) stay as they are. Pure: no I/O.
 */
import type { ContextItem } from '../types';
import { toolCallsOf } from '../text';
import { textWithPlaceholders } from '../content-text';
import { agentWords } from '../harness-text';
import { planItems, progressChecklist } from './span-scan';
import { clip, writesTaskList } from './message-facts';

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
/** The status of an item the agent was working on when it wrote the list. */
const IN_PROGRESS_MARK = /\[(?:in_progress|in progress)\]/i;
/** A patch line adding a file (Codex `apply_patch`): the call creates it. */
const ADDED_FILE = /\*\*\* Add File: ([^\s\\"]+)/g;

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

/** An item of the plan not done, as the next step names it. */
export interface OpenStep {
  /** `step 2`: the item's own number, else its place in the list. */
  label: string;
  /** The item's words, without its number or status. */
  words: string;
  /** Worked on: the list marked it in progress, or its code or file was edited since. */
  started: boolean;
}

/** The result of {@link planProgress}. */
export interface PlanProgress {
  /** The plan line with each item done since marked `[done since]`, each worked on since `[in progress; edited X since]`. */
  text: string;
  /** Items of the plan, and those done (marked in the list or since). */
  items: number;
  done: number;
  /** Items done since the list was written, of `done`. */
  since: number;
  /** Items not done that were edited since the list was written. */
  edited: number;
  /** The items not done, in the list's order. */
  open: OpenStep[];
}

/** An item's words without its tool name, number, checkbox or status (`2. [pending] Add x` → `Add x`). */
function itemWords(part: string): string {
  return part
    .replace(/^\([^)]*\) /, '')
    .replace(/^\s*(?:\d+[.)]\s+|[-*]\s+)/, '')
    .replace(/^\[[^\]]*\]\s*/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The key two lists share for one item: its words, lower case, at most 80 characters. */
const itemKey = (part: string) => itemWords(part).toLowerCase().slice(0, 80);

/**
 * What later to-do lists of the agent's (in `later`, in order) say of each item, by {@link itemKey}:
 * `done` (marked completed) or `started` (marked in progress); the newest list naming an item decides.
 */
function laterStatus(later: readonly ContextItem[]): Map<string, 'done' | 'started' | 'open'> {
  const status = new Map<string, 'done' | 'started' | 'open'>();
  for (const it of later) {
    if (it.kind === 'summary' || it.message.role !== 'assistant') continue;
    for (const c of toolCallsOf(it.message)) {
      const list = writesTaskList(c.name, c.arguments) ? planItems(c.arguments) : progressChecklist(c.arguments);
      if (list === undefined) continue;
      for (const part of list.split(' | '))
        status.set(
          itemKey(part),
          MARKED_DONE.test(part.replace(/^\([^)]*\) /, '')) || /\[(?:completed|done)\]/i.test(part)
            ? 'done'
            : IN_PROGRESS_MARK.test(part)
              ? 'started'
              : 'open',
        );
    }
  }
  return status;
}

/** The last part of a path, for a short mark (`components/chat/index.ts` → `index.ts`). */
const fileName = (path: string) => path.replace(/\\/g, '/').split('/').at(-1) ?? path;

/**
 * Marks the items of `plan` (a plan line, items joined by ` | `) done or worked on in `later` (the
 * messages after the one that wrote it, in order): see the module comment. `changed` holds the
 * paths of files the ledger lists as edited or created, `created` those of files the span or the
 * messages after it created (full paths as the calls gave them).
 */
export function planProgress(
  plan: string,
  later: readonly ContextItem[],
  changed: ReadonlySet<string>,
  created: ReadonlySet<string> = new Set(),
): PlanProgress {
  const parts = plan.split(' | ');
  // A line ending in a colon introduces the items after it ("3. Modify the code. We need to:"): no task of its own.
  // The first part may start with the tool that wrote the list ("(TodoWrite) 1. [completed] …").
  const bare = (p: string) => p.replace(/^\([^)]*\) /, '');
  const isItem = (p: string) => ITEM.test(bare(p)) && !/:\s*$/.test(p);
  const open = parts.flatMap((p, k) => (isItem(p) && !MARKED_DONE.test(bare(p)) ? [k] : []));
  const items = parts.filter(isItem);
  const listed = items.length;
  // A list with statuses is the agent's own record of what it finished: an edit completes none of its items.
  const statused = parts.some((p) => OPEN_MARK.test(p) || MARKED_DONE.test(bare(p)));
  const names = new Map(open.map((k) => [k, namesOf(parts[k])]));
  const paths = new Map(open.map((k) => [k, pathsOf(parts[k])]));
  const doneSince = new Set<number>();
  /** Item → the files (short names) edited since that touch it, for items not done. */
  const touched = new Map<number, Set<string>>();
  const touch = (k: number, files: readonly string[]) => {
    let set = touched.get(k);
    if (!set) touched.set(k, (set = new Set()));
    for (const f of files) set.add(fileName(f));
  };
  if (open.length && changed.size)
    for (const it of later) {
      if (it.kind === 'summary' || it.message.role !== 'assistant') continue;
      const text = textWithPlaceholders(it.message.content);
      const said = [agentWords(text), text, ...toolCallsOf(it.message).map((c) => c.arguments)].join('\n');
      const edits = [...said.matchAll(EDIT_PATH)]
        .map((m) => (m[1] ?? m[2] ?? m[3]).trim())
        .filter((p) => changed.has(p));
      if (!edits.length) continue;
      const added = new Set([...said.matchAll(ADDED_FILE)].map((m) => m[1]));
      const made = edits.filter((p) => created.has(p) || added.has(p));
      for (const [k, ps] of paths) {
        if (doneSince.has(k)) continue;
        // The file an item names was created: the item is carried out, whatever else it says.
        if (ps.some((n) => made.some((p) => isFile(p, n)))) doneSince.add(k);
        else {
          const hit = edits.filter((p) => ps.some((n) => isFile(p, n)));
          if (hit.length && statused) touch(k, hit);
          else if (hit.length) doneSince.add(k);
        }
      }
      for (const [k, ns] of names) {
        if (doneSince.has(k) || !ns.some((n) => namesWord(said, n))) continue;
        if (statused) touch(k, edits);
        else doneSince.add(k);
      }
    }
  const status = open.length ? laterStatus(later) : new Map<string, string>();
  for (const k of open) if (status.get(itemKey(parts[k])) === 'done') doneSince.add(k);
  for (const k of doneSince) touched.delete(k);
  // Begun since: a later list marks it in progress (the tool's own word, in the text too).
  const begun = new Set(open.filter((k) => !doneSince.has(k) && status.get(itemKey(parts[k])) === 'started'));
  // A to-do tool's own "not done" status is replaced, not contradicted by a mark after the item.
  const mark = (p: string, m: string) => (OPEN_MARK.test(p) ? p.replace(OPEN_MARK, m) : `${p} ${m}`);
  const editedMark = (k: number) => `[in progress; edited ${[...touched.get(k)!].slice(0, 3).join(', ')} since]`;
  const text = parts
    .map((p, k) =>
      doneSince.has(k)
        ? mark(p, '[done since]')
        : touched.has(k)
          ? mark(p, editedMark(k))
          : begun.has(k) && !IN_PROGRESS_MARK.test(p)
            ? mark(p, '[in progress since]')
            : p,
    )
    .join(' | ');
  const openSteps = open
    .filter((k) => !doneSince.has(k))
    .map((k) => ({
      label: `step ${/^\s*(\d+)[.)]/.exec(bare(parts[k]))?.[1] ?? items.indexOf(parts[k]) + 1}`,
      words: clip(itemWords(parts[k]), 100),
      started: touched.has(k) || begun.has(k) || IN_PROGRESS_MARK.test(parts[k]),
    }));
  return {
    text,
    items: listed,
    done: listed - open.length + doneSince.size,
    since: doneSince.size,
    edited: touched.size,
    open: openSteps,
  };
}

/**
 * The next step a plan's open items name: `finish step 2 (…), then step 3 (…)` when one was worked
 * on (the list marked it in progress, or it was edited since), else `step 1 (…), then step 2 (…)`;
 * undefined when every item is done.
 */
export function planNextStep(open: readonly OpenStep[]): string | undefined {
  const first = open.find((s) => s.started) ?? open[0];
  if (!first) return undefined;
  const then = open.find((s) => s !== first && !s.started && open.indexOf(s) > open.indexOf(first));
  const step = (s: OpenStep) => `${s.label} of the plan (${s.words})`;
  return `${first.started ? 'finish ' : ''}${step(first)}${then ? `, then ${then.label} (${then.words})` : ''}`;
}
