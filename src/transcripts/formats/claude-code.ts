/**
 * Claude Code session JSONL (`~/.claude/projects/<dir>/<session>.jsonl`), see transcripts/README.md.
 *
 * - Only `user` and `assistant` records carry messages; every other record type is counted in `skipped`
 *   by type. Sub-agent records (`isSidechain`) are counted as `sidechain`.
 * - One API response is written as several `assistant` lines with the same `message.id`; they merge into
 *   one assistant message (pairing.ts), and `usage` (input + cache read + cache write) becomes
 *   `meta.reportedPromptTokens` of that message (an all-zero usage is none: the agent's own records).
 * - `tool_result` blocks become tool messages; other text in the same user record becomes a user message
 *   after them. A user record marked `isMeta` (written by Claude Code, not typed) keeps the mark as
 *   `meta.harnessText`.
 * - Rewinds leave abandoned branches in the `parentUuid` tree: records that are neither on the chain of
 *   the last message nor part of a response / tool result on it are dropped and counted as
 *   `abandoned-branch`. When the chain is broken the file order is used as is.
 * - `system` `compact_boundary` + the following `isCompactSummary` user record make one imported
 *   compaction; the summary stays as an entry marked `importedSummary`. Messages the agent kept at the
 *   boundary (newer versions: `compactMetadata.preservedSegment` names the first and last kept record,
 *   written before the boundary; the records after the summary continue from the last) stay in the
 *   imported context; the boundary and its summary are live when the record they follow is.
 * - A new root (`parentUuid: null`) that no boundary or rewind explains (a line appended to the file,
 *   a session continued into the same file) continues the records before it rather than abandoning
 *   them: only a record that points at an earlier parent makes a branch.
 */
import type { EntryMeta } from '../../compaction/types';
import { mapAnthropicContent, toolImageMessage, type BlockContext } from '../anthropic';
import type { TranscriptBuilder } from '../builder';
import { userContent } from '../drafts';
import { TranscriptError, fieldPath } from '../errors';
import { cutLastLineWarning, parseJsonLines, type JsonLine } from '../json';
import { withArticle } from '../article';
import { roleFault } from '../notes';
import { plainText } from '../../compaction/content-text';

type Rec = Record<string, unknown>;

/** The model Claude Code names on the records it writes itself rather than receives from a model. */
export const SYNTHETIC_MODEL = '<synthetic>';

/** Reads a Claude Code session. @throws TranscriptError (line and field of the bad record) */
export function readClaudeCode(text: string, builder: TranscriptBuilder): void {
  const records = parseJsonLines(text, builder.file, cutLastLineWarning(builder));
  const live = liveRecords(records, builder);
  let pendingBoundary: { id: string; keep?: string[] } | undefined;

  for (const { line, value: rec } of records) {
    const type = typeof rec.type === 'string' ? rec.type : 'unknown';
    const ctx: BlockContext = {
      fault: (path, detail) => new TranscriptError(builder.file, line, fieldPath(path), detail),
      skip: (t, n) => builder.skip(t, n),
      warn: (path, detail) => builder.warn(`${builder.file}:${line}: ${fieldPath(path)}: ${detail}`),
    };
    if (type !== 'user' && type !== 'assistant') {
      if (type === 'system' && rec.subtype === 'compact_boundary') {
        const keep = preservedRecords(records, rec);
        pendingBoundary = {
          id: typeof rec.uuid === 'string' ? rec.uuid : `L${line}`,
          ...(keep.length ? { keep } : {}),
        };
      }
      builder.skip(type);
      continue;
    }
    if (rec.isSidechain === true) {
      builder.skip('sidechain');
      continue;
    }
    if (live && !live.has(rec)) {
      builder.skip('abandoned-branch');
      continue;
    }
    const message = rec.message as Rec | undefined;
    if (!message || typeof message !== 'object') throw ctx.fault(['message'], 'record has no message object');
    if (message.role === undefined || message.role === null)
      throw ctx.fault(['message', 'role'], roleFault(message.role, [type]));
    if (message.role !== type) {
      throw ctx.fault(
        ['message', 'role'],
        `unknown role ${JSON.stringify(message.role)} in ${withArticle(type)} record`,
      );
    }
    const id = typeof rec.uuid === 'string' && rec.uuid ? rec.uuid : `L${line}`;
    const meta: EntryMeta = { source: builder.source(line, id) };
    if (typeof rec.timestamp === 'string') meta.timestamp = rec.timestamp;
    const blocks = mapAnthropicContent(message.content, ['message', 'content'], ctx);

    if (type === 'assistant') {
      // '<synthetic>' marks a record Claude Code wrote itself (after a compaction, an interruption): no model.
      if (typeof message.model === 'string' && message.model !== SYNTHETIC_MODEL) meta.model = message.model;
      const prompt = promptTokens(message.usage);
      if (prompt !== undefined) meta.reportedPromptTokens = prompt;
      const text = plainText(blocks.parts, '\n\n');
      builder.add({
        kind: 'message',
        id,
        meta,
        responseKey: typeof message.id === 'string' ? message.id : undefined,
        message: blocks.toolCalls.length
          ? { role: 'assistant', content: text || null, tool_calls: blocks.toolCalls }
          : { role: 'assistant', content: text },
      });
      continue;
    }

    const single = blocks.toolResults.length === 1 && blocks.parts.length === 0;
    for (const result of blocks.toolResults) {
      const resultId = single ? id : `${id}/${result.toolUseId}`;
      const image = toolImageMessage(result.toolUseId, result.images);
      builder.add({
        kind: 'message',
        id: resultId,
        meta: { ...meta, toolOk: !result.isError },
        message: { role: 'tool', tool_call_id: result.toolUseId, content: result.text },
        attachment: image && {
          kind: 'message',
          id: `${resultId}/images`,
          meta: { ...meta, imageSizes: image.imageSizes },
          message: image.message,
        },
      });
    }
    if (blocks.parts.length === 0) continue;
    const userId = blocks.toolResults.length ? `${id}/text` : id;
    if (blocks.imageSizes.length) meta.imageSizes = blocks.imageSizes;
    // Claude Code marks what it injects in the user role (caveats, command output) as not typed.
    if (rec.isMeta === true && rec.isCompactSummary !== true) meta.harnessText = true;
    if (rec.isCompactSummary === true) {
      meta.importedSummary = true;
      builder.boundary({
        id: pendingBoundary?.id ?? `${id}/boundary`,
        summary: plainText(blocks.parts, '\n\n'),
        summaryDraftId: userId,
        ...(pendingBoundary?.keep ? { keepRecordIds: pendingBoundary.keep } : {}),
      });
      pendingBoundary = undefined;
    }
    builder.add({ kind: 'message', id: userId, meta, message: { role: 'user', content: userContent(blocks.parts) } });
  }
  if (pendingBoundary) {
    builder.boundary({ id: pendingBoundary.id, summary: '' });
    builder.warn('the session ends with a compaction boundary but no summary');
  }
}

function promptTokens(usage: unknown): number | undefined {
  if (!usage || typeof usage !== 'object') return undefined;
  const u = usage as Record<string, unknown>;
  if (typeof u.input_tokens !== 'number') return undefined;
  const add = (v: unknown) => (typeof v === 'number' ? v : 0);
  const total = u.input_tokens + add(u.cache_read_input_tokens) + add(u.cache_creation_input_tokens);
  // Every real request sends some prompt: an all-zero usage is one of the agent's own records (the
  // notes it writes after a compaction or an interruption), not a measure of the context.
  return total > 0 ? total : undefined;
}

/**
 * Records on the live branch: the `parentUuid` chain of the last message, plus lines of the same API
 * responses and the tool results answering them (parallel calls hang off each other, not off the chain).
 * Undefined when the chain cannot be followed (resumed sessions reference records of another file).
 */
function liveRecords(records: JsonLine[], builder: TranscriptBuilder): Set<Rec> | undefined {
  const byUuid = new Map<string, Rec>();
  const position = new Map<Rec, number>();
  const messages: Rec[] = [];
  let last: Rec | undefined;
  for (const { value } of records) {
    if (typeof value.uuid === 'string') byUuid.set(value.uuid, value);
    if ((value.type === 'user' || value.type === 'assistant') && value.isSidechain !== true) {
      last = value;
      position.set(value, messages.length);
      messages.push(value);
    }
  }
  if (!last) return undefined;
  const chain = new Set<Rec>();
  let continued = 0;
  for (let rec: Rec | undefined = last; rec;) {
    if (chain.has(rec)) break;
    chain.add(rec);
    const parent = rec.parentUuid ?? rec.logicalParentUuid;
    if (typeof parent !== 'string') {
      // A new root mid-file with nothing marking a rewind: it continues the message before it.
      const at = position.get(rec);
      const before = at !== undefined && at > 0 ? messages[at - 1] : undefined;
      if (!before || chain.has(before)) break;
      continued++;
      rec = before;
      continue;
    }
    rec = byUuid.get(parent);
    if (!rec) {
      builder.warn(`parent record ${parent} is not in the file; branches are not resolved, file order is used`);
      return undefined;
    }
  }
  if (continued)
    builder.warn(
      `${continued} record(s) start a new chain without a parent; read as continuing the records before them`,
    );
  // With a preserved segment the records after the summary continue from the segment's tail, so the
  // walk passes the boundary and its summary by: they are live when what they follow is.
  for (const { value } of records) {
    if (value.type !== 'system' || value.subtype !== 'compact_boundary') continue;
    const follows = preservedSegment(value)?.tailUuid ?? value.logicalParentUuid;
    const before = typeof follows === 'string' ? byUuid.get(follows) : undefined;
    if (before && chain.has(before)) chain.add(value);
  }
  for (const rec of messages) {
    const boundary =
      rec.isCompactSummary === true && typeof rec.parentUuid === 'string' ? byUuid.get(rec.parentUuid) : undefined;
    if (boundary && chain.has(boundary)) chain.add(rec);
  }
  const responses = new Set<string>();
  const calls = new Set<string>();
  for (const rec of chain) {
    const message = rec.message as Rec | undefined;
    if (rec.type === 'assistant' && message && typeof message.id === 'string') responses.add(message.id);
  }
  const live = new Set<Rec>();
  for (const { value } of records) {
    const message = value.message as Rec | undefined;
    if (value.type === 'assistant' && (chain.has(value) || (message && responses.has(message.id as string)))) {
      live.add(value);
      if (message && Array.isArray(message.content)) {
        for (const b of message.content as Rec[])
          if (b && b.type === 'tool_use' && typeof b.id === 'string') calls.add(b.id);
      }
    }
  }
  let dropped = 0;
  for (const { value } of records) {
    if (value.type !== 'user' || value.isSidechain === true) continue;
    const message = value.message as Rec | undefined;
    const content = message && Array.isArray(message.content) ? (message.content as Rec[]) : [];
    const answersLive = content.some((b) => b && b.type === 'tool_result' && calls.has(b.tool_use_id as string));
    if (chain.has(value) || answersLive) live.add(value);
    else dropped++;
  }
  for (const { value } of records) {
    if (value.type === 'assistant' && value.isSidechain !== true && !live.has(value)) dropped++;
  }
  if (dropped) builder.warn(`${dropped} record(s) on abandoned branches (rewinds) were dropped`);
  return live;
}

/** `compactMetadata.preservedSegment` of a compact boundary record, when it names its head. */
function preservedSegment(rec: Rec): { headUuid: string; anchorUuid?: string; tailUuid?: string } | undefined {
  if (rec.type !== 'system' || rec.subtype !== 'compact_boundary') return undefined;
  const meta = rec.compactMetadata as Rec | undefined;
  const seg = meta && typeof meta === 'object' ? (meta.preservedSegment as Rec | undefined) : undefined;
  if (!seg || typeof seg !== 'object' || typeof seg.headUuid !== 'string') return undefined;
  return {
    headUuid: seg.headUuid,
    ...(typeof seg.anchorUuid === 'string' ? { anchorUuid: seg.anchorUuid } : {}),
    ...(typeof seg.tailUuid === 'string' ? { tailUuid: seg.tailUuid } : {}),
  };
}

/**
 * Record ids of the messages a compact boundary kept: the user and assistant records from its
 * preserved segment's head to its tail, in file order (they were written before the boundary, in
 * sequence; parallel tool results hang off each other, so file order is more reliable than the
 * chain). Empty when the boundary keeps nothing or its head is not in the file.
 */
function preservedRecords(records: JsonLine[], boundary: Rec): string[] {
  const seg = preservedSegment(boundary);
  if (!seg) return [];
  const out: string[] = [];
  let inside = false;
  for (const { value } of records) {
    if (value === boundary) break;
    if (value.uuid === seg.headUuid) inside = true;
    if (
      inside &&
      (value.type === 'user' || value.type === 'assistant') &&
      value.isSidechain !== true &&
      typeof value.uuid === 'string'
    )
      out.push(value.uuid);
    if (inside && seg.tailUuid !== undefined && value.uuid === seg.tailUuid) break;
  }
  return out;
}
