/**
 * Transcript importers: recorded sessions of other coding agents -> canonical entries (OpenAI chat
 * messages with stable ids), tool schemas and the agents' own compactions. Pure: reads the file it is
 * given and writes nothing. Formats and their mapping rules are documented in `formats/*.ts`.
 */
import { parsesAsJson } from '../format/json';
import { readFile, stat } from 'node:fs/promises';
import { TranscriptBuilder } from './builder';
import { decodeUtf8, MAX_TEXT_CHARS, tooLargeError } from './decode';
import { detectWithDocument } from './detect';
import { TranscriptError } from './errors';
import { readAider } from './formats/aider';
import { readClaudeCode } from './formats/claude-code';
import { readCline } from './formats/cline';
import { readCodex } from './formats/codex';
import { readOpenAIChat, streamOpenAIChat } from './formats/openai-chat';
import { readOpenHands } from './formats/openhands';
import { readSweAgent } from './formats/swe-agent';
import { readContextKeeper } from './formats/context-keeper';
import { parseJsonDocument, parseJsonLines } from './json';
import type { ImportOptions, ImportedTranscript, TranscriptFormat } from './types';

export { detectFormat } from './detect';
export { TranscriptError } from './errors';
export { TRANSCRIPT_FORMATS } from './types';
export type { ImportOptions, ImportedCompaction, ImportedTranscript, TranscriptFormat, TranscriptStats } from './types';

/** Readers by format; `document` is the text already parsed as one JSON document, when detection did. */
const READERS: Record<TranscriptFormat, (text: string, builder: TranscriptBuilder, document?: unknown) => void> = {
  'claude-code': readClaudeCode,
  codex: readCodex,
  openhands: readOpenHands,
  'swe-agent': readSweAgent,
  aider: readAider,
  cline: readCline,
  'openai-chat': readOpenAIChat,
  'context-keeper': readContextKeeper,
};

/**
 * Imports a recorded transcript from disk.
 * @param file path of the transcript; also used in error messages and `meta.source.file`
 * @throws TranscriptError for unreadable content (invalid UTF-8 or JSON, truncated line, unknown role,
 *   tool result without id, unrecognised format), naming file, line and field
 */
export async function importTranscript(file: string, options: ImportOptions = {}): Promise<ImportedTranscript> {
  // A plain array of chat messages (the largest recordings) is read element by element; any other
  // content, and any fault, is read whole.
  if (options.format === undefined || options.format === 'openai-chat') {
    const streamed = await streamOpenAIChat(file, options.format !== undefined);
    if (streamed) return streamed.finish();
  }
  // The bytes are let go once decoded, and the text and its parsed form once read: a large
  // recording is then not held two or three times over while its entries are assembled.
  let bytes: Uint8Array;
  try {
    // A file past the engine's text limit is refused before it is read into memory.
    const size = (await stat(file)).size;
    if (size > 3 * MAX_TEXT_CHARS) throw tooLargeError(file, size);
    bytes = await readFile(file);
  } catch (error) {
    // Node refuses files over 2 GiB in one buffer (ERR_FS_FILE_TOO_LARGE).
    if ((error as { code?: unknown }).code === 'ERR_FS_FILE_TOO_LARGE')
      throw tooLargeError(file, (await stat(file)).size, MAX_TEXT_CHARS, error);
    throw error;
  }
  return readTranscript(decodeUtf8(bytes, file), file, options).finish();
}

/**
 * Imports a transcript held in memory (the VS Code side reads files through its own file system API).
 * Same result and errors as {@link importTranscript}; `fileName` only names the source.
 */
export async function importTranscriptText(
  text: string | Uint8Array,
  fileName: string,
  options: ImportOptions = {},
): Promise<ImportedTranscript> {
  return Promise.resolve(importTranscriptTextSync(text, fileName, options));
}

/**
 * The synchronous form of {@link importTranscriptText}, for callers that re-import a small piece of
 * a file on every update (the live watcher). Same result and errors.
 */
export function importTranscriptTextSync(
  text: string | Uint8Array,
  fileName: string,
  options: ImportOptions = {},
): ImportedTranscript {
  return readTranscript(text, fileName, options).finish();
}

/** Decodes, detects and reads `text` into a builder (see {@link importTranscriptTextSync}). */
function readTranscript(text: string | Uint8Array, fileName: string, options: ImportOptions): TranscriptBuilder {
  const decoded = decodeUtf8(text, fileName);
  const detected = options.format ? { format: options.format } : detectWithDocument(decoded, fileName);
  const format = detected.format;
  if (!format) {
    // An empty file is a common mistake (a redirect that failed): say so instead of "unrecognised".
    if (decoded.trim() === '')
      throw new TranscriptError(
        fileName,
        1,
        '',
        decoded.length === 0
          ? 'the file is empty: a transcript holds at least one message'
          : 'the file holds only white space: a transcript holds at least one message',
      );
    reportSyntaxError(decoded, fileName);
    throw new TranscriptError(
      fileName,
      1,
      '',
      'unrecognised transcript format (expected Claude Code, Codex, OpenHands, SWE-agent, Aider, Cline, OpenAI chat or a ContextKeeper session transcript)',
    );
  }
  const builder = new TranscriptBuilder(fileName, format);
  READERS[format](decoded, builder, detected.document);
  return builder;
}

/**
 * Content that looks like JSON but matched no format is usually broken JSON: report where it breaks
 * rather than "unrecognised format".
 */
function reportSyntaxError(text: string, fileName: string): void {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return;
  const lines = trimmed.split('\n').filter((l) => l.trim() !== '');
  const firstLineIsRecord = lines.length > 1 && lines[0].trim().startsWith('{') && parsesAsJson(lines[0]);
  if (firstLineIsRecord) parseJsonLines(text, fileName);
  else parseJsonDocument(text, fileName);
}
