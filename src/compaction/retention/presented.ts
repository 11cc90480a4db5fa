/**
 * Where a written text presents something as what the scorecard counts it as: a file as changed, a
 * failure as failing, a typed request as the user's request. A bare mention (a path in a list of
 * identifiers, a command in a line that calls the work done, a request's sentence quoted inside
 * another request) is not that: a summary that names a file only as an identifier has not said the
 * file was changed. Rules written for measurement, reading the text's lines and `## ` sections
 * only; no code shared with the summary writer. Pure.
 */
import { normalize } from './presence';

/** A section heading (`## …`, any level from 1 to 6). */
const HEADING = /^#{1,6}\s/;

/** A heading of a section that lists files changed (`## Files changed`, `## Modified files`, `## Edits`). */
const CHANGED_HEADING =
  /\b(?:files?\s+(?:changed|modified|edited|created|written|touched|updated)|(?:changed|modified|edited|created|updated)\s+files?|edits|changes\s+made)\b/i;

/** The section of the user's own words: what they asked is not the summary saying it was done. */
const REQUESTS_HEADING = /^#{1,6}\s+(?:requests|typed requests|user requests)\b/i;

/** A line of a files section that lists files read, not changed (`- read only: a.ts, b.ts`). */
const READ_LINE = /^\s*(?:[-*]\s+)?(?:read only|read|files read|looked at|viewed)\b\s*:/i;

/** Words that say a file was changed, in the past or as a done state. */
const CHANGE_WORD =
  /\b(?:created|edited|changed|modified|wrote|written|rewrote|rewritten|updated|deleted|removed|moved|renamed|patched|added|refactored|replaced)\b/i;

/** Words that undo a change word on the same line ("not changed", "unchanged", "no files were edited"). */
const NO_CHANGE =
  /\b(?:not|never|no|nothing|none)\s+(?:\w+\s+){0,2}(?:created|edited|changed|modified|written|updated|deleted|removed|moved|renamed|patched)\b|\bunchanged\b/i;

/** Cues that a line presents something as failing or still open. */
const FAILING_CUE =
  /\b(?:open|unresolved|fail(?:s|ed|ing|ure|ures)?|errors?|broken|not found|denied|exception|traceback|timed out|crash(?:ed|es)?|blocked|pending|still|not fixed|not resolved)\b|\bexit(?:ed)?(?:\s+(?:code|status))?\s*[1-9]\d*\b|✗|❌/i;

/**
 * A heading of a section of failures (`## Errors and fixes`, `## Unresolved and next step`,
 * `## Blockers`): its lines present what they name as failing unless they call it settled.
 */
const FAILURES_HEADING = /\b(?:errors?|failures?|unresolved|blockers?|problems?)\b/i;

/** Cues that a line presents it as settled (a `- fixed:` line, "resolved"), unless it also says not. */
const SETTLED_CUE = /\b(?:fixed|resolved)\b/i;
const UNSETTLED = /\b(?:not|never)\s+(?:yet\s+)?(?:fixed|resolved)\b|\bunresolved\b/i;

/**
 * `line` with code spans, paths and dotted names blanked, so a word inside a name
 * (`create-user.ts`, ``git rm``) is not read as the summary's own word.
 */
function proseOf(line: string): string {
  return line.replace(/`[^`]*`/g, ' ').replace(/\S*[\\/]\S*|\S+\.\w\S*|\S*[=_]\S*/g, ' ');
}

/** The lines of `text` with the heading of the section each is in ('' before any heading). */
function linesWithSections(text: string): Array<{ line: string; heading: string }> {
  const out: Array<{ line: string; heading: string }> = [];
  let heading = '';
  for (const line of text.split('\n')) {
    if (HEADING.test(line)) {
      heading = line;
      continue;
    }
    out.push({ line, heading });
  }
  return out;
}

/**
 * The lines of `text` that present files as changed, joined with line breaks: every line of a
 * section whose heading lists files changed ({@link CHANGED_HEADING}) except its lines of files read,
 * and any other line whose own words (outside code spans and names) say something was created,
 * edited, changed, moved or deleted ({@link CHANGE_WORD}) and do not deny it ({@link NO_CHANGE}).
 * Never lines of the user's requests section (their words are what was asked, not what was done).
 * A changed file is named where one of these lines names it.
 */
export function changedFilesText(text: string): string {
  const out: string[] = [];
  for (const { line, heading } of linesWithSections(text)) {
    if (REQUESTS_HEADING.test(heading)) continue;
    if (CHANGED_HEADING.test(heading)) {
      if (!READ_LINE.test(line)) out.push(line);
      continue;
    }
    const prose = proseOf(line);
    if (CHANGE_WORD.test(prose) && !NO_CHANGE.test(prose)) out.push(line);
  }
  return out.join('\n');
}

/**
 * The lines of `text` that present something as failing or still open, joined with line breaks:
 * lines with a failure cue ({@link FAILING_CUE}: open, failed, error, not found, a non-zero exit)
 * or in a section of failures ({@link FAILURES_HEADING}) that do not call it fixed or resolved ({@link SETTLED_CUE}) unless they also say it is not; never
 * the user's requests section. An open failure is named where one of these lines names it: a
 * command listed among identifiers, or in a line saying the work is done, is not named as open.
 */
export function failingText(text: string): string {
  const out: string[] = [];
  for (const { line, heading } of linesWithSections(text)) {
    if (REQUESTS_HEADING.test(heading)) continue;
    if (!FAILING_CUE.test(line) && !(FAILURES_HEADING.test(heading) && line.trim())) continue;
    if (SETTLED_CUE.test(line) && !UNSETTLED.test(line)) continue;
    out.push(line);
  }
  return out.join('\n');
}

/**
 * A mark that part of a request was left out: the summary's `[… 1,234 characters of this request left
 * out …]` or `[… 40 lines (2,345 characters) of pasted output left out; … …]`, or an ellipsis a person editing the summary types (`[…]`, `[...]`, `…`, `...`).
 */
const REQUEST_CUT =
  /\s*(?:\[… [\d,]+ (?:characters of this request left out|lines? \([\d,]+ characters\) of pasted output left out[^\]\n]*) …\]|\[(?:…|\.\.\.)\]|…|\.\.\.)\s*/;

/** An item of a text with cut marks: a request presented shortened. */
interface Presentation {
  /** Where it is among the text's presentations (text order). */
  at: number;
  /** The item's words (bullet and enclosing quotes removed), whitespace collapsed. */
  body: string;
  /** The item's kept parts between its cut marks, in order, and whether the request's start and end were cut. */
  cut: CutParts;
}

/**
 * The kept parts of a cut item, whether the request's start and end were cut, and per part that holds
 * a mask its patterns (see {@link partPatterns}): made once per item, since every request left
 * whole nowhere is tried against the items it may fit.
 */
interface CutParts {
  parts: string[];
  startCut: boolean;
  endCut: boolean;
  /** Per part: undefined when it holds no mask (it is looked for as it stands), else its patterns. */
  patterns: Array<{ find: RegExp; end: RegExp } | undefined>;
}

/**
 * The places where a written text presents typed requests, and which request each is given to. A
 * request is kept whole where a list item (a `- ` or `* ` line with its continuation lines, indented
 * two spaces) or a line of the text is that request and nothing else (enclosing quotes aside); it is
 * kept shortened where an item holds the summary's cut mark (`[… N characters of this request left
 * out …]`) and its kept parts are the request's: its start when the start was not cut, its end when
 * the end was not, every part in order. Each item is given to one request, the first in order that
 * fits it after the one given the item before (requests are listed oldest first), so a sentence two
 * requests share is kept for the one whose item it is, and a request only mentioned in another line
 * (a tool call's argument, a rule quoted elsewhere) is not kept. Build once per text; O(lines).
 */
export class RequestPresentations {
  private readonly whole = new Map<string, number[]>();
  /** Items that hold a mask (`[masked secret]`), each with the pattern of the text it may stand for. */
  private readonly masked: Array<{ at: number; pattern: RegExp }> = [];
  private readonly cut: Presentation[] = [];
  /**
   * Indexes of {@link cut} by what a request must hold to fit an item (see {@link fits}): items that
   * keep the request's start, by the first {@link KEY_CHARS} characters the request then starts with;
   * items that keep its end (and not its start), by the last ones it then ends with; `anywhere`, the
   * rest. Each list holds positions in `cut`, ascending; each item is in one list.
   */
  private readonly byStart = new Map<string, number[]>();
  private readonly byEnd = new Map<string, number[]>();
  private readonly anywhere: number[] = [];
  private readonly claimed = new Set<number>();
  /** Text position of the presentation given last: the next request looks after it first. */
  private cursor = -1;

  /**
   * `text`: the written text; `blocks`: further texts each presented whole as one item (the person's
   * words a collapsed tool result's record keeps, which are no list item).
   */
  constructor(text: string, blocks: readonly string[] = []) {
    let at = 0;
    const add = (raw: string) => {
      const body = normalize(raw.replace(/^\s*(?:[-*>]\s+)?/, '').replace(/^(["“'])([\s\S]*)(["”'])$/, '$2'));
      if (!body) return;
      const pos = at++;
      // Every item may be a whole request (a request can itself hold an ellipsis); one with a cut mark
      // may also be a shortened one.
      let list = this.whole.get(body);
      if (!list) this.whole.set(body, (list = []));
      list.push(pos);
      if (MASK.test(body)) this.masked.push({ at: pos, pattern: new RegExp(`^${maskedPattern(body)}$`) });
      if (!REQUEST_CUT.test(body)) return;
      const pieces = body.split(REQUEST_CUT);
      const parts = pieces.map((p) => p.trim()).filter(Boolean);
      if (parts.length)
        this.cut.push({
          at: pos,
          body,
          cut: {
            parts,
            startCut: pieces[0].trim() === '',
            endCut: pieces[pieces.length - 1].trim() === '',
            patterns: parts.map(partPatterns),
          },
        });
    };
    let item: string[] | undefined;
    for (const line of text.split('\n')) {
      if (item && line.startsWith('  ')) {
        item.push(line);
        continue;
      }
      if (item) add(item.join('\n'));
      item = undefined;
      if (HEADING.test(line)) continue;
      if (/^[-*] /.test(line)) item = [line];
      else add(line);
    }
    if (item) add(item.join('\n'));
    for (const b of blocks) add(b);
    this.cut.forEach((p, k) => {
      const { parts, startCut, endCut } = p.cut;
      const head = startCut ? '' : parts[0].split(MASKS)[0];
      const tail = endCut ? '' : parts[parts.length - 1].split(MASKS).at(-1)!;
      if (head.length >= KEY_CHARS) listIn(this.byStart, head.slice(0, KEY_CHARS)).push(k);
      else if (tail.length >= KEY_CHARS) listIn(this.byEnd, tail.slice(-KEY_CHARS)).push(k);
      else this.anywhere.push(k);
    });
  }

  /**
   * How the text keeps the request whose normalized text is `request`: 'whole', 'shortened' or
   * 'no'. Asked once per request, oldest first: the item found is given to it and to no later one.
   */
  keep(request: string): 'whole' | 'shortened' | 'no' {
    if (!request) return 'no';
    const places = this.whole.get(request);
    if (places) {
      this.give(
        places.find((p) => p > this.cursor && !this.claimed.has(p)) ??
          places.find((p) => !this.claimed.has(p)) ??
          places[0],
      );
      return 'whole';
    }
    // The summary masks what looks like a credential; the item stands for the request all the same.
    const masked = this.masked.find((m) => !this.claimed.has(m.at) && m.pattern.test(request));
    if (masked) {
      this.give(masked.at);
      return 'whole';
    }
    let fallback: Presentation | undefined;
    // Only the items the request can fit, in text order: the same first fit as a walk over them all.
    const starts = this.byStart.get(request.slice(0, KEY_CHARS)) ?? NONE;
    const ends = (request.length >= KEY_CHARS && this.byEnd.get(request.slice(-KEY_CHARS))) || NONE;
    const rest = this.anywhere;
    for (let a = 0, b = 0, c = 0; a < starts.length || b < ends.length || c < rest.length;) {
      const sa = a < starts.length ? starts[a] : Infinity;
      const sb = b < ends.length ? ends[b] : Infinity;
      const sc = c < rest.length ? rest[c] : Infinity;
      let k: number;
      if (sa <= sb && sa <= sc) {
        k = sa;
        a++;
      } else if (sb <= sc) {
        k = sb;
        b++;
      } else {
        k = sc;
        c++;
      }
      const p = this.cut[k];
      if (this.claimed.has(p.at) || !fits(p.cut, request)) continue;
      if (p.at > this.cursor) {
        this.give(p.at);
        return 'shortened';
      }
      fallback ??= p;
    }
    if (!fallback) return 'no';
    this.give(fallback.at);
    return 'shortened';
  }

  private give(at: number): void {
    this.claimed.add(at);
    this.cursor = at;
  }
}

/**
 * Characters of a kept start or end by which cut items are indexed: a request that starts (ends) with
 * an item's kept start (end) of at least this many characters starts (ends) with its first (last) ones.
 */
const KEY_CHARS = 8;

const NONE: readonly number[] = [];

/** The list `map` holds for `key`, made empty when none. */
function listIn(map: Map<string, number[]>, key: string): number[] {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  return list;
}

/** Whether the kept parts of a cut item are parts of `request` (normalized), as {@link RequestPresentations} reads them. */
function fits(cut: CutParts, request: string): boolean {
  const { parts, startCut, endCut, patterns } = cut;
  let from = 0;
  for (let k = 0; k < parts.length; k++) {
    // Where the part first occurs in `request` at or after `from` (masks standing for any value).
    const part = parts[k];
    const pattern = patterns[k];
    let at: number;
    let end: number;
    if (pattern === undefined) {
      at = request.indexOf(part, from);
      end = at + part.length;
    } else {
      pattern.find.lastIndex = from;
      const m = pattern.find.exec(request);
      at = m ? m.index : -1;
      end = m ? m.index + m[0].length : -1;
    }
    if (at < 0 || (k === 0 && !startCut && at !== 0)) return false;
    if (
      k === parts.length - 1 &&
      !endCut &&
      !(pattern === undefined ? request.endsWith(part) : pattern.end.test(request))
    )
      return false;
    from = end;
  }
  return true;
}

/**
 * The patterns of a kept part that holds a mask (each mask standing for any value): `find` looks for
 * it anywhere (from its `lastIndex`), `end` at the end of a text; undefined for a part without a mask.
 */
function partPatterns(part: string): { find: RegExp; end: RegExp } | undefined {
  if (!MASK.test(part)) return undefined;
  return { find: new RegExp(maskedPattern(part), 'g'), end: new RegExp(`${maskedPattern(part)}$`) };
}

/** A mask the summary writes where it hid a value (`[masked secret]`, `[masked api key]`). */
const MASK = /\[masked [^\]\n]{1,40}\]/;
const MASKS = new RegExp(MASK.source, 'g');

/** `text` as a pattern: itself, each mask in it standing for any run of characters (at most 400). */
function maskedPattern(text: string): string {
  return text
    .split(MASKS)
    .map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]{1,400}?');
}
