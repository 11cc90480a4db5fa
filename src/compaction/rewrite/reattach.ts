/**
 * Re-attaching files after a summary, in live sessions: which files, in what order, within what
 * budget, and how they enter the compaction. Pure: the caller (the context service) reads the files
 * from the workspace and hands their text in.
 *
 * Why: a summary says that `src/app.ts` was edited, not what it now contains; without its text the
 * agent reads it again first thing after every compaction. Claude Code re-attaches the files it
 * touched last after compacting for the same reason. Here the files go after the summary as their
 * own labelled user messages, inside the summary's checkpoint, so they are counted in its tokens and
 * a restore removes them with the summary.
 */
import * as path from 'node:path';
import { applyCheckpoint } from '../context';
import { actionsOf } from '../summary/ledger/actions';
import { maskSecrets } from '../secrets';
import { toolCallsOf } from '../text';
import type { TokenMeter } from '../meter/meter';
import type { ContextItem, ToolSchema } from '../types';
import type { PreparedCompaction } from './commit';
import { parseJsonObject } from '../../format/json';

/** Default number of files re-attached after one summary. */
export const DEFAULT_REATTACH_MAX_FILES = 5;

/** A file worth re-attaching, as the history shows it. */
export interface ReattachCandidate {
  /** The path as the tool calls wrote it, normalised (`./a/../b.ts` → `b.ts`); may be absolute. */
  path: string;
  /** The last thing done to it. */
  lastOp: 'read' | 'created' | 'edited' | 'moved' | 'attached';
  /**
   * Id of the item whose text shows the whole file as of that last touch (a full `read_file` result,
   * or a file re-attached by an earlier compaction), when the last touch was one. When that item is
   * still in the context after the compaction, re-attaching the file would repeat it.
   */
  shownBy?: string;
}

/** A file read from the workspace, ready to re-attach. */
export interface AttachedFile {
  /** Workspace-relative path, forward slashes. */
  path: string;
  /** Its current text (secrets not yet masked). */
  text: string;
  /** See {@link ReattachCandidate.shownBy}. */
  shownBy?: string;
}

/** Normalises a tool-call path for comparison; absolute paths stay absolute. */
export function normalizeToolPath(p: string): string {
  const s = p.trim().replace(/\\/g, '/');
  if (!s) return s;
  const n = path.posix.normalize(s);
  return n.startsWith('./') ? n.slice(2) : n;
}

/** True when a read call asked for a line range (its result does not show the whole file). */
function isPartialRead(args: string): boolean {
  const a = parseJsonObject(args);
  if (!a) return false;
  return ['start_line', 'end_line', 'offset', 'limit', 'view_range', 'line_range'].some(
    (k) => a[k] !== undefined && a[k] !== null,
  );
}

/**
 * The files the context touched, most recently touched first: successful reads, writes and edits of
 * the agent's tool calls (through {@link actionsOf}, so other agents' tool names count too) and files
 * re-attached by earlier compactions. A file deleted after its last touch is left out; a moved file
 * counts under its new path. Linear in the context; {@link CandidateScan} does the same in slices.
 */
export function reattachCandidates(items: readonly ContextItem[]): ReattachCandidate[] {
  const scan = new CandidateScan(items);
  scan.step(items.length);
  return scan.candidates();
}

/**
 * {@link reattachCandidates} in slices, so a caller on a busy thread can yield between them (at 1M
 * tokens the whole pass takes tens of milliseconds, mostly reading tool results for errors). The
 * outcome equals {@link reattachCandidates} over the same items.
 */
export class CandidateScan {
  private readonly last = new Map<string, { order: number; candidate: ReattachCandidate }>();
  private readonly results = new Map<string, ContextItem>();
  private order = 0;
  private at = 0;

  constructor(private readonly items: readonly ContextItem[]) {
    // Tool results by the call they answer: a cheap pass over roles only.
    for (const it of items) {
      if (it.message.role === 'tool')
        this.results.set((it.message as { tool_call_id?: string }).tool_call_id ?? '', it);
    }
  }

  /** True once every item has been scanned. */
  get done(): boolean {
    return this.at >= this.items.length;
  }

  /** Scans up to `count` more items (in context order). */
  step(count: number): void {
    const end = Math.min(this.items.length, this.at + Math.max(1, count));
    for (; this.at < end; this.at++) this.scanItem(this.items[this.at]);
  }

  /** The candidates of the items scanned so far, most recently touched first. */
  candidates(): ReattachCandidate[] {
    return [...this.last.values()].sort((a, b) => b.order - a.order).map((v) => v.candidate);
  }

  private touch(p: string, lastOp: ReattachCandidate['lastOp'], shownBy?: string): void {
    const key = normalizeToolPath(p);
    if (!key) return;
    this.last.set(key, { order: this.order++, candidate: { path: key, lastOp, ...(shownBy ? { shownBy } : {}) } });
  }

  private scanItem(it: ContextItem): void {
    if (it.attachedFile) {
      this.touch(it.attachedFile, 'attached', it.id);
      return;
    }
    if (it.kind === 'summary' || it.message.role !== 'assistant') return;
    for (const call of toolCallsOf(it.message)) {
      // One call at a time, with the result that answers it, so each touch keeps its own order.
      const result = this.results.get(call.id);
      const single: ContextItem = {
        ...it,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }],
        },
      };
      for (const action of actionsOf(result ? [single, result] : [single])) {
        if (action.kind !== 'file' || !action.ok) continue;
        if (action.op === 'deleted') this.last.delete(normalizeToolPath(action.path));
        else if (action.op === 'moved') {
          this.last.delete(normalizeToolPath(action.path));
          if (action.to) this.touch(action.to, 'moved');
        } else if (action.op === 'read')
          this.touch(action.path, 'read', result && !isPartialRead(call.arguments) ? result.id : undefined);
        else this.touch(action.path, action.op);
      }
    }
  }
}

/** The longest run of backticks in `text`, so a fence around it can be longer. */
function longestBacktickRun(text: string): number {
  let max = 0;
  for (const m of text.matchAll(/`+/g)) max = Math.max(max, m[0].length);
  return max;
}

/**
 * The labelled message of one re-attached file: a header that says what it is (current contents from
 * the workspace, context rather than a request) and the text in a fence longer than any backtick run
 * in it. Secrets are masked like in any other text that leaves the raw transcript.
 */
export function attachmentText(file: { path: string; text: string }): string {
  const text = maskSecrets(file.text.replace(/\r\n/g, '\n'));
  const lines = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(text) + 1));
  const lang = path.posix
    .extname(file.path)
    .slice(1)
    .replace(/[^\w+-]/g, '');
  return [
    `[File re-attached by ContextKeeper after the summary above: ${file.path}, its current contents read from the workspace (${lines} line${lines === 1 ? '' : 's'}). It is context, not a new request.]`,
    '',
    `${fence}${lang}`,
    text.endsWith('\n') ? text.slice(0, -1) : text,
    fence,
  ].join('\n');
}

/** Options of {@link withAttachedFiles}. */
export interface AttachOptions {
  /** Most tokens the re-attached files may take together. */
  budgetTokens: number;
  /** Most files. */
  maxFiles: number;
  /** The compaction target, in tokens: the files never take the context above it. */
  targetTokens: number;
}

/**
 * Adds `files` (most relevant first) after the summary of the newest summary checkpoint of `prepared`,
 * as `summary` items with `attachedFile` set and no raw entries covered, and records them in that
 * checkpoint's `attachedFiles`. A file is left out when its latest full text is still in the context
 * after the compaction (`shownBy`), when it does not fit the budget, the room left below the target,
 * half of the tokens the compaction frees, or the file count. Returns `prepared` unchanged when there is no summary checkpoint or nothing fits;
 * otherwise a copy (the input is not modified). Throws Error when the checkpoints do not apply to
 * `items` (a stale compaction; commit would refuse it too).
 */
export function withAttachedFiles(
  prepared: PreparedCompaction,
  items: readonly ContextItem[],
  files: readonly AttachedFile[],
  meter: TokenMeter,
  tools: readonly ToolSchema[] | undefined,
  options: AttachOptions,
): PreparedCompaction {
  const index = lastSummaryIndex(prepared);
  if (index < 0 || files.length === 0 || options.maxFiles <= 0 || options.budgetTokens <= 0) return prepared;
  const after = prepared.checkpoints.reduce((acc, cp) => applyCheckpoint(acc, cp), [...items]);
  const present = new Set(after.map((i) => i.id));
  // Within the budget, below the target, and never more than half of what the compaction frees: it
  // must still shrink the context (invariant 5) and stay worth the prompt cache it breaks.
  const afterTokens = meter.measure(after, tools).total;
  const before = meter.measure(items, tools).total;
  const room = Math.min(
    options.budgetTokens,
    options.targetTokens - afterTokens,
    Math.floor((before - afterTokens) / 2),
  );
  const cp = prepared.checkpoints[index];
  const added: ContextItem[] = [];
  const record: Array<{ path: string; tokens: number }> = [];
  let used = 0;
  for (const file of files) {
    if (added.length >= options.maxFiles) break;
    if (file.shownBy && present.has(file.shownBy)) continue;
    if (record.some((r) => r.path === file.path)) continue;
    const item: ContextItem = {
      id: `${cp.id}~f${added.length + 1}`,
      kind: 'summary',
      message: { role: 'user', content: attachmentText(file) },
      covers: [],
      checkpointId: cp.id,
      attachedFile: file.path,
    };
    const tokens = meter.countMessage(item.message);
    if (used + tokens > room) continue;
    used += tokens;
    added.push(item);
    record.push({ path: file.path, tokens });
  }
  if (added.length === 0) return prepared;
  const checkpoints = prepared.checkpoints.map((c, k) =>
    k === index ? { ...c, inserted: [...c.inserted, ...added], attachedFiles: record } : c,
  );
  return { ...prepared, checkpoints, tokensAfter: prepared.tokensAfter + used };
}

function lastSummaryIndex(prepared: PreparedCompaction): number {
  for (let k = prepared.checkpoints.length - 1; k >= 0; k--) {
    const s = prepared.checkpoints[k].strategy;
    if (s === 'summary' || s === 'extractive') return k;
  }
  return -1;
}

/**
 * Tokens to keep free below the compaction target for files, before knowing which will be kept:
 * what the candidates read so far would take, within the budget and the file count.
 */
export function attachReserve(
  files: readonly AttachedFile[],
  meter: TokenMeter,
  options: Pick<AttachOptions, 'budgetTokens' | 'maxFiles'>,
): number {
  let used = 0;
  let n = 0;
  for (const file of files) {
    if (n >= options.maxFiles) break;
    const tokens = meter.countMessage({ role: 'user', content: attachmentText(file) });
    if (used + tokens > options.budgetTokens) continue;
    used += tokens;
    n++;
  }
  return used;
}

/** One line naming the re-attached file copies a summary drops, or '' when it drops none. */
export function droppedFilesNote(items: readonly ContextItem[]): string {
  const paths = [...new Set(items.map((i) => i.attachedFile).filter((p): p is string => p !== undefined))];
  return paths.length === 0
    ? ''
    : `Files re-attached earlier, their copies now dropped (read them again for current contents): ${paths.join(', ')}`;
}
