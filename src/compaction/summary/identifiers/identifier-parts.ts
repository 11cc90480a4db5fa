/**
 * Identifiers of a text read in parts: each part (a message's text, a tool call's arguments) is read
 * once and its identifiers kept, and the identifiers of the parts joined with `\n` are their merge,
 * when no identifier can reach across a join. Lets the compactor avoid re-reading the whole span.
 *
 * Pure: no I/O, no model calls.
 */
import {
  COMMAND_ARRAY_RE,
  COMMAND_STRING_RE,
  extractIdentifiers,
  hasExceptionLine,
  tracebackAwaitsException,
} from './identifiers';

/** Openers of a command string or array in JSON text (scanned overlapping, see {@link identifiersOfPart}). */
const COMMAND_OPENER_RE = /"(?:command|cmd|script)"\s*:\s*"/y;
const COMMAND_ARRAY_OPENER_RE = /"(?:command|cmd)"\s*:\s*\[/y;
/** A text that ends inside the opener of a command string or array. */
const COMMAND_TAIL_RE = /"(?:command|cmd|script)"\s*(?::\s*)?$/;

/** Identifiers of one part of a longer text (see {@link identifiersOfPart}). */
export interface PartIdentifiers {
  /** `extractIdentifiers(part)`. */
  ids: string[];
  /**
   * True when no identifier of the joined text can start in this part and end after it, and no
   * Traceback in it waits for its exception line: `!commandOpen && !openTraceback`.
   */
  sealed: boolean;
  /**
   * True when a command string or array of the joined text may start in this part and end after it:
   * only the command patterns (their strings and arrays may hold line breaks) reach across a line break.
   */
  commandOpen: boolean;
  /**
   * True when the part's last Traceback has no exception line in it: the joined text's identifiers
   * then hold the first line after the part that is neither indented nor blank, at its place (see
   * {@link identifiersAfterTraceback}). Nothing else of the part reaches past it.
   */
  openTraceback: boolean;
}

/**
 * Identifiers of one part of a text joined with `\n` from parts. When every part but the last is
 * sealed, `extractIdentifiers(parts.join('\n'))` equals the parts' identifiers in order with repeats
 * removed (matches cannot cross the joins, and candidates are ordered by position), so each part can
 * be read once and its result kept. Never throws.
 */
export function identifiersOfPart(part: string): PartIdentifiers {
  const commandOpen = !commandsClosed(part);
  const openTraceback = tracebackAwaitsException(part);
  return { ids: extractIdentifiers(part), sealed: !commandOpen && !openTraceback, commandOpen, openTraceback };
}

/** The line a Traceback opens with; it yields no identifier of its own (only its exception line does). */
const TRACEBACK_LINE = 'Traceback (most recent call last):';

/**
 * {@link identifiersOfPart} for `part` read after a part whose Traceback is open (see
 * {@link PartIdentifiers.openTraceback}): `own`, the part's identifiers read alone, when no line of it
 * ends that Traceback (then it stays open), else the part read after a Traceback line. A Traceback
 * line yields nothing but its exception line, at that line's place, so the identifiers keep the order
 * they have in the joined text; the state across a join is this one flag, not the text before it.
 */
export function identifiersAfterTraceback(part: string, own: PartIdentifiers): PartIdentifiers {
  if (!hasExceptionLine(part)) return { ...own, sealed: false, openTraceback: true };
  return identifiersOfPart(prefixedWithTraceback(part));
}

/** `part` after a Traceback line, as {@link identifiersAfterTraceback} reads it. */
export function prefixedWithTraceback(part: string): string {
  return `${TRACEBACK_LINE}\n${part}`;
}

/** Merges the identifiers of consecutive parts (see {@link identifiersOfPart}); undefined when a join is not sealed. */
export function mergePartIdentifiers(parts: readonly PartIdentifiers[]): string[] | undefined {
  for (let i = 0; i < parts.length - 1; i++) if (!parts[i].sealed) return undefined;
  const seen = new Set<string>();
  const out: string[] = [];
  for (const p of parts) {
    for (const id of p.ids) {
      if (seen.has(id)) continue;
      seen.add(id);
      out.push(id);
    }
  }
  return out;
}

/** True when every command string or array that opens in `text` also closes in it. */
function commandsClosed(text: string): boolean {
  if (COMMAND_TAIL_RE.test(text)) return false;
  return (
    openersCovered(text, COMMAND_OPENER_RE, COMMAND_STRING_RE) &&
    openersCovered(text, COMMAND_ARRAY_OPENER_RE, COMMAND_ARRAY_RE)
  );
}

/**
 * True when every place `opener` matches (overlapping ones included) lies inside a match of `full`:
 * then no match of `full` that starts in `text` runs past its end.
 */
function openersCovered(text: string, opener: RegExp, full: RegExp): boolean {
  if (!text.includes('"c') && !text.includes('"s')) return true;
  const spans: Array<[number, number]> = [];
  for (const m of text.matchAll(full)) spans.push([m.index, m.index + m[0].length]);
  let k = 0;
  for (let at = text.indexOf('"'); at >= 0; at = text.indexOf('"', at + 1)) {
    opener.lastIndex = at;
    if (!opener.test(text)) continue;
    while (k < spans.length && spans[k][1] <= at) k++;
    if (k >= spans.length || spans[k][0] > at) return false;
  }
  return true;
}
