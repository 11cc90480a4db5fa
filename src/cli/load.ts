/**
 * Loads a recorded transcript for the command-line tool: import, pairing repair, and the
 * recording agent's own compactions applied as `import` checkpoints.
 */
import fs from 'node:fs';
import { importTranscript } from '../transcripts';
import type { ImportedTranscript } from '../transcripts/types';
import type { Checkpoint, ContextItem, Entry } from '../compaction/types';
import { TokenMeter } from '../compaction/meter/meter';
import { itemsFromEntries } from '../compaction/context';
import { repairToolPairing } from '../compaction/plan/repair';
import { applyRecordedCompactions } from '../compaction/rewrite/imported';

/** A transcript ready for metering, compaction or replay. */
export interface LoadedSession {
  transcript: ImportedTranscript;
  /** Raw entries after pairing repair. */
  entries: Entry[];
  /** The raw entries as `raw` items, in order (the active context before the recording's own compactions). */
  rawItems: ContextItem[];
  /** The active context as the recording agent last had it (its own compactions applied). */
  items: ContextItem[];
  importCheckpoints: Checkpoint[];
  meter: TokenMeter;
  model: string;
  warnings: string[];
}

/** Reads `file`. Throws TranscriptError (file, line, field) for malformed input. */
export async function loadSession(file: string, model?: string): Promise<LoadedSession> {
  if (fs.statSync(file).isDirectory()) throw new Error(`${file} is a directory; give a transcript file`);
  const transcript = await importTranscript(file);
  // A recording that ended on a tool call gets a placeholder result, so the output is sendable.
  const repaired = repairToolPairing(transcript.entries, { closeTrailing: true });
  const chosen = model ?? transcript.model ?? 'gpt-4o';
  // A short-lived process: the first count may load the tokenizer's table synchronously (nothing else waits on this thread).
  const meter = new TokenMeter({ model: chosen });
  const rawItems = itemsFromEntries(repaired.entries);
  const applied = applyRecordedCompactions(rawItems, transcript.compactions, meter, transcript.tools);
  return {
    transcript,
    entries: repaired.entries,
    rawItems,
    items: applied.items,
    importCheckpoints: applied.checkpoints,
    meter,
    model: chosen,
    warnings: [...transcript.warnings, ...repaired.warnings, ...applied.warnings],
  };
}
