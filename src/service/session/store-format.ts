/**
 * The stored forms of a session folder's files and their parsing (see store.ts for the folder's
 * layout): transcript lines, the state file, and the rebuilding of the in-memory state from them.
 */
import { z } from 'zod';
import type { ContextItem, Entry, ToolSchema } from '../../compaction/types';
import type { CheckpointRecord, RestoreUndo } from '../records';
import { rawItem } from '../../compaction/context';

import { toStored, type StoredItem } from './stored-text';

export { toStored, type StoredItem };

/** A checkpoint as stored: its replaced/inserted items in {@link StoredItem} form. */
export type StoredCheckpoint = Omit<CheckpointRecord, 'replaced' | 'inserted'> & {
  replaced: StoredItem[];
  inserted: StoredItem[];
};

/** Contents of `state.json`. */
export interface StoredState {
  format: 'context-keeper/session-state';
  version: 1;
  sessionId: string;
  model: string;
  /** Where the conversation came from ("Agent session", "Imported: …"). */
  source: string;
  createdAt: string;
  updatedAt: string;
  context: StoredItem[];
  pinned: string[];
  checkpoints: StoredCheckpoint[];
  /** The undo of the latest restore while it can be undone (see {@link RestoreUndo}); absent otherwise. */
  restoreUndo?: StoredRestoreUndo;
  /** The tool schemas an imported recording holds; absent when it holds none, and for other sessions. */
  recordedTools?: ToolSchema[];
}

/** A {@link RestoreUndo} as stored: the context it brings back in {@link StoredItem} form. */
export interface StoredRestoreUndo {
  context: StoredItem[];
  id: string;
  undone: string[];
  length: number;
}

/** What a session folder saved, in memory: `state.json` resolved against the transcript's entries. */
export interface SavedSessionState {
  sessionId: string;
  model: string;
  source: string;
  createdAt: string;
  context: ContextItem[];
  pinned: string[];
  checkpoints: CheckpointRecord[];
  undo?: RestoreUndo;
  recordedTools?: ToolSchema[];
}

/** The stored form of an active-context item: raw items by reference. */

/** A content part as stored: any object with a `type` (text, image_url, file, provider parts). */
const PART = z.looseObject({ type: z.string() });
const PARTS = z.array(PART);
/** A tool call as the Chat Completions API takes it back (`type` is `function` when present). */
const TOOL_CALL = z.looseObject({
  id: z.string().min(1),
  type: z.string().optional(),
  function: z.looseObject({ name: z.string().min(1), arguments: z.string() }),
});

/**
 * The stored form of one message, per role (OpenAI Chat Completions message shapes, as
 * `transcripts/openai-messages.ts` checks imported ones): system, developer and user messages carry
 * text or parts; an assistant message carries text, parts or null, and tool calls (a non-empty list of
 * well-formed calls) when it has no text; a tool message answers a `tool_call_id`. Provider fields
 * beside these are kept as written (reasoning fields are sent back as recorded).
 */
export const STORED_MESSAGE = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('system'), content: z.union([z.string(), PARTS]) }),
  z.looseObject({ role: z.literal('developer'), content: z.union([z.string(), PARTS]) }),
  z.looseObject({ role: z.literal('user'), content: z.union([z.string(), PARTS]) }),
  z
    .looseObject({
      role: z.literal('assistant'),
      content: z.union([z.string(), PARTS, z.null()]).optional(),
      tool_calls: z.array(TOOL_CALL).optional(),
    })
    .refine(
      (m) => (m.content ?? undefined) !== undefined || (m.tool_calls?.length ?? 0) > 0 || typeof m.refusal === 'string',
      {
        message: 'an assistant message without content has no tool calls',
        path: ['content'],
      },
    ),
  z.looseObject({ role: z.literal('tool'), tool_call_id: z.string().min(1), content: z.union([z.string(), PARTS]) }),
]);

/** One transcript line: an entry with a stable id, its message and metadata (never sent). */
export const STORED_ENTRY = z.looseObject({
  id: z.string().min(1),
  message: STORED_MESSAGE,
  meta: z.looseObject({}).optional(),
});

/** `message.tool_calls[0].id` for a zod issue path. */
function fieldName(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`;
  return out || '(the line)';
}

/** What a transcript line failed, in words: `field "message.tool_calls[0]": expected object, received null`. */
function describeIssue(value: unknown, error: z.ZodError): string {
  // An unknown role matches no member of the union: say so rather than list every member.
  const role = (value as { message?: { role?: unknown } } | null)?.message?.role;
  const issue = error.issues[0];
  if (issue.code === 'invalid_union' && ['message', 'message.role'].includes(issue.path.join('.')))
    return `field "message.role": unknown role ${JSON.stringify(role)}`;
  return `field "${fieldName(issue.path)}": ${issue.message}`;
}

/**
 * Parses the transcript text. Every line is checked against {@link STORED_ENTRY}; a line that is not
 * JSON, does not have the stored shape (an unknown role, content of the wrong type, a tool call that
 * is null or has no id...) or repeats an id is skipped and reported with the file, the line and the
 * field. Pairing around a skipped line is repaired by `store-repair.ts`.
 * @returns the entries in file order, the warnings (one sentence each) and each entry's 1-based line
 */
export function parseTranscript(
  text: string,
  file: string,
): { entries: Entry[]; warnings: string[]; lineOf: Map<string, number> } {
  const entries: Entry[] = [];
  const warnings: string[] = [];
  const lineOf = new Map<string, number>();
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `${file}:${index + 1}`;
    const torn = index === lines.length - 1;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      warnings.push(`${where}: ${torn ? 'incomplete last line (interrupted write)' : 'not valid JSON'}; skipped`);
      return;
    }
    const checked = STORED_ENTRY.safeParse(value);
    if (!checked.success) {
      const id = (value as { id?: unknown } | null)?.id;
      const named = typeof id === 'string' && id ? ` (entry ${id})` : '';
      warnings.push(`${where}: ${describeIssue(value, checked.error)}${named}; skipped`);
      return;
    }
    const entry = value as Entry;
    if (lineOf.has(entry.id)) {
      warnings.push(`${where}: duplicate entry id ${entry.id}; skipped`);
      return;
    }
    lineOf.set(entry.id, index + 1);
    entries.push(entry);
  });
  return { entries, warnings, lineOf };
}

/**
 * Rebuilds the in-memory state from a stored one. Throws Error naming the field when the shape is
 * wrong, or when a reference points at a missing entry and no `lost` list is given (the caller then
 * tries the fallback). With `lost`, references to missing entries are dropped and their ids pushed
 * there (an entry whose transcript line was damaged), so the rest of the state survives.
 */
export function resolveState(stored: StoredState, entries: readonly Entry[], lost?: string[]): SavedSessionState {
  if (
    stored?.format !== 'context-keeper/session-state' ||
    !Array.isArray(stored.context) ||
    !Array.isArray(stored.checkpoints)
  ) {
    throw new Error('field "format", "context" or "checkpoints" is missing or wrong');
  }
  const byId = new Map(entries.map((e) => [e.id, e]));
  const resolve = (item: StoredItem, field: string): ContextItem | undefined => {
    if (typeof item.ref === 'string') {
      const entry = byId.get(item.ref);
      if (!entry) {
        // With `lost`, an entry whose line was damaged is left out instead of failing the whole state.
        if (!lost) throw new Error(`${field}: entry ${item.ref} is not in the transcript`);
        lost.push(item.ref);
        return undefined;
      }
      return { ...rawItem(entry), ...(item.pinned ? { pinned: true } : {}) };
    }
    const full = item as ContextItem;
    if (typeof full.id !== 'string' || typeof full.message !== 'object' || !Array.isArray(full.covers))
      throw new Error(`${field}: malformed item`);
    if (lost && full.covers.some((id) => !byId.has(id))) {
      for (const id of full.covers) if (!byId.has(id)) lost.push(id);
      return { ...full, covers: full.covers.filter((id) => byId.has(id)) };
    }
    return full;
  };
  // Resolve each raw reference to one shared object per id, so identical items compare equal by
  // reference across the context and the checkpoints (and the meter's cache hits).
  const shared = new Map<string, ContextItem>();
  const resolveShared = (item: StoredItem, field: string): ContextItem | undefined => {
    const key = typeof item.ref === 'string' ? `${item.ref}|${item.pinned ? 1 : 0}` : undefined;
    if (key === undefined) return resolve(item, field);
    let hit = shared.get(key);
    if (!hit) {
      hit = resolve(item, field);
      if (hit) shared.set(key, hit);
    }
    return hit;
  };
  const present = (x: ContextItem | undefined): x is ContextItem => x !== undefined;
  const context = stored.context.map((item, i) => resolveShared(item, `context[${i}]`)).filter(present);
  const checkpoints: CheckpointRecord[] = stored.checkpoints.map((cp, i) => ({
    ...cp,
    replacedIds: lost ? cp.replacedIds.filter((id) => byId.has(id)) : cp.replacedIds,
    replaced: cp.replaced.map((item, k) => resolveShared(item, `checkpoints[${i}].replaced[${k}]`)).filter(present),
    inserted: cp.inserted.map((item, k) => resolveShared(item, `checkpoints[${i}].inserted[${k}]`)).filter(present),
  }));
  const undo = resolveUndo(stored.restoreUndo, (item, k) => resolveShared(item, `restoreUndo.context[${k}]`));
  return {
    sessionId: stored.sessionId,
    model: stored.model,
    source: stored.source,
    createdAt: stored.createdAt,
    context,
    pinned: Array.isArray(stored.pinned) ? stored.pinned.filter((p) => typeof p === 'string') : [],
    checkpoints,
    ...(undo ? { undo } : {}),
    ...(Array.isArray(stored.recordedTools) && stored.recordedTools.length
      ? { recordedTools: stored.recordedTools }
      : {}),
  };
}

/**
 * The stored undo of a restore, resolved; undefined when there is none, or when it is malformed or
 * names a message the transcript lost: the undo is a convenience, and the state loads without it.
 */
function resolveUndo(
  stored: StoredRestoreUndo | undefined,
  resolve: (item: StoredItem, index: number) => ContextItem | undefined,
): RestoreUndo | undefined {
  if (stored === undefined || stored === null) return undefined;
  const { context, id, undone, length } = stored;
  if (!Array.isArray(context) || typeof id !== 'string' || !Array.isArray(undone) || !Number.isSafeInteger(length))
    return undefined;
  if (!undone.every((u) => typeof u === 'string')) return undefined;
  try {
    const items = context.map(resolve);
    if (!items.every((i): i is ContextItem => i !== undefined)) return undefined;
    return { context: items, event: { id, undone: [...undone] }, length };
  } catch {
    return undefined;
  }
}

/**
 * Raw entries neither in `context` nor covered by an active (not restored) checkpoint: the ones
 * appended after the state was last written. Returned in transcript order.
 */
export function unaccountedEntries(
  entries: readonly Entry[],
  context: readonly ContextItem[],
  checkpoints: readonly CheckpointRecord[],
): Entry[] {
  const covered = new Set<string>();
  for (const item of context) for (const id of item.covers) covered.add(id);
  for (const cp of checkpoints) {
    if (cp.restored) continue;
    for (const id of cp.replacedIds) covered.add(id);
  }
  return entries.filter((e) => !covered.has(e.id));
}
