/**
 * ContextKeeper's own session transcript: the append-only `transcript.jsonl` of a session folder,
 * one entry `{id, message, meta?}` per line. Entry ids and metadata are kept as written, so a
 * session recorded by the extension or the demo can be metered, compacted and replayed by the
 * command-line tool like any other recording.
 */
import type { EntryMeta } from '../../compaction/types';
import type { TranscriptBuilder } from '../builder';
import { parseJsonLines } from '../json';
import { checkMessage } from '../openai-messages';
import { TranscriptError, fieldPath } from '../errors';

/** Reads a session transcript. @throws TranscriptError (line of the record, field path) */
export function readContextKeeper(text: string, builder: TranscriptBuilder): void {
  for (const { line, value } of parseJsonLines(text, builder.file)) {
    const fault = (path: Array<string | number>, detail: string) => new TranscriptError(builder.file, line, fieldPath(path), detail);
    if (typeof value.id !== 'string' || !value.id) throw fault(['id'], 'entry has no id');
    const checked = checkMessage(value.message, ['message'], fault);
    const recorded = value.meta && typeof value.meta === 'object' ? (value.meta as EntryMeta) : {};
    const meta: EntryMeta = { ...recorded, source: builder.source(line, value.id) };
    if (checked.imageSizes.length) meta.imageSizes = checked.imageSizes;
    if (typeof recorded.model === 'string' && !builder.model) builder.model = recorded.model;
    builder.add({ kind: 'message', id: value.id, meta, message: checked.message });
  }
}
