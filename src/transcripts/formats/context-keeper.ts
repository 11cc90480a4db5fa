/**
 * ContextKeeper's own session transcript: the append-only `transcript.jsonl` of a session folder,
 * one entry `{id, message, meta?}` per line. Entry ids and metadata are kept as written, so a
 * session recorded by the extension or the demo can be metered, compacted and replayed by the
 * command-line tool like any other recording. Also the JSON document of Export Transcript, whose
 * `entries` are read the same way (its `messages`, the compacted context only, are not).
 */
import type { EntryMeta } from '../../compaction/types';
import type { TranscriptBuilder } from '../builder';
import { checkMessage } from '../openai-messages';
import { TranscriptError, fieldPath } from '../errors';

/**
 * Reads a session transcript the way the session store loads it after a crash: a line that is not
 * valid JSON (a write torn by a crash, a damaged line) and a repeated entry id are skipped with a
 * warning naming the line, and the rest is read.
 * @throws TranscriptError (line of the record, field path) for a parsed record that is malformed
 */
export function readContextKeeper(text: string, builder: TranscriptBuilder, document?: unknown): void {
  const exported = exportedDocument(document);
  if (exported) {
    readExport(exported, builder);
    return;
  }
  const lines = text.split('\n');
  const seen = new Set<string>();
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      const torn = lines.slice(index + 1).every((l) => l.trim() === '');
      builder.warn(
        `${builder.file}:${line}: ${torn ? 'incomplete last line (interrupted write)' : 'not valid JSON'}; skipped`,
      );
      return;
    }
    readEntry(value, line, [], seen, builder);
  });
}

/** The document of Export Transcript (`format: "context-keeper/transcript"`), if `document` is one. */
function exportedDocument(
  document: unknown,
): { entries: unknown[]; model?: unknown; checkpoints?: unknown } | undefined {
  const doc = document as { format?: unknown; entries?: unknown } | null | undefined;
  return doc && typeof doc === 'object' && doc.format === EXPORT_FORMAT && Array.isArray(doc.entries)
    ? (doc as { entries: unknown[] })
    : undefined;
}

/** What Export Transcript writes in `format`; detection reads such a document as this format. */
export const EXPORT_FORMAT = 'context-keeper/transcript';

/**
 * An exported session: every raw entry, ids and metadata kept. Its checkpoints are not taken over
 * (the context is rebuilt from the entries, as for any recording), and a warning says so.
 */
function readExport(
  doc: { entries: unknown[]; model?: unknown; checkpoints?: unknown },
  builder: TranscriptBuilder,
): void {
  if (typeof doc.model === 'string' && doc.model) builder.model = doc.model;
  const seen = new Set<string>();
  doc.entries.forEach((value, k) => readEntry(value, 1, ['entries', k], seen, builder));
  const checkpoints = Array.isArray(doc.checkpoints) ? doc.checkpoints.length : 0;
  if (checkpoints > 0)
    builder.warn(
      `${builder.file}: an exported session; its ${checkpoints} checkpoint(s) are not taken over, the context is rebuilt from its ${doc.entries.length} messages`,
    );
}

/** One entry `{id, message, meta?}` at `line` (`at`: its field path in a document). */
function readEntry(
  value: unknown,
  line: number,
  at: Array<string | number>,
  seen: Set<string>,
  builder: TranscriptBuilder,
): void {
  const fault = (path: Array<string | number>, detail: string) =>
    new TranscriptError(builder.file, line, fieldPath([...at, ...path]), detail);
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw fault([], 'record is not a JSON object');
  const record = value as Record<string, unknown>;
  if (typeof record.id !== 'string' || !record.id) throw fault(['id'], 'entry has no id');
  const where = at.length ? `${builder.file}: ${fieldPath(at)}` : `${builder.file}:${line}`;
  if (seen.has(record.id)) {
    builder.warn(`${where}: duplicate entry id ${record.id}; skipped`);
    return;
  }
  seen.add(record.id);
  const checked = checkMessage(record.message, ['message'], fault);
  for (const note of [...checked.cleaned, ...checked.contentNotes]) builder.warn(`${where}: ${note}`);
  const recorded = record.meta && typeof record.meta === 'object' ? (record.meta as EntryMeta) : {};
  const meta: EntryMeta = { ...recorded, source: builder.source(line, record.id) };
  if (checked.imageSizes.length) meta.imageSizes = checked.imageSizes;
  if (typeof recorded.model === 'string' && !builder.model) builder.model = recorded.model;
  builder.add({ kind: 'message', id: record.id, meta, message: checked.message });
}
