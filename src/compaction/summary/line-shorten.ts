/**
 * Shortening one note line (`- Label: content`) to a budget without leaving its label empty: the
 * extractive notes halve their longest lines when the budget is small, and a line cut down to its
 * label ("- Plan or to-do list …: (TodoWrite) 1. …") tells the reader nothing while it claims
 * something is there. Pure: no I/O.
 */
import { clip } from './message-facts';

/** Letters and digits a shortened line keeps at least past its label; with fewer, it goes whole. */
const MIN_CONTENT = 12;

/** Index just past the label of `line`: its first `: ` outside parentheses and «quotes», or 2 (after `- `). */
function contentStart(line: string): number {
  let depth = 0;
  for (let i = 0; i < line.length - 1; i++) {
    const c = line[i];
    if (c === '(' || c === '«') depth++;
    else if ((c === ')' || c === '»') && depth > 0) depth--;
    else if (c === '"' && depth === 0) return 2;
    else if (c === ':' && line[i + 1] === ' ' && depth === 0) return i + 2;
  }
  return line.startsWith('- ') ? 2 : 0;
}

/** The note that stands for a plan's finished items (see {@link openItems}): no content of its own. */
const FINISHED_NOTE = /\d+ finished items? not listed/g;

/**
 * What a line's content says once its markers are removed: a tool's name in parentheses, item
 * numbers, item statuses (`[completed]`), gap markers and quotes; counted in letters and digits.
 */
function contentChars(body: string): number {
  return body
    .replace(/^\(\S+\)\s*/, '')
    .replace(FINISHED_NOTE, ' ')
    .replace(/\b\d+\.\s/g, ' ')
    .replace(/\[[\w -]+\]/g, ' ')
    .replace(/[…"|]/g, ' ')
    .replace(/[^\p{L}\p{N}]+/gu, '').length;
}

/** A plan's items (`1. [completed] a | 2. [pending] b`) without the finished ones, with their count (`all N items finished` when every one is); undefined when none is finished. */
function openItems(body: string): string | undefined {
  const items = body.split(' | ');
  if (items.length < 2) return undefined;
  const done = items.filter((i) => /\[(?:completed|done)\]/i.test(i));
  if (done.length === 0) return undefined;
  // Every item finished: that is the plan's state, in a few words.
  if (done.length === items.length)
    return `${/^\(\S+\)\s*/.exec(items[0])?.[0] ?? ''}all ${items.length} items finished`;
  const tool = /^\(\S+\)\s*/.exec(items[0])?.[0] ?? '';
  const open = items.filter((i) => !done.includes(i)).map((i, k) => (k === 0 ? i.replace(/^\(\S+\)\s*/, '') : i));
  return `${tool}${done.length} finished item${done.length === 1 ? '' : 's'} not listed | ${open.join(' | ')}`;
}

/**
 * `line` shortened to at most about `max` characters: a plan's finished items go first, then the
 * content is cut at a sentence or word end (`clip`, with its marker). Undefined when the content
 * left after the label would hold fewer than {@link MIN_CONTENT} letters and digits: the caller
 * drops the line rather than keep a label with nothing after it.
 */
export function shortenLine(line: string, max: number): string | undefined {
  const at = contentStart(line);
  const head = line.slice(0, at);
  let body = line.slice(at);
  const open = openItems(body);
  if (open !== undefined && open.length < body.length) {
    body = open;
    if (head.length + body.length <= max && (/all \d+ items finished$/.test(body) || contentChars(body) >= MIN_CONTENT))
      return head + body;
  }
  const room = max - head.length;
  if (room <= 0) return undefined;
  const cut = clip(body, room);
  return contentChars(cut) >= MIN_CONTENT ? head + cut : undefined;
}
