/**
 * ContextKeeper's own session transcript: the append-only `transcript.jsonl` of a session folder,
 * one entry `{id, message, meta?}` per line. Entry ids and metadata are kept as written, so a
 * session recorded by the extension or the demo can be metered, compacted and replayed by the
 * command-line tool like any other recording.
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
export function readContextKeeper(text: string, builder: TranscriptBuilder): void {
  const lines = text.split('\n');
  const seen = new Set<string>();
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      const torn = lines.slice(index + 1).every((l) => l.trim() === '');
      builder.warn(`${builder.file}:${line}: ${torn ? 'incomplete last line (interrupted write)' : 'not valid JSON'}; skipped`);
      return;
    }
    const fault = (path: Array<string | number>, detail: string) => new TranscriptError(builder.file, line, fieldPath(path), detail);
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw fault([], 'record is not a JSON object');
    if (typeof value.id !== 'string' || !value.id) throw fault(['id'], 'entry has no id');
    if (seen.has(value.id)) {
      builder.warn(`${builder.file}:${line}: duplicate entry id ${value.id}; skipped`);
      return;
    }
    seen.add(value.id);
    const checked = checkMessage(value.message, ['message'], fault);
    for (const note of checked.cleaned) builder.warn(`${builder.file}:${line}: ${note}`);
    const recorded = value.meta && typeof value.meta === 'object' ? (value.meta as EntryMeta) : {};
    const meta: EntryMeta = { ...recorded, source: builder.source(line, value.id) };
    if (checked.imageSizes.length) meta.imageSizes = checked.imageSizes;
    if (typeof recorded.model === 'string' && !builder.model) builder.model = recorded.model;
    builder.add({ kind: 'message', id: value.id, meta, message: checked.message });
  });
}
