/**
 * `recall FILE [QUERY]`: search a recorded session's raw transcript, including what its agent's own
 * compactions replaced (checkpoints `import-1`, `import-2`… as `compact` names them), or read a range
 * of it with `--read FROM[-TO]`. Without a query or `--read`, lists the recorded compactions, and
 * names a summary ContextKeeper wrote into a file it output (`compact --out`) as such.
 * Output is bounded and masked like the agent's history tools (`src/recall`).
 */
import fs from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { importTranscript } from '../transcripts';
import { repairToolPairing } from '../compaction/plan/repair';
import { indexSource, readHistory, recallSourceOfImport, renderRead, renderSearch, searchHistory } from '../recall';
import { spans } from '../recall/read';
import { scopeOf } from '../recall/messages';

type Out = (line: string) => void;

/** Options of {@link recallCommand}. */
export interface RecallOptions {
  /** Only the messages this checkpoint replaced. */
  checkpoint?: string;
  /** `--read FROM[-TO]`: 1-based message positions. */
  read?: { from: number; to?: number };
  /** Characters of the first message read to skip. */
  offset?: number;
  maxResults?: number;
  json?: boolean;
}

/** Parses `--read`: `37` or `37-40`. */
export function parseRange(value: string): { from: number; to?: number } {
  const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(value);
  if (!m || Number(m[1]) < 1)
    throw new InvalidArgumentError(`expected a message number or range such as 37 or 37-40, got "${value}"`);
  return { from: Number(m[1]), ...(m[2] !== undefined ? { to: Number(m[2]) } : {}) };
}

/**
 * Runs `recall`. Prints the search or read result (JSON with `--json`).
 * @throws TranscriptError for a malformed file (file, line, field); RecallError for an unknown
 *   checkpoint, an empty query or a range outside the transcript; Error when both a query and
 *   `--read` are given
 */
export async function recallCommand(
  file: string,
  query: string | undefined,
  o: RecallOptions,
  out: Out,
): Promise<void> {
  if (fs.statSync(file).isDirectory()) throw new Error(`${file} is a directory; give a transcript file`);
  if (query !== undefined && o.read) throw new Error('give either a QUERY to search or --read FROM[-TO], not both');
  const transcript = await importTranscript(file);
  // The messages `compact` and the extension work on (the same pairing repair: a placeholder result
  // for each unanswered tool call), so positions here are the ones their checkpoints give.
  const { entries } = repairToolPairing(transcript.entries, { closeTrailing: true });
  const index = indexSource(recallSourceOfImport({ entries, compactions: transcript.compactions }));
  const base = `context-keeper recall ${quoteArg(file)}`;
  const withCheckpoint = (cp: string | undefined) => (cp ? ` --checkpoint ${cp}` : '');
  if (query !== undefined) {
    const result = searchHistory(index, { query, checkpoint: o.checkpoint, maxResults: o.maxResults });
    if (o.json) return out(JSON.stringify(result, null, 2));
    const first = result.hits[0];
    out(
      renderSearch(
        result,
        first
          ? `Whole messages: ${base} --read ${first.index}${withCheckpoint(o.checkpoint)} (any FROM-TO range).`
          : '',
      ),
    );
    return;
  }
  if (o.read || o.checkpoint !== undefined) {
    const result = readHistory(index, { checkpoint: o.checkpoint, ...o.read, offset: o.offset });
    if (o.json) return out(JSON.stringify(result, null, 2));
    out(
      renderRead(
        result,
        (next) =>
          `${base} --read ${next.from}${o.read?.to !== undefined ? `-${o.read.to}` : ''}${withCheckpoint(o.checkpoint)}${next.offset > 0 ? ` --offset ${next.offset}` : ''}`,
      ),
    );
    return;
  }
  const ours = new Map(
    transcript.compactions.flatMap((c, n) => (c.writer === 'context-keeper' ? [[`import-${n + 1}`, c.summary]] : [])),
  );
  const checkpoints = [...index.byCheckpoint.keys()].map((id) => ({
    id,
    messages: spans(scopeOf(index, id)),
    writtenBy: ours.has(id) ? ('ContextKeeper' as const) : ('recording agent' as const),
  }));
  if (o.json)
    return out(JSON.stringify({ format: transcript.format, messages: index.messages.length, checkpoints }, null, 2));
  out(`${transcript.format} session, ${index.messages.length} messages.`);
  if (checkpoints.every((c) => ours.has(c.id))) out('The recording agent made no compaction of its own.');
  for (const c of checkpoints) {
    const summary = ours.get(c.id);
    if (summary === undefined) {
      out(`checkpoint ${c.id} replaced messages ${c.messages}`);
      continue;
    }
    // The summary's own last line says where the messages it stands for can be read.
    const pointer = summary.trimEnd().split('\n').at(-1)?.trim() ?? '';
    out(
      `summary ${c.id} (message ${c.messages}) written by ContextKeeper: an earlier compaction's summary, read back from a file compact --out or replay --out wrote; it stands for messages this file does not hold${/^\[The .* replaced messages? /.test(pointer) ? `. ${pointer}` : ''}`,
    );
  }
  out(`Search with ${base} QUERY; read with ${base} --read FROM-TO or --checkpoint ID.`);
}

function quoteArg(s: string): string {
  return /^[\w./@%+=:,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
