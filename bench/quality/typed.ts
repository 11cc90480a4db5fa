/**
 * The reviewed list of typed user messages per shared transcript (bench/quality/typed-messages.json).
 * The transcripts may not be copied into the project, so the list stores locators, not text: the
 * entry (index and id as the importer numbers them), a character span of that entry's text, a
 * SHA-256 of the span's normalized text and its word count. {@link resolveTyped} reads the text back
 * from the transcript and fails loudly when the transcript or the importer no longer matches.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fingerprint, messageText, words, type PlainMessage } from './text';

/** One candidate span: a typed message (typed: true) or a reviewed exclusion (typed: false). */
export interface TypedRecord {
  /** Index of the entry in the importer's entries (after pairing repair, as `loadSession` returns them). */
  index: number;
  /** The entry's id as the importer gives it (line, uuid or array index). */
  id: string;
  /** Start of the span in the entry's text, in characters (UTF-16 code units) of `messageText`. */
  start: number;
  /** Length of the span, in characters. */
  length: number;
  /** SHA-256 (hex) of the span's normalized text. */
  sha256: string;
  /** Words of the span (ICU word segments; see text.ts). */
  words: number;
  /** True: a message a person typed. False: reviewed and left out (see note). */
  typed: boolean;
  /** The rule or the reviewer's reason for the verdict. */
  note: string;
}

/** The records of one transcript. */
export interface TypedTranscript {
  /** Path under the shared transcripts folder, e.g. `cline/x.json`. */
  file: string;
  /** Entries the importer produced when the list was made; a change means the locators may be stale. */
  entries: number;
  records: TypedRecord[];
}

/** The whole data file. */
export interface TypedData {
  about: string;
  transcripts: TypedTranscript[];
}

/** A typed message read back from its transcript. */
export interface TypedMessage {
  index: number;
  id: string;
  text: string;
  words: number;
}

/** Location of the data file inside the repository. */
export function typedDataPath(root: string): string {
  return path.join(root, 'bench/quality/typed-messages.json');
}

/** Reads the data file. Throws Error naming the file when it is missing or malformed. */
export function readTypedData(file: string): TypedData {
  let data: TypedData;
  try {
    data = JSON.parse(fs.readFileSync(file, 'utf8')) as TypedData;
  } catch (e) {
    throw new Error(`${file}: cannot read the typed-message list: ${(e as Error).message}`);
  }
  if (!Array.isArray(data?.transcripts)) throw new Error(`${file}: field "transcripts" must be an array`);
  return data;
}

/**
 * Reads the typed messages of `t` back from the imported `entries`. Throws Error naming the
 * transcript, record and field on the first locator that does not match (entry count, id, span or
 * fingerprint), so a changed transcript or importer cannot silently change the benchmark.
 */
export function resolveTyped(
  t: TypedTranscript,
  entries: ReadonlyArray<{ id: string; message: PlainMessage }>,
): TypedMessage[] {
  if (entries.length !== t.entries)
    throw new Error(
      `${t.file}: the importer gives ${entries.length} entries, the typed-message list was made from ${t.entries}; review the list again (npm run bench:typed)`,
    );
  const out: TypedMessage[] = [];
  for (const [k, r] of t.records.entries()) {
    const where = `${t.file}: record ${k} (entry ${r.index})`;
    const e = entries[r.index];
    if (!e || e.id !== r.id)
      throw new Error(`${where}: field "id" is ${r.id}, the entry there is ${e?.id ?? 'missing'}`);
    const text = messageText(e.message).slice(r.start, r.start + r.length);
    if (fingerprint(text) !== r.sha256)
      throw new Error(`${where}: field "sha256" does not match the text at ${r.start}+${r.length}`);
    const n = words(text).length;
    if (n !== r.words) throw new Error(`${where}: field "words" is ${r.words}, the text has ${n}`);
    if (r.typed) out.push({ index: r.index, id: r.id, text, words: n });
  }
  return out;
}
