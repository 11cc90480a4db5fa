/**
 * Identifiers of a text read in parts: each part (a message's text, a tool call's arguments) is read
 * once and its identifiers kept, and the identifiers of the parts joined with `\n` are their merge,
 * when no identifier can reach across a join. Lets the compactor avoid re-reading the whole span.
 *
 * Pure: no I/O, no model calls.
 */
import { COMMAND_ARRAY_RE, COMMAND_STRING_RE, extractIdentifiers } from './identifiers';

/** Openers of a command string or array in JSON text (scanned overlapping, see {@link identifiersOfPart}). */
const COMMAND_OPENER_RE = /"(?:command|cmd|script)"\s*:\s*"/y;
const COMMAND_ARRAY_OPENER_RE = /"(?:command|cmd)"\s*:\s*\[/y;
/** A text that ends inside the opener of a command string or array. */
const COMMAND_TAIL_RE = /"(?:command|cmd|script)"\s*(?::\s*)?$/;
const TRACEBACK = 'Traceback (most recent call last)';

/** Identifiers of one part of a longer text (see {@link identifiersOfPart}). */
export interface PartIdentifiers {
  /** `extractIdentifiers(part)`. */
  ids: string[];
  /**
   * True when no identifier of the joined text can start in this part and end after it. Only the
   * command patterns (their strings and arrays may hold line breaks) and a Traceback (its exception
   * line comes after it) can reach across a line break; every other pattern stops at one.
   */
  sealed: boolean;
}

/**
 * Identifiers of one part of a text joined with `\n` from parts. When every part but the last is
 * sealed, `extractIdentifiers(parts.join('\n'))` equals the parts' identifiers in order with repeats
 * removed (matches cannot cross the joins, and candidates are ordered by position), so each part can
 * be read once and its result kept. Never throws.
 */
export function identifiersOfPart(part: string): PartIdentifiers {
  return { ids: extractIdentifiers(part), sealed: isSealed(part) };
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

function isSealed(text: string): boolean {
  if (COMMAND_TAIL_RE.test(text)) return false;
  if (
    !openersCovered(text, COMMAND_OPENER_RE, COMMAND_STRING_RE) ||
    !openersCovered(text, COMMAND_ARRAY_OPENER_RE, COMMAND_ARRAY_RE)
  )
    return false;
  const last = text.lastIndexOf(TRACEBACK);
  if (last >= 0) {
    // The last Traceback needs its exception line inside the part (earlier ones then have one too).
    const rest = text.slice(last);
    const lines = rest.split(/\n|\\n/).slice(1);
    if (!lines.some((l) => !/^\s/.test(l) && l.trim().length > 0)) return false;
  }
  return true;
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
