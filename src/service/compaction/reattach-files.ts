/**
 * Reads the files a compaction re-attaches after its summary, from the workspace through the tool
 * host (the same boundary checks as the agent's `read_file`), never from the history: the history
 * holds what a file was, the workspace what it is. Which files and in what order is decided by the
 * pure core (`compaction/reattach.ts`); this module only reads.
 */
import type { ContextItem } from '../../compaction/types';
import { CandidateScan, type AttachedFile, type ReattachCandidate } from '../../compaction/rewrite/reattach';
import { resolveInside, toRelative } from '../../agent/paths';
import type { ToolHost } from '../../agent/types';
import { TimeSlices } from '../../lifecycle/time-slices';

/** Limits of one read, from the settings (`contextKeeper.reattachBudget`, `reattachMaxFiles`). */
export interface ReattachLimits {
  /** Most files to return. */
  maxFiles: number;
  /** Tokens the files may take together; a file alone over it is not returned. */
  budgetTokens: number;
}

/**
 * Characters per token assumed to skip files before counting them exactly: no tokenizer yields
 * fewer than one token per 8 characters of source text, so a longer file cannot fit.
 */
const MAX_CHARS_PER_TOKEN = 8;

/**
 * Milliseconds of scanning per turn of the event loop: the scan of a 1M-token context takes tens of
 * milliseconds on the extension host's thread, so it yields (setImmediate) after each such slice.
 */
export const SCAN_SLICE_MS = 8;

/**
 * {@link CandidateScan} over `items`, yielding to the event loop every {@link SCAN_SLICE_MS}; the
 * same candidates as `reattachCandidates(items)`. Stops early (returns none) when `signal` aborts.
 */
export async function scanCandidates(
  items: readonly ContextItem[],
  signal?: AbortSignal,
): Promise<ReattachCandidate[]> {
  const scan = new CandidateScan(items);
  let sliceStart = performance.now();
  while (!scan.done) {
    scan.step(32);
    if (!scan.done && performance.now() - sliceStart >= SCAN_SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (signal?.aborted) return [];
      sliceStart = performance.now();
    }
  }
  return scan.candidates();
}

/**
 * The items of `items` that show the session's own work: files re-attached by its earlier compactions,
 * and messages whose raw entry `own` accepts (see `ownEntryTest`). Summaries are left out (their
 * files are not candidates anyway). Read in slices of {@link SCAN_SLICE_MS}, the first in a turn of
 * its own.
 */
export async function ownWork(
  items: readonly ContextItem[],
  own: (entryId: string | undefined) => boolean,
): Promise<ContextItem[]> {
  const out: ContextItem[] = [];
  const slices = new TimeSlices(SCAN_SLICE_MS);
  await slices.turn();
  for (let at = 0; at < items.length; at += 1024) {
    if (slices.due()) await slices.turn();
    for (let k = at, end = Math.min(items.length, at + 1024); k < end; k++) {
      const it = items[k];
      if (it.attachedFile !== undefined || (it.kind !== 'summary' && own(it.covers[0]))) out.push(it);
    }
  }
  return out;
}

/**
 * Reads the most recently touched files of `items` (see `reattachCandidates`, scanned in slices by {@link scanCandidates}) that exist, lie
 * inside the workspace (real paths, symlinks resolved), are text, and alone fit `budgetTokens`
 * (`countTokens` counts a file's text, in tokens); at most `maxFiles`, most recent first, with
 * workspace-relative paths. Missing (deleted), unreadable and outside files are skipped; at most
 * three candidates per file returned are tried, so a long history costs a bounded number of reads.
 * Never throws for a single file; stops early when `signal` aborts.
 */
export async function readReattachFiles(
  host: ToolHost,
  items: readonly ContextItem[],
  limits: ReattachLimits,
  countTokens: (text: string) => number,
  signal?: AbortSignal,
): Promise<AttachedFile[]> {
  if (limits.maxFiles <= 0 || limits.budgetTokens <= 0) return [];
  const out: AttachedFile[] = [];
  const seen = new Set<string>();
  let tries = 0;
  for (const candidate of await scanCandidates(items, signal)) {
    if (out.length >= limits.maxFiles || tries >= limits.maxFiles * 3 || signal?.aborted) break;
    tries++;
    let absolute: string;
    try {
      absolute = await resolveInside(
        host.root,
        candidate.path,
        (p) => host.realpath(p),
        host.readlink ? (p) => host.readlink!(p) : undefined,
      );
    } catch {
      continue; // outside the workspace, or a link loop
    }
    const path = toRelative(host.root, absolute);
    if (seen.has(path)) continue;
    seen.add(path);
    let text: string;
    try {
      text = await host.readFile(absolute, signal);
    } catch {
      continue; // deleted since, a folder, too large or unreadable
    }
    if (text.includes('\u0000')) continue; // binary
    if (text.length > limits.budgetTokens * MAX_CHARS_PER_TOKEN || countTokens(text) > limits.budgetTokens) continue;
    out.push({ path, text, ...(candidate.shownBy ? { shownBy: candidate.shownBy } : {}) });
  }
  return out;
}
