/**
 * Identifier back-fill that says where each identifier came from: the exact paths, commands, URLs
 * and error lines a summary left out are appended under a heading naming their source — tool-call
 * arguments, the conversation (what the user and the agent wrote), or tool output, which is never the
 * user's words. A path the session later moved away from says where the file lives now.
 *
 * Pure: no I/O.
 */
import type { ContextItem } from '../../types';
import { isToolOutputText, toolCallsOf } from '../../text';
import { textWithPlaceholders } from '../../content-text';
import { AGENT_NOTICE_LINES, HARNESS_BLOCKS, HARNESS_PARAGRAPHS, userTextAuthor } from '../../harness-text';
import { extractIdentifiers, isOneToken, NOISE } from './identifiers';
import {
  identifiersAfterTraceback,
  identifiersOfPart,
  prefixedWithTraceback,
  type PartIdentifiers,
} from './identifier-parts';
import { expandRoots, rootsIn, shortPath, type PathRoots } from '../ledger/path-root';
import { expandFolderLines } from '../ledger/file-names';
import { MessageMemo, messageMemosKept } from '../../message-memo';
import { FileUse, productOrFile } from './file-use';
import { WindowIndex } from '../../window-hashes';

/** Headings of the back-filled identifiers, by source, in order of priority. */
export const BACKFILL_HEADINGS = {
  args: '## Identifiers from tool-call arguments',
  conversation: '## Identifiers from the conversation',
  output: "## Identifiers from tool output (not the user's words)",
} as const;

/** A user message that a harness wrote (environment details, reminders) or that carries tool output. */
function harnessOrToolOutput(text: string): boolean {
  return isToolOutputText(text) || userTextAuthor(text).by === 'harness';
}

/**
 * The conversation text of a message: a user message without the blocks a harness added to it, an
 * agent's without the notices a harness appended to it (Aider's commits: their ids are commits, named
 * as such, not identifiers of the conversation).
 */
function conversationText(role: string, text: string): string {
  if (role === 'user') return text.replace(HARNESS_BLOCKS, ' ').replace(HARNESS_PARAGRAPHS, '\n');
  return text.includes('\n> ') || text.startsWith('> ') ? text.replace(AGENT_NOTICE_LINES, ' ') : text;
}

/** Source texts of a span, split by where the text came from. */
/**
 * A Markdown table row (`| a | b |`) or a failure report (`ERROR: (gcloud…) HTTPError 400: …`,
 * `src/a.ts(3,1): error TS2304: …`): text, not a name to carry. Failures are kept with their command
 * under the notes' errors.
 */
function notAName(id: string): boolean {
  const t = id.trim();
  return (
    /^\|.*\|$/.test(t) ||
    (/\s/.test(t) &&
      /^(?:[A-Z]\w*(?:Error|Exception)\b|error\b|ERROR\b|FAILED\b|FATAL\b|fatal:|panic:|Traceback\b)|^\S+\(\d+,\d+\): error\b/i.test(
        t,
      ))
  );
}

/**
 * What the tool output `items[index]` gives the identifiers read from tool output: its text without
 * search hits in documentation files, or undefined for a folder listing or a documentation file shown
 * (they name what exists or what a document cites, not what the agent used).
 */
export function outputText(items: readonly ContextItem[], index: number): string | undefined {
  if (listingResult(items, index) || docResult(items, index)) return undefined;
  return withoutDocHitText(textWithPlaceholders(items[index].message.content));
}

export function sourcesOf(items: readonly ContextItem[]): { args: string; conversation: string; output: string } {
  const args: string[] = [];
  const conversation: string[] = [];
  const output: string[] = [];
  items.forEach((it, i) => {
    if (it.kind === 'summary') return;
    const m = it.message;
    const text = textWithPlaceholders(m.content);
    if (m.role === 'tool' || (m.role === 'user' && harnessOrToolOutput(text))) {
      const out = outputText(items, i);
      if (out !== undefined) output.push(out);
    } else if (m.role === 'user' || m.role === 'assistant') conversation.push(conversationText(m.role, text));
    for (const c of toolCallsOf(m)) args.push(`${c.name} ${c.arguments}`);
  });
  return { args: args.join('\n'), conversation: conversation.join('\n'), output: output.join('\n') };
}

/** What the back-fill reads of one message: its source, and the identifiers of its parts once read. */
interface MessageParts {
  source: 'output' | 'conversation' | undefined;
  /** One part per tool call (see {@link sourcesOf}), read on first use. */
  args?: PartIdentifiers[];
  /** The message's text, read on first use (only when it has a source). */
  text?: PartIdentifiers;
}

/** Per message object (messages are never mutated): each message's text is read for identifiers once. */
const partCache = new MessageMemo<object, MessageParts>();

function entryOf(item: ContextItem): MessageParts {
  const m = item.message;
  let hit = partCache.get(m);
  if (!hit) {
    const source =
      m.role === 'tool' || (m.role === 'user' && harnessOrToolOutput(textWithPlaceholders(m.content)))
        ? 'output'
        : m.role === 'user' || m.role === 'assistant'
          ? 'conversation'
          : undefined;
    hit = { source };
    partCache.set(m, hit);
  }
  return hit;
}

/**
 * One part of a source text: its text and its identifiers (read once, kept per message). The text
 * is made only when asked for (a part is read with its neighbours only where an identifier may run
 * across their join): a compaction of a grown span otherwise takes each part's identifiers as kept.
 */
interface SourcePart {
  text: () => string;
  read: () => PartIdentifiers;
  /** Index of its item in the span. */
  item: number;
  /** The part is the first of its message (a reading may start here). */
  first: boolean;
}

/** A tool that lists a folder (its output names what exists, not what the agent used). */
const LISTING_TOOL = /^(?:ls|list_?files|list_?dir(?:ectory)?|glob|find_?files|dir)$/i;
/** A command whose program lists files (`ls`, `find`, `tree`, `fd`, `dir`, `Get-ChildItem`), filtered or not, that runs nothing on them (`xargs`, `-exec`). */
const LISTING_COMMAND =
  /^\s*(?:cd\s+\S+\s*(?:&&|;)\s*)?(?:ls|find|tree|fd|dir|Get-ChildItem|gci)\b(?![\s\S]*(?:\|\s*xargs\b|-exec\b))/;

/**
 * The action a SWE-agent observation (a user message) answers: the `<function=name>` block written in
 * the assistant message just before it, with its `command` and `path` parameters when present.
 * Undefined when the message before is not an assistant's or holds no action.
 */
function actionBefore(
  items: readonly ContextItem[],
  index: number,
): { name: string; command?: string; path?: string } | undefined {
  const before = items[index - 1]?.message;
  if (before?.role !== 'assistant') return undefined;
  const action = /<function=([\w.-]+)>([\s\S]*?)(?:<\/function>|$)/.exec(textWithPlaceholders(before.content));
  if (!action) return undefined;
  const command = /<parameter=command>\n?([\s\S]*?)<\/parameter>/.exec(action[2])?.[1];
  const path = /<parameter=path>\n?([\s\S]*?)<\/parameter>/.exec(action[2])?.[1];
  return { name: action[1], command, path };
}

/**
 * Whether `items[index]` is the result of a call that lists a folder (a listing tool, or a shell
 * command that is a listing): its entries name what exists, not what the agent used, so they are
 * no identifiers to carry. The call is the assistant message before the run of results.
 */
function listingResult(items: readonly ContextItem[], index: number): boolean {
  const m = items[index].message;
  if (m.role === 'user') {
    const action = actionBefore(items, index);
    if (!action) return false;
    return LISTING_TOOL.test(action.name) || (action.command !== undefined && LISTING_COMMAND.test(action.command));
  }
  const call = m.role === 'tool' ? callOf(items, index) : undefined;
  if (!call) return false;
  if (LISTING_TOOL.test(call.name)) return true;
  const command = shellCommandOf(call);
  return command !== undefined && LISTING_COMMAND.test(command);
}

/** Documentation files by extension: what they cite is text, not the work's files. */
const DOC_FILE = /\.(?:md|mdx|markdown|txt|rst|adoc)$/i;
/** A tool that shows one file (its path argument names it). */
const READ_TOOL =
  /^(?:read|view|open|cat|read_?file|view_?file|get_?file|file_?read|str_replace_editor|str_replace_based_edit_tool)$/i;
/** A shell command that prints files (`cat`, `head`, `tail`, `sed -n '…p'`, `less`, `bat`, `nl`, `type`, `Get-Content`): its words after it. */
const SHOW_COMMAND =
  /^\s*(?:cd\s+\S+\s*(?:&&|;)\s*)?(?:cat|head|tail|less|more|bat|nl|type|Get-Content|gc|sed\s+-n\s+(?:'[^']*'|"[^"]*"|\S+))\s+(.*)$/;

/**
 * Whether `items[index]` is the result of a call that shows a documentation file (a read tool's path,
 * or a shell command printing it, ending in `.md`, `.txt`, `.rst`…): the paths, names and addresses it
 * cites are its text, and the work shows them elsewhere when they exist (a call's arguments, a search
 * hit, a file read), so none is carried from it. SWE-agent observations are read by their action.
 */
function docResult(items: readonly ContextItem[], index: number): boolean {
  const m = items[index].message;
  if (m.role === 'user') {
    const action = actionBefore(items, index);
    if (!action) return false;
    return showsDoc(action.name, (action.command ?? '').trim(), action.path?.trim());
  }
  const call = m.role === 'tool' ? callOf(items, index) : undefined;
  if (!call) return false;
  const command = shellCommandOf(call);
  const path = /"(?:path|file_path|filePath|absolute_path|file|filename|target_file)"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(
    call.arguments,
  )?.[1];
  return showsDoc(call.name, command ?? '', path);
}

/**
 * The shell command in a call's JSON arguments, unescaped for quotes: `"command": "ls -la"`, or
 * Codex's `"command": ["bash", "-lc", "ls -la"]` (its last element); undefined when there is none.
 */
function shellCommandOf(call: { arguments: string }): string | undefined {
  return /"(?:command|cmd)"\s*:\s*(?:\[(?:\s*"(?:[^"\\]|\\.)*"\s*,)*\s*)?"((?:[^"\\]|\\.)*)"/
    .exec(call.arguments)?.[1]
    ?.replace(/\\"/g, '"');
}

/** The tool call that the tool result `items[index]` answers (in the assistant message before its run of results), if any. */
function callOf(items: readonly ContextItem[], index: number): { name: string; arguments: string } | undefined {
  const id = (items[index].message as { tool_call_id?: string }).tool_call_id;
  let j = index - 1;
  while (j >= 0 && items[j].message.role === 'tool') j--;
  return j >= 0 ? toolCallsOf(items[j].message).find((c) => c.id === id) : undefined;
}

/** Whether a call named `name` with this `command` (a shell command) or `path` shows a documentation file. */
function showsDoc(name: string, command: string, path: string | undefined): boolean {
  // An editor tool's `view` shows the file of its path; its other commands edit.
  if (path !== undefined && READ_TOOL.test(name) && (command === '' || command === 'view')) return DOC_FILE.test(path);
  const shown = SHOW_COMMAND.exec(command.split('|')[0])?.[1];
  if (!shown || /[<>;&]/.test(shown)) return false;
  const files = [...shown.matchAll(/'([^']+)'|"([^"]+)"|(\S+)/g)]
    .map((w) => w[1] ?? w[2] ?? w[3])
    .filter((w) => !w.startsWith('-') && !/^\d+$/.test(w));
  return files.length > 0 && files.every((f) => DOC_FILE.test(f));
}

/**
 * A search hit in a documentation file (`docs/setup.md:15:// path: lib/x.ts`, `grep -n`/`rg -n`), to
 * the line's end (a newline, or its `\n` escape in JSON text); group 1 is what came before it. A file
 * name may hold spaces (`LM Studio configuration.md:3:`).
 */
const DOC_HIT = /(^|\n|\\n|")[^\n"\\]*?\.(?:md|mdx|markdown|txt|rst|adoc):\d+[:-](?:(?!\\n)[^\n])*/gi;

/**
 * `text` (a tool's output) with its search hits in documentation files left out: what such a line
 * shows is documentation, whose paths are cited, not the work's (the command names the files searched).
 */
function withoutDocHitText(text: string): string {
  const t = withoutDependencyHits(withoutRecallPointer(text));
  if (!/\.(?:md|mdx|markdown|txt|rst|adoc):\d/i.test(t)) return t;
  return t.replace(DOC_HIT, '$1');
}

/**
 * The sentence a collapsed tool result ends with in the command-line tool's output (`The full output
 * can be read from: FILE, message N (context-keeper recall …).`, see `collapsedOutputPointer`): it
 * names the recording the tool reads, not a file or id of the work.
 */
const RECALL_POINTER =
  /The full output can be read from: [^\n]*?, message \d+ \(context-keeper recall FILE --read \d+\)\./g;

/** `text` without its {@link RECALL_POINTER} sentences. */
function withoutRecallPointer(text: string): string {
  return text.includes('The full output can be read from: ') ? text.replace(RECALL_POINTER, '') : text;
}

/** A folder of installed packages in a path (`node_modules`, `site-packages`, `dist-packages`, `bower_components`). */
const DEPENDENCY_DIR = String.raw`(?:node_modules|site-packages|dist-packages|bower_components)[\\/]`;
/**
 * A search hit in an installed package's file, `grep -n` style (`node_modules/x/a.js:12: …`, the path
 * first on its line: a stack frame's `at f (…/node_modules/x.js:3:5)` stays), to the line's end;
 * group 1 as {@link DOC_HIT}'s.
 */
const DEPENDENCY_HIT = new RegExp(
  String.raw`(^|\n|\\n|")[^\s"\\]*?${DEPENDENCY_DIR}[^\s:"]*:\d+[:-](?:(?!\\n)[^\n])*`,
  'g',
);
/**
 * A search hit block in an installed package's file, Cline style: the file's line, then its `│` lines
 * (lines end at a newline or its `\n` escape in JSON text); group 1 as above.
 */
const DEPENDENCY_BLOCK = new RegExp(
  String.raw`(^|\n|\\n|")(?:(?!\\n)[^\n│"])*${DEPENDENCY_DIR}(?:(?!\\n)[^\n])*(?:(?:\n|\\n)│(?:(?!\\n)[^\n])*)+`,
  'g',
);

/**
 * `text` (a tool's output) without its search hits in installed packages' files (`node_modules/…`):
 * what they show is a package's code (a source map's `../../src/index.ts`), not the work's files or
 * ids, and the command names the folder searched.
 */
function withoutDependencyHits(text: string): string {
  if (!/(?:node_modules|site-packages|dist-packages|bower_components)[\\/]/.test(text)) return text;
  return text.replace(DEPENDENCY_BLOCK, '$1').replace(DEPENDENCY_HIT, '$1');
}

/** The parts of `items` that make up the `key` source text of {@link sourcesOf}, in order. */
function* partsOfSource(
  items: readonly ContextItem[],
  key: 'args' | 'conversation' | 'output',
  from = 0,
): Generator<SourcePart> {
  for (let item = from; item < items.length; item++) {
    const it = items[item];
    if (it.kind === 'summary') continue;
    const m = it.message;
    if (key === 'args') {
      const calls = toolCallsOf(m);
      for (let k = 0; k < calls.length; k++) {
        yield {
          text: () => `${calls[k].name} ${calls[k].arguments}`,
          read: () => (entryOf(it).args ??= calls.map((c) => identifiersOfPart(`${c.name} ${c.arguments}`)))[k],
          item,
          first: k === 0,
        };
      }
      continue;
    }
    const entry = entryOf(it);
    if (entry.source !== key || (key === 'output' && (listingResult(items, item) || docResult(items, item)))) continue;
    const text = () =>
      key === 'conversation'
        ? conversationText(m.role, textWithPlaceholders(m.content))
        : withoutDocHitText(textWithPlaceholders(m.content));
    const read = () => (entry.text ??= identifiersOfPart(text()));
    yield { text, read, item, first: true };
  }
}

/**
 * `extractIdentifiers(sourcesOf(items)[key])`, in the same order, read lazily: each part's
 * identifiers (cached per message) while the joins before it are sealed (see identifier-parts.ts).
 * A part that ends inside a command string or array is read together with the parts after it, up to
 * the first join no command crosses: matches cannot start earlier nor run past that end. After
 * {@link MAX_MERGED} such parts in a row, the rest of the text is joined and read whole. A Traceback
 * that waits for its exception line is no reason to merge: the parts after it are read after a
 * Traceback line of their own until one ends it (a flag carried across the joins, also when a reading
 * resumes), so text that mentions a Traceback in prose (source comments, notes) is still read part by
 * part. A caller that stops early (the back-fill's budget is spent) reads no more of the span than it
 * used.
 *
 * Memory: one part (or a few merged) at a time; reading the rest of a 300k-message span as one
 * text held about 140 MB of it at once (measured on real text).
 *
 * `resume`: start at item `from` as if `seen` had been yielded before it and a Traceback waited for
 * its exception line when `traceback` is true (a place `at` reported by an earlier reading of the
 * same items); `at` is told each item where this reading may resume, with that flag.
 */
export function* sourceIdentifiers(
  items: readonly ContextItem[],
  key: 'args' | 'conversation' | 'output',
  resume?: {
    from: number;
    seen: ReadonlySet<string>;
    traceback?: boolean;
    at: (item: number, traceback: boolean) => void;
  },
): Generator<string> {
  const seen = new Set<string>(resume?.seen);
  function* fresh(ids: readonly string[]): Generator<string> {
    for (const id of ids) {
      if (seen.has(id)) continue;
      seen.add(id);
      yield id;
    }
  }
  // Whether a Traceback before the current part still waits for its exception line.
  let traceback = resume?.traceback ?? false;
  const textOf = (part: SourcePart): string => (traceback ? prefixedWithTraceback(part.text()) : part.text());
  const parts = partsOfSource(items, key, resume?.from);
  let cur = parts.next();
  while (!cur.done) {
    const part = cur.value;
    // No command crosses a join before this part and what came before it is yielded: a reading may resume here.
    if (part.first) resume?.at(part.item, traceback);
    const read = traceback ? identifiersAfterTraceback(part.text(), part.read()) : part.read();
    let next = parts.next();
    if (!read.commandOpen || next.done) {
      yield* fresh(read.ids);
      traceback = read.openTraceback;
      cur = next;
      continue;
    }
    // A command may run across this join: read on with the next parts as one text.
    const texts = [textOf(part)];
    let merged: PartIdentifiers;
    do {
      texts.push(next.value.text());
      next = parts.next();
      merged = identifiersOfPart(texts.join('\n'));
    } while (merged.commandOpen && !next.done && texts.length < MAX_MERGED);
    if (merged.commandOpen && !next.done) {
      for (let n: IteratorResult<SourcePart> = next; !n.done; n = parts.next()) texts.push(n.value.text());
      yield* fresh(extractIdentifiers(texts.join('\n')));
      return;
    }
    yield* fresh(merged.ids);
    traceback = merged.openTraceback;
    cur = next;
  }
}

/** Parts read as one text at most before the rest of a source is read whole (each merge reads them again). */
const MAX_MERGED = 16;

type SourceKey = 'args' | 'conversation' | 'output';

/**
 * The identifiers of one span's sources for several back-fills of it (the compactor back-fills again
 * with a smaller allowance when a summary comes out too long): each source is read once, as far as
 * any back-fill went, and what was read is replayed for the next. Holds the identifiers read (about
 * 4,000 strings for 100k messages of real text), never the texts. Measured: the back-fill was 30% of
 * the command-line `compact` of 100k messages, reading the span once per attempt.
 */
export class SpanIdentifiers {
  private readonly seen: Record<SourceKey, string[]> = { args: [], conversation: [], output: [] };
  private readonly readers: Partial<Record<SourceKey, Generator<string>>> = {};
  private readonly ended = new Set<SourceKey>();
  /** Where each source's reading resumes: its last resumable place in the span read last. */
  private readonly resumeAt: Partial<Record<SourceKey, { item: number; traceback: boolean }>> = {};

  /**
   * A span that grew at its end (the next compaction of a growing conversation: the same items
   * first) takes each source's identifiers up to the last place the reading of the span before
   * could resume from (see {@link sourceIdentifiers}) and reads on from there: the identifiers
   * are the same, in the same order, and the messages before that place are not visited again.
   */
  constructor(readonly items: readonly ContextItem[]) {
    // A process that compacts once never reads a grown span: nothing is kept for one.
    if (!messageMemosKept()) keptReadings = undefined;
    if (items.length < KEEP_FROM || !messageMemosKept()) return;
    const before = keptReadings;
    keptReadings = { items, at: {} };
    if (!before) return;
    let far = 0;
    for (const key of SOURCE_KEYS) far = Math.max(far, before.at[key]?.item ?? 0);
    const same = samePrefix(before.items, items, far);
    for (const key of SOURCE_KEYS) {
      const at = before.at[key];
      if (!at || at.item > same) continue;
      this.seen[key] = at.list.slice(0, at.count);
      this.resumeAt[key] = { item: at.item, traceback: at.traceback };
      keptReadings.at[key] = { ...at, list: this.seen[key] };
    }
  }

  /** {@link sourceIdentifiers} of the span for `key`, in order: what was read already, then more. */
  *of(key: SourceKey): Generator<string> {
    const list = this.seen[key];
    for (let i = 0; ; i++) {
      if (i < list.length) {
        yield list[i];
        continue;
      }
      if (this.ended.has(key)) return;
      const next = (this.readers[key] ??= this.reader(key)).next();
      if (next.done) {
        this.ended.add(key);
        return;
      }
      list.push(next.value);
      yield next.value;
    }
  }

  private reader(key: SourceKey): Generator<string> {
    const list = this.seen[key];
    const { item: from, traceback } = this.resumeAt[key] ?? { item: 0, traceback: false };
    // The place is kept for the next span only while this span is the one kept.
    const place = { item: from, traceback, count: list.length, list };
    if (keptReadings?.items === this.items) keptReadings.at[key] = place;
    const at = (item: number, open: boolean) => {
      place.item = item;
      place.traceback = open;
      place.count = list.length;
    };
    return sourceIdentifiers(this.items, key, { from, seen: new Set(list), traceback, at });
  }
}

const SOURCE_KEYS: readonly SourceKey[] = ['args', 'conversation', 'output'];

/** Spans shorter than this are read whole (cheap), so they do not push a long span's reading out. */
const KEEP_FROM = 256;

/**
 * The span read last and, per source, the last place its reading could resume from: the item, whether
 * a Traceback before it waits for its exception line, and how many identifiers of `list` (the
 * reading's own list, which only grows) came before it.
 */
let keptReadings:
  | {
      items: readonly ContextItem[];
      at: Partial<Record<SourceKey, { item: number; traceback: boolean; count: number; list: string[] }>>;
    }
  | undefined;

/** How many items `a` and `b` share at their start (the same messages, as the same kind), looking at most `upTo`. */
function samePrefix(a: readonly ContextItem[], b: readonly ContextItem[], upTo: number): number {
  const n = Math.min(a.length, b.length, upTo);
  for (let i = 0; i < n; i++) if (a[i].message !== b[i].message || a[i].kind !== b[i].kind) return i;
  return n;
}

/** The last segment of a path (`a/b/c.ts` → `c.ts`). */
function fileNameOf(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}

/** Smallest cost of one back-filled line: `- ` and an identifier of at least 3 characters, and a newline. */
const MIN_LINE_COST = 6;

/** Smallest cost of a source's first back-filled line: its heading, a blank line's worth, and the line. */
function openingCost(key: SourceKey): number {
  return BACKFILL_HEADINGS[key].length + 2 + MIN_LINE_COST;
}

/** Per source (in {@link SOURCE_KEYS} order), the smallest opening cost of the sources after it (Infinity for the last). */
const LATER_OPENING: readonly number[] = SOURCE_KEYS.map((_, k) =>
  SOURCE_KEYS.slice(k + 1).reduce((least, key) => Math.min(least, openingCost(key)), Infinity),
);

/**
 * Most identifier lines the back-fill writes, whatever the room: the tool calls' identifiers first
 * (the paths and ids the work used), then the conversation's, then tool output's. Past about forty, a
 * list is read as noise (a long session's output names hundreds of files it only listed or cited);
 * the last line says how many more there were ({@link identifiersLeftOutLine}), and the recall
 * command reads them.
 */
export const MAX_IDENTIFIER_LINES = 40;

/** The line that ends the identifier lists when {@link MAX_IDENTIFIER_LINES} left some out: how many. */
export function identifiersLeftOutLine(left: number): string {
  return `- … ${left} more identifier${left === 1 ? '' : 's'} not listed`;
}

/** The heading over {@link noneListedLine} when no identifier line fits. */
export const NONE_LISTED_HEADING = '## Identifiers';

/** The line that stands alone when the room left holds no identifier line: how many were left out. */
export function noneListedLine(left: number): string {
  return `- … ${left} identifier${left === 1 ? '' : 's'} of the replaced messages not listed: no room left in this summary`;
}

/**
 * Appends identifiers of `items` missing from `summary`, at most `maxChars` characters in all
 * (about 4 characters make a token) and `maxLines` lines ({@link MAX_IDENTIFIER_LINES} unless
 * told), then a line counting those past that many. A path the summary writes from a named folder (`path-root.ts`)
 * is not missing. `moved` maps old paths to where the files live now; `sources`, the span's
 * identifiers as read by an earlier back-fill of the same `items` (read afresh when not given).
 * `countLeftOut`: those `maxChars` leaves no room for are counted on that last line too (the lists
 * were shrunk for text that comes first, the typed requests); with no room for any,
 * {@link NONE_LISTED_HEADING} stands with {@link noneListedLine} alone. Returns the new text and the identifiers added. Never throws.
 */
export function backfillIdentifiers(
  summary: string,
  items: readonly ContextItem[],
  maxChars: number,
  moved: ReadonlyMap<string, string> = new Map(),
  sources: SpanIdentifiers = new SpanIdentifiers(items),
  maxLines: number = MAX_IDENTIFIER_LINES,
  countLeftOut = false,
): { text: string; added: string[] } {
  const added: string[] = [];
  const seen = new Set<string>();
  const inSummary = new SummaryIndex(summary);
  // A path the ledger wrote from a named folder (`$A/src/x.ts`) is in the summary already.
  const roots = rootsIn(summary);
  const short = (id: string) => (roots.list.length ? shortPath(roots, id) : id);
  const inFull = namedInFull(summary, roots);
  const has = (id: string) =>
    inSummary.has(id) || (short(id) !== id && inSummary.has(short(id))) || (RELATIVE_PATH.test(id) && inFull(id));
  let budget = maxChars;
  const blocks: string[] = [];
  // Paths read so far, by file name: a path in tool output that ends another one mid-folder is a piece of it.
  const paths = new Map<string, string[]>();
  const pieceOfKnown = (id: string): boolean => {
    const known = paths.get(fileNameOf(id));
    return (
      known !== undefined &&
      known.some((k) => k.length > id.length && k.endsWith(id) && !/[\\/]/.test(k[k.length - id.length - 1]))
    );
  };
  const usedAsFile = new FileUse(items);
  // Identifiers past the cap that the summary does not hold: counted, not listed.
  let leftOut = 0;
  // Out of room with `countLeftOut`: the sources are read on only to count what is left out.
  let noRoom = false;
  const capped = () => noRoom || added.length >= maxLines;
  const stops = () => !countLeftOut || !(noRoom = true);
  for (let k = 0; k < SOURCE_KEYS.length; k++) {
    const key = SOURCE_KEYS[k];
    const lines: string[] = [];
    const heading = BACKFILL_HEADINGS[key];
    // Not even the cheapest line of this source or a later one fits (a source's first line pays
    // for its heading): nothing more can be added, so the sources left are not read. Reading them
    // would change nothing but the paths seen, which matter only to lines that could be added.
    // Past the cap, the sources are read on to count what is left out.
    const later = LATER_OPENING[k];
    if (!capped() && budget < Math.min(openingCost(key), later) && stops()) break;
    for (const id of sources.of(key)) {
      // Nothing more fits: every later identifier would be skipped for its cost.
      if (!capped() && budget < Math.min(lines.length ? MIN_LINE_COST : openingCost(key), later) && stops()) break;
      if (id.trim().length < 3 || NOISE.has(id.trim()) || seen.has(sameFile(id)) || notAName(id) || !isOneToken(id))
        continue;
      // A product named like a file (`Next.js`) is a file only where the work used it as one.
      if (productOrFile(id) && !usedAsFile.has(id, paths)) continue;
      if (/[\\/]/.test(id)) {
        // A terminal's echo wrapped or split a path (`…/e039 64cb…/base_state.json`): its tail is no path.
        if (key === 'output' && pieceOfKnown(id)) continue;
        const name = fileNameOf(id);
        paths.set(name, [...(paths.get(name) ?? []), id]);
      }
      if (capped()) {
        if (!has(id)) leftOut++;
        seen.add(sameFile(id));
        continue;
      }
      const now = moved.get(id);
      // Written as the files section writes paths: from a named folder (`$A\\src\\x.ts`).
      const line = `- ${short(id).replace(/\r?\n/g, ' ⏎ ')}${now ? ` (moved; now ${short(now)})` : ''}`;
      const cost = line.length + 1 + (lines.length === 0 ? heading.length + 2 : 0);
      // Too long for what is left: skipped, and never offered again (whether or not the summary
      // has it, it would be skipped later too), so the summary is searched only for those that fit.
      if (cost > budget) {
        if (countLeftOut && !has(id)) leftOut++;
        seen.add(sameFile(id));
        continue;
      }
      if (has(id)) continue;
      seen.add(sameFile(id));
      budget -= cost;
      lines.push(line);
      added.push(id);
    }
    if (lines.length) blocks.push(`${heading}\n${lines.join('\n')}`);
  }
  // No room for any: one plain line says so, under no source's heading (a heading of its own over
  // a count alone read as an empty list).
  if (blocks.length === 0 && countLeftOut && leftOut > 0)
    blocks.push(`${NONE_LISTED_HEADING}\n${noneListedLine(leftOut)}`);
  else if (blocks.length === 0) return { text: summary, added };
  else if (leftOut > 0) blocks[blocks.length - 1] += `\n${identifiersLeftOutLine(leftOut)}`;
  return { text: `${summary.trimEnd()}\n\n${blocks.join('\n\n')}`, added };
}

/**
 * Whether `summary` names a relative path in full, from one of its named folders (`roots`) or with
 * the other separator (`src/lib/db.ts` for `$A\\src\\lib\\db.ts`). Most paths asked are not in it
 * at all: an index of the text rules that out without a search of the whole text (the back-fill asks
 * for the span's every identifier past its cap).
 */
function namedInFull(summary: string, roots: PathRoots): (relativePath: string) => boolean {
  let full: { text: string; index: SummaryIndex } | undefined;
  return (id) => {
    if (!full) {
      // A files line naming files by folder (`- in $A/src/: edited a.ts`) names each file's full path.
      const text = expandFolderLines(expandRoots(roots, summary)).replace(/\\/g, '/');
      full = { text, index: new SummaryIndex(text) };
    }
    const path = id.replace(/^\.[\\/]/, '').replace(/\\/g, '/');
    return full.index.has(path) && endsAPathIn(full.text, path);
  };
}

/** `./x` and `x` name one file (`STATUS.md`, `./STATUS.md`): one of them is listed. */
function sameFile(id: string): string {
  return id.startsWith('./') || id.startsWith('.\\') ? id.slice(2) : id;
}

/** A relative path of two parts or more (`src/lib/db.ts`, `./docs/adr`, `src\\app`), not a URL nor an absolute path. */
const RELATIVE_PATH = /^(?:\.[\\/])?[\w.@-]+[\\/][^\s:]*[\w]$/;

/**
 * Whether `text` holds `path` as the end of a path (after a `/`, a space, a quote or the start, and
 * before no other character of a name), both written with `/`.
 */
function endsAPathIn(text: string, path: string): boolean {
  for (let at = text.indexOf(path); at >= 0; at = text.indexOf(path, at + 1)) {
    const before = at === 0 ? ' ' : text[at - 1];
    const after = text[at + path.length] ?? ' ';
    if (/[/\s"'`(]/.test(before) && !/[\w.-]/.test(after)) return true;
  }
  return false;
}

/**
 * `summary.includes(id)` for many identifiers: an identifier of at least {@link GRAM} characters is
 * compared only where the summary has a window hashing like its first or last {@link GRAM} characters
 * (`WindowIndex`). Most identifiers a back-fill asks about are in the summary already, and a search of
 * the whole summary for each went through half of it on average (measured: about 5% of a grown
 * compaction at 100k messages).
 */
class SummaryIndex {
  private windows: WindowIndex | undefined;

  constructor(private readonly summary: string) {}

  has(id: string): boolean {
    if (id.length < GRAM) return this.summary.includes(id);
    this.windows ??= new WindowIndex(this.summary, GRAM);
    return this.windows.includes(id);
  }
}
const GRAM = 8;
