/**
 * Collects what a format reader finds (drafts, skipped record types, warnings, tools, compactions) and
 * turns it into an {@link ImportedTranscript}: pairing repair, unique ids, compaction spans, counts.
 */
import type { Entry, EntrySource, ToolSchema } from '../compaction/types';
import type { BoundaryDraft, Draft, MessageDraft } from './drafts';
import { pairToolResults, toolCallsOf } from './pairing';
import type { ImportedCompaction, ImportedTranscript, TranscriptFormat } from './types';

/** A compaction whose forgotten records the file names explicitly (ids are draft ids). */
export interface ExplicitCompaction {
  replacedIds: string[];
  summary: string;
  summaryEntryId?: string;
  /** Set when the summary is ContextKeeper's own, read back from a file it wrote (see `ImportedCompaction`). */
  writer?: 'context-keeper';
}

/**
 * Accumulates one file's drafts in file order while a format reader walks it, then {@link finish}
 * builds the canonical transcript. Not reusable: one builder per file. Nothing here throws for
 * malformed content; readers throw `TranscriptError` (file, line, field) themselves.
 */
export class TranscriptBuilder {
  readonly drafts: Draft[] = [];
  readonly skipped: Record<string, number> = {};
  readonly warnings: string[] = [];
  readonly tools: ToolSchema[] = [];
  readonly explicitCompactions: ExplicitCompaction[] = [];
  model?: string;
  contextWindow?: number;
  /**
   * Set by a reader whose draft ids cannot repeat (ids made from array positions): {@link finish}
   * then keeps no set of the ids it has given out (a set of 300k ids is about 17 MB), unless a
   * compaction's ids must be looked up.
   */
  idsUnique = false;

  constructor(
    readonly file: string,
    readonly format: TranscriptFormat,
  ) {}

  /** Counts a record or block of `type` that carries no message. */
  skip(type: string, count = 1): void {
    if (count > 0) this.skipped[type] = (this.skipped[type] ?? 0) + count;
  }

  /** Records a warning shown to the user after import (the message names the line when it can). */
  warn(message: string): void {
    this.warnings.push(message);
  }

  /** Appends a message draft; the first draft naming a model sets {@link model}. */
  add(draft: MessageDraft): void {
    this.drafts.push(draft);
    if (draft.meta.model && !this.model) this.model = draft.meta.model;
  }

  /** Marks a compaction the recording agent made at this point of the file, with its summary text. */
  boundary(boundary: Omit<BoundaryDraft, 'kind'>): void {
    this.drafts.push({ kind: 'boundary', ...boundary });
  }

  /** Source reference for an entry's metadata. */
  source(line: number, recordId?: string): EntrySource {
    return recordId === undefined ? { file: this.file, line } : { file: this.file, line, recordId };
  }

  /** Runs pairing repair and assembles the result. */
  finish(): ImportedTranscript {
    const paired = pairToolResults(this.drafts);
    for (const w of paired.warnings) this.warnings.push(w);

    const entries: Entry[] = [];
    // Final ids in use; only first occurrences that had to be renamed, and the ids made by renaming,
    // are listed apart (a recording with unique ids, the usual case, keeps no second map).
    const unique = this.idsUnique;
    let used = new Set<string>();
    const renamedFirst = new Map<string, string>();
    const madeByRename = new Set<string>();
    const boundaries: Array<{ at: number; boundary: BoundaryDraft }> = [];
    const items = paired.items;
    for (let k = 0; k < items.length; k++) {
      const item = items[k];
      if (item.kind === 'boundary') {
        boundaries.push({ at: entries.length, boundary: item });
        continue;
      }
      let id = item.id;
      if (!unique && used.has(id)) {
        let n = 2;
        while (used.has(`${item.id}#${n}`)) n++;
        id = `${item.id}#${n}`;
        this.warnings.push(`duplicate entry id ${item.id} renamed to ${id}`);
        madeByRename.add(id);
        // The first draft of this id was renamed only when its id had been made by an earlier rename.
        if (madeByRename.has(item.id) && !renamedFirst.has(item.id)) renamedFirst.set(item.id, id);
      }
      if (!unique) used.add(id);
      // One literal per shape: adding `meta` afterwards would give every entry a separate property store.
      entries.push(hasKeys(item.meta) ? { id, message: item.message, meta: item.meta } : { id, message: item.message });
    }
    if (unique && (boundaries.length || this.explicitCompactions.length)) used = new Set(entries.map((e) => e.id));
    // Draft id -> final id of its first occurrence (undefined when no message has that draft id).
    const firstFinal = (id: string) => renamedFirst.get(id) ?? (used.has(id) && !madeByRename.has(id) ? id : undefined);
    const resolve = (id: string) => firstFinal(paired.alias.get(id) ?? id);

    const compactions: ImportedCompaction[] = [];
    let start = 0;
    while (start < entries.length && isSystem(entries[start])) start++;
    for (const { at, boundary } of boundaries) {
      const summaryEntryId = boundary.summaryDraftId !== undefined ? resolve(boundary.summaryDraftId) : undefined;
      const kept = new Set(boundary.keepRecordIds ?? []);
      const compaction: ImportedCompaction = {
        replacedIds: entries
          .slice(start, at)
          .filter((e) => !kept.has(e.meta?.source?.recordId ?? ''))
          .map((e) => e.id),
        summary: boundary.summary,
      };
      if (summaryEntryId) compaction.summaryEntryId = summaryEntryId;
      compactions.push(compaction);
      const next = summaryEntryId ? entries.findIndex((e) => e.id === summaryEntryId) : -1;
      // What the agent kept at this boundary is part of what its next boundary may forget.
      const firstKept = kept.size
        ? entries.findIndex((e, i) => i >= start && i < at && kept.has(e.meta?.source?.recordId ?? ''))
        : -1;
      start = firstKept >= 0 ? firstKept : next >= 0 ? next : at;
    }
    const position = this.explicitCompactions.length ? positions(entries) : new Map<string, number>();
    for (const explicit of this.explicitCompactions) {
      const ids = new Set<string>();
      for (const raw of explicit.replacedIds) {
        const id = resolve(raw);
        if (id !== undefined) ids.add(id);
      }
      const missing = explicit.replacedIds.filter((raw) => resolve(raw) === undefined).length;
      if (missing) this.warnings.push(`compaction names ${missing} record(s) that hold no message; ignored`);
      const replacedIds = [...ids].sort((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0));
      const compaction: ImportedCompaction = { replacedIds, summary: explicit.summary };
      const summaryEntryId = explicit.summaryEntryId !== undefined ? resolve(explicit.summaryEntryId) : undefined;
      if (summaryEntryId) compaction.summaryEntryId = summaryEntryId;
      if (explicit.writer) compaction.writer = explicit.writer;
      compactions.push(compaction);
    }

    const stats = { messages: entries.length, toolCalls: 0, toolResults: 0, images: 0 };
    for (const entry of entries) {
      stats.toolCalls += toolCallsOf(entry.message).length;
      if (entry.message.role === 'tool') stats.toolResults++;
      const content = entry.message.content;
      if (Array.isArray(content)) {
        for (const part of content) if ((part as { type?: string }).type === 'image_url') stats.images++;
      }
    }

    const result: ImportedTranscript = {
      format: this.format,
      file: this.file,
      entries,
      tools: this.tools,
      skipped: this.skipped,
      compactions,
      stats,
      warnings: this.warnings,
    };
    if (this.model) result.model = this.model;
    if (this.contextWindow) result.contextWindow = this.contextWindow;
    return result;
  }
}

/** Entry id -> index. */
function positions(entries: readonly Entry[]): Map<string, number> {
  const map = new Map<string, number>();
  for (let i = 0; i < entries.length; i++) map.set(entries[i].id, i);
  return map;
}

function isSystem(entry: Entry): boolean {
  return entry.message.role === 'system' || entry.message.role === 'developer';
}

/** True when `o` has an own enumerable property (as `Object.keys(o).length > 0`, without the array). */
function hasKeys(o: object): boolean {
  for (const k in o) if (Object.prototype.hasOwnProperty.call(o, k)) return true;
  return false;
}
