/**
 * Output a person pasted into a request (a dev server's log, a stack trace, a terminal session) and
 * its condensed form: the first thing of a request the requests section shortens, before any request
 * is shortened or left out, since the person's own words around it say what they ask and the whole
 * output stays readable in the replaced messages.
 *
 * A line is output when it has the shape a program prints and a person does not type: a stack frame,
 * a code frame (`> 13 |`), a prompt (`C:\app>`, `$ `), a time stamp, a logger's level or tag, a
 * bracket or a `key: value` field alone, an HTTP access line, a line of a CLI's symbols, a printed
 * error (`TypeError: …`), or few letters among its characters. A few short lines between parts of
 * output belong to the output (an error message the log printed, "Caused by:"). A block of at least
 * {@link MIN_BLOCK_LINES} such lines and {@link MIN_BLOCK_CHARS} characters that holds a line only a
 * program writes ({@link SIGNAL_LINE}: a person's indented list or pasted code is no log) keeps its
 * first and last {@link EDGE_LINES} lines and its first error line; a marker says how many lines and
 * characters were left out and where to read them.
 *
 * Pure: no I/O.
 */
import { ownCopy } from '../../tokenizer/own-copy';

/** Fewest lines of a block of pasted output that is condensed. */
const MIN_BLOCK_LINES = 8;
/** Fewest characters of a block of pasted output that is condensed. */
const MIN_BLOCK_CHARS = 400;
/** Lines kept at each end of a condensed block. */
const EDGE_LINES = 2;
/** Characters a kept line of output is shown with, at most (a longer one is cut at its end). */
const KEPT_LINE_CHARS = 240;
/** Characters of lines left out below which they are kept instead (a marker is about as long). */
const SHORT_RUN_CHARS = 140;
/** Share of a request's characters in pasted output from which the request is mostly output. */
const MOSTLY_OUTPUT_SHARE = 0.75;

/**
 * Lines only a program writes: a stack frame, a code frame (`> 13 |`), a Windows or shell prompt, a
 * time stamp, a logger's bracketed tag (`[Server HMR] …`) or level, an HTTP access line, a CLI's
 * status symbols, npm's and compilers' markers, a printed error (`TypeError: …`). A block of output
 * holds at least one, so a person's indented list or pasted code is never taken for a log.
 */
const SIGNAL_LINE = [
  /^\s*at\s+\S/,
  /^\s*(?:>\s*)?\d+\s*\|/,
  /^\s*[A-Za-z]:\\[^>\n]*>/,
  /^\s*[$#%]\s+\S/,
  /^\s*\[?\d{4}[-/]\d\d[-/]\d\d[T ]?|^\s*\[?\d\d:\d\d:\d\d/,
  /^\s*\[[^\]\n]{2,40}\]\s/,
  /^\s*(?:FATAL|ERROR|WARN(?:ING)?|INFO|DEBUG|TRACE)\b[:\s]/,
  /^\s*(?:GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS)\s+\/\S*/,
  /^\s*[✓✔✗✘×⚠▲►●○·└├│─╭╰┌⨯]/,
  /^\s*(?:npm (?:ERR!|WARN)|error\[|warning:|Traceback \(most recent call last\))/i,
  /^\s*(?:\w+\.)*\w*(?:Error|Exception)\b(?: \[\w+\])?:/,
];

/** Further shapes of a line a program prints: a caret line, a bracket or a `key: value` field alone, a rule. */
const OUTPUT_LINE = [
  ...SIGNAL_LINE,
  /^\s*\|/,
  /^\s{2,}[\w$.-]+:\s/,
  /^\s*[{}[\]()]+[,;]?\s*$/,
  /^\s*[\w$.-]+:\s+(?:['"\d-]|\[|\{|true\b|false\b|null\b|undefined\b)/,
  /^\s*(?:-{3,}|={3,})\s*$/,
];

/** Most lines, and characters, of the person's words between two parts of output taken for the output's own. */
const FOLDED_LINES = 3;
const FOLDED_CHARS = 300;

/** A line that names an error (kept when its block is condensed). */
const ERROR_LINE =
  /\b(?:error|exception|failed|failure|fatal|panic|denied|refused|forbidden|unauthorized|ECONN\w+|ENOENT|EACCES|timed? ?out|cannot|could not|not found)\b/i;

/** Whether `line` has the shape of output (see {@link OUTPUT_LINE}), or few letters among its characters. */
function isOutputLine(line: string): boolean {
  if (OUTPUT_LINE.some((re) => re.test(line))) return true;
  const chars = line.replace(/\s/g, '');
  if (chars.length < 8) return false;
  const letters = (chars.match(/[A-Za-z]/g) ?? []).length;
  return letters / chars.length < 0.5;
}

/** One block of output lines, `[start, end)` line indices, both ends output lines. */
interface Block {
  start: number;
  end: number;
}

/** The blocks of pasted output of `lines` (see the file's comment), in order. */
function outputBlocks(lines: readonly string[]): Block[] {
  const kind = lines.map((l) => (l.trim() === '' ? 'blank' : isOutputLine(l) ? 'out' : 'prose'));
  // A few short lines between parts of output are the output's (an error message a log printed,
  // "Caused by:"): a run of at most FOLDED_LINES lines of FOLDED_CHARS characters.
  for (let i = 0; i < lines.length; i++) {
    if (kind[i] !== 'prose') continue;
    let q = i;
    let count = 0;
    let chars = 0;
    while (q < lines.length && kind[q] !== 'out') {
      if (kind[q] === 'prose') {
        count++;
        chars += lines[q].length;
      }
      q++;
    }
    let p = i - 1;
    while (p >= 0 && kind[p] === 'blank') p--;
    if (p >= 0 && kind[p] === 'out' && q < lines.length && count <= FOLDED_LINES && chars <= FOLDED_CHARS)
      for (let k = i; k < q; k++) if (kind[k] === 'prose') kind[k] = 'out';
    i = q;
  }
  const out: Block[] = [];
  let start = -1;
  let last = -1;
  for (let i = 0; i <= lines.length; i++) {
    const k = i < lines.length ? kind[i] : 'prose';
    if (k === 'out') {
      if (start < 0) start = i;
      last = i;
    } else if (k === 'prose' && start >= 0) {
      out.push({ start, end: last + 1 });
      start = -1;
    }
  }
  return out.filter((b) => {
    const body = lines.slice(b.start, b.end);
    return (
      body.filter((l) => l.trim()).length >= MIN_BLOCK_LINES &&
      body.join('\n').length >= MIN_BLOCK_CHARS &&
      body.some((l) => SIGNAL_LINE.some((re) => re.test(l)))
    );
  });
}

/** Regular expression source of the marker {@link pastedOutputMarker} writes (its figures any). */
export const PASTED_MARKER_SOURCE =
  '\\[… [\\d,]+ lines? \\([\\d,]+ characters\\) of pasted output left out; read them in the replaced messages \\(last line\\) …\\]';

/** `n` with a comma between groups of three digits. */
function grouped(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
}

/**
 * The marker put where lines of pasted output were left out: how many lines and characters, and
 * where they are (the summary's last line points at its replaced messages).
 */
export function pastedOutputMarker(lines: number, chars: number): string {
  return `[… ${grouped(lines)} line${lines === 1 ? '' : 's'} (${grouped(chars)} characters) of pasted output left out; read them in the replaced messages (last line) …]`;
}

/** A kept line of output, cut at its end past {@link KEPT_LINE_CHARS} characters. */
function keptLine(line: string): string {
  return line.length <= KEPT_LINE_CHARS ? line : `${line.slice(0, KEPT_LINE_CHARS).trimEnd()}…`;
}

/**
 * `text` with each block of pasted output condensed: its first and last {@link EDGE_LINES} lines and
 * its first error line ({@link ERROR_LINE}) kept, a {@link pastedOutputMarker} for each run of lines
 * left out. The person's own lines stay whole. `text` itself when it holds no such block.
 */
export function condensePastedOutput(text: string): string {
  let hit = condensed.get(text);
  if (hit !== undefined) return hit;
  hit = condense(text);
  if (condensed.size > KEPT_TEXTS) condensed.clear();
  // Kept past the text it was read from (an earlier summary's line, a trimmed message): copies.
  const key = ownCopy(text);
  condensed.set(key, (hit = hit === text ? key : ownCopy(hit)));
  return hit;
}

/** Condensed forms by request text: every compaction of a session condenses the same requests. */
const condensed = new Map<string, string>();
/** Most request texts whose condensed forms are kept. */
const KEPT_TEXTS = 20_000;

function condense(text: string): string {
  if (text.length < MIN_BLOCK_CHARS || !text.includes('\n')) return text;
  const lines = text.split('\n');
  const blocks = outputBlocks(lines);
  if (!blocks.length) return text;
  const out: string[] = [];
  let at = 0;
  for (const b of blocks) {
    for (let k = at; k < b.start; k++) out.push(lines[k]);
    const body = lines.slice(b.start, b.end);
    // The first and last lines that hold text (a blank line says nothing of the output).
    const filled = body.map((l, k) => (l.trim() ? k : -1)).filter((k) => k >= 0);
    const keep = new Set<number>([...filled.slice(0, EDGE_LINES), ...filled.slice(-EDGE_LINES)]);
    const error = body.findIndex((l, k) => !keep.has(k) && ERROR_LINE.test(l));
    if (error >= 0) keep.add(error);
    let run: string[] = [];
    const flush = () => {
      const left = run.filter((l) => l.trim());
      // A run no longer than its marker would be is kept: leaving it out would save nothing.
      if (run.join('\n').length <= SHORT_RUN_CHARS) for (const l of run) out.push(l);
      else if (left.length) out.push(pastedOutputMarker(left.length, run.join('\n').length));
      run = [];
    };
    for (let k = 0; k < body.length; k++) {
      if (keep.has(k)) {
        flush();
        out.push(keptLine(body[k]));
      } else run.push(body[k]);
    }
    flush();
    at = b.end;
  }
  for (let k = at; k < lines.length; k++) out.push(lines[k]);
  const result = out.join('\n');
  if (result.length >= text.length) return text;
  if (text.length - result.length >= MOSTLY_OUTPUT_SHARE * text.length) mostlyOutput.add(result);
  return result;
}

/** Condensed requests whose text was mostly pasted output (see {@link isMostlyPastedOutput}). */
const mostlyOutput = new Set<string>();

/**
 * Whether `text` is the condensed form ({@link condensePastedOutput}) of a request that was mostly
 * pasted output: at least {@link MOSTLY_OUTPUT_SHARE} of its characters were left out.
 */
export function isMostlyPastedOutput(text: string): boolean {
  if (mostlyOutput.size > KEPT_TEXTS) mostlyOutput.clear();
  return mostlyOutput.has(text);
}
