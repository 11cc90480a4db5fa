/**
 * JSON and JSON Lines parsing that reports where a fault is: the 1-based line of a broken record, and
 * for a parsed document the line where a given value starts (for field-level errors).
 */
import { TranscriptError, fieldPath } from './errors';
import { errorMessage } from '../format/error-message';

/** One parsed JSON Lines record with its 1-based line. */
export interface JsonLine {
  line: number;
  value: Record<string, unknown>;
}

/**
 * Parses JSON Lines: one JSON object per non-blank line.
 *
 * A last line that stops mid-value is what a writer still appending to the file leaves (an agent's
 * live session log): when `onCutLastLine` is given, that line is left out and reported through it
 * with its 1-based line number, so the complete records before it are read; otherwise it is an error.
 * @throws TranscriptError for invalid JSON (`invalid JSON: …`), a cut-off last line (`truncated JSON
 *   line`, only without `onCutLastLine`) or a record that is not an object
 */
export function parseJsonLines(text: string, file: string, onCutLastLine?: (line: number) => void): JsonLine[] {
  const out: JsonLine[] = [];
  const lines = text.split('\n');
  const lastNonBlank = findLastNonBlank(lines);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (cause) {
      const message = errorMessage(cause);
      // A last line that stops mid-value is what an interrupted writer leaves behind.
      const truncated = i === lastNonBlank && /end of JSON input|Unterminated string/i.test(message);
      if (truncated && onCutLastLine && out.length > 0) {
        onCutLastLine(i + 1);
        continue;
      }
      throw new TranscriptError(file, i + 1, '', truncated ? 'truncated JSON line' : `invalid JSON: ${message}`, {
        cause,
      });
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new TranscriptError(file, i + 1, '', 'record is not a JSON object');
    }
    out.push({ line: i + 1, value: value as Record<string, unknown> });
  }
  return out;
}

function findLastNonBlank(lines: string[]): number {
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i].trim() !== '') return i;
  return -1;
}

/**
 * Parses one JSON document.
 * @throws TranscriptError with the line of the syntax error (from the parser's reported position)
 */
export function parseJsonDocument(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    const message = errorMessage(cause);
    const match = /position (\d+)/.exec(message);
    const offset = match ? Number(match[1]) : text.length;
    throw new TranscriptError(file, lineAt(text, offset), '', `invalid JSON: ${message}`, { cause });
  }
}

/** 1-based line of a character offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  let i = text.indexOf('\n');
  while (i !== -1 && i < offset) {
    line++;
    i = text.indexOf('\n', i + 1);
  }
  return line;
}

/**
 * A thrower for field errors in a JSON document: finds the line where the value at `path` starts
 * (falling back to the nearest parent that exists) and raises a TranscriptError naming the field.
 */
export function documentFault(text: string, file: string) {
  return (path: ReadonlyArray<string | number>, detail: string): TranscriptError => {
    for (let n = path.length; n >= 0; n--) {
      const offset = valueOffset(text, path.slice(0, n));
      if (offset !== undefined) return new TranscriptError(file, lineAt(text, offset), fieldPath(path), detail);
    }
    return new TranscriptError(file, 0, fieldPath(path), detail);
  };
}

/** Character offset where the value at `path` starts, or undefined when the path does not exist. */
export function valueOffset(text: string, path: ReadonlyArray<string | number>): number | undefined {
  let pos = skipSpace(text, 0);
  for (const key of path) {
    const open = text[pos];
    if (typeof key === 'number') {
      if (open !== '[') return undefined;
      pos = skipSpace(text, pos + 1);
      for (let index = 0; ; index++) {
        if (text[pos] === ']' || pos >= text.length) return undefined;
        if (index === key) break;
        pos = skipSpace(text, skipValue(text, pos));
        if (text[pos] !== ',') return undefined;
        pos = skipSpace(text, pos + 1);
      }
    } else {
      if (open !== '{') return undefined;
      pos = skipSpace(text, pos + 1);
      for (;;) {
        if (text[pos] !== '"') return undefined;
        const end = skipString(text, pos);
        const name = JSON.parse(text.slice(pos, end)) as string;
        pos = skipSpace(text, end);
        if (text[pos] !== ':') return undefined;
        pos = skipSpace(text, pos + 1);
        if (name === key) break;
        pos = skipSpace(text, skipValue(text, pos));
        if (text[pos] !== ',') return undefined;
        pos = skipSpace(text, pos + 1);
      }
    }
  }
  return pos;
}

function skipSpace(text: string, pos: number): number {
  while (pos < text.length) {
    const c = text.charCodeAt(pos);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    pos++;
  }
  return pos;
}

/** Offset just past the string starting at `pos` (which holds the opening quote). */
function skipString(text: string, pos: number): number {
  let i = pos + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (c === '"') return i + 1;
    else i++;
  }
  return text.length;
}

/** Offset just past the value starting at `pos`. */
function skipValue(text: string, pos: number): number {
  const c = text[pos];
  if (c === '"') return skipString(text, pos);
  if (c === '{' || c === '[') {
    let depth = 0;
    let i = pos;
    while (i < text.length) {
      const d = text[i];
      if (d === '"') {
        i = skipString(text, i);
        continue;
      }
      if (d === '{' || d === '[') depth++;
      else if (d === '}' || d === ']') {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    return text.length;
  }
  let i = pos;
  while (i < text.length && !',]} \n\r\t'.includes(text[i])) i++;
  return i;
}

/**
 * The `onCutLastLine` handler of {@link parseJsonLines} for format readers: a warning, shown after
 * import, that names the line left out.
 */
export function cutLastLineWarning(sink: { warn(message: string): void }): (line: number) => void {
  return (line) =>
    sink.warn(
      `line ${line}: the last record stops mid-value (the session may still be being written); it was left out and the records before it were read`,
    );
}
