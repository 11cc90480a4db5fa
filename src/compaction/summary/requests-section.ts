/**
 * The requests section of a summary: the typed requests of its span (requests.ts), verbatim and in
 * order, inside a token budget, with the retention rule of README "What a summary keeps".
 *
 * The budget search tries many renderings of the same requests. With tiktoken's exact counter each
 * request (in each form: whole, shortened) is counted once and kept across compactions, and a try
 * costs one addition per request: every list item starts a new pre-tokenizer piece (line-count.ts),
 * so the section's count is the sum of its items' counts.
 *
 * Pure: no I/O.
 */
import { LineCounter } from '../../tokenizer/line-count';
import { ruleSentences } from './prose';
import { condensePastedOutput, isMostlyPastedOutput, PASTED_MARKER_SOURCE } from './pasted-output';
import { instructionsOf, shortenInstructionsFirst } from './request-shorten';
import { ownCopy } from '../../tokenizer/own-copy';

/** Heading of the section; chained compactions find the section of an earlier summary by it. */
export const REQUESTS_HEADING = '## Requests, verbatim';

/** `n` with a comma between groups of three digits (as `toLocaleString('en-US')` writes integers, much faster). */
export function groupDigits(n: number): string {
  const s = String(Math.trunc(Math.abs(n)));
  const grouped = s.length <= 3 ? s : s.replace(/\B(?=(\d{3})+$)/g, ',');
  return n < 0 ? `-${grouped}` : grouped;
}

/** Marker put where the middle of a long request was left out. */
export function shortenedMarker(removedChars: number): string {
  return `[… ${groupDigits(removedChars)} characters of this request left out …]`;
}
/** Either marker of a request's left-out part ({@link shortenedMarker}, `pastedOutputMarker`). */
const MARKER_RE = new RegExp(`\\[… [\\d,]+ characters of this request left out …\\]|${PASTED_MARKER_SOURCE}`);
/** Every marker of a text, for cuts that must not fall inside one. */
const MARKERS_RE = new RegExp(MARKER_RE.source, 'g');

/**
 * Keeps about `max` characters of `text`: its start and end, the middle replaced by the marker. The
 * cuts fall at a sentence or line end when one is near (within a third of the part kept before the
 * cut, or within as much again after it: a part may keep up to twice its length to end a sentence),
 * else at a space, so no word is cut in two; a part with no space in reach (one long token) is cut
 * where it falls.
 */
export function shortenMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = Math.max(2, max);
  let head = Math.ceil(keep * 0.6);
  let tail = text.length - (keep - head);
  head = headCut(text, head);
  tail = tailCut(text, tail, head);
  // A cut never falls inside a marker already there (a request whose pasted output was left out):
  // the marker goes whole with the part it stands in.
  for (const m of text.includes('[… ') ? text.matchAll(MARKERS_RE) : []) {
    const end = m.index + m[0].length;
    if (m.index < head && head < end) head = m.index;
    if (m.index < tail && tail < end) tail = end;
  }
  if (tail < head) tail = head;
  const removed = text.slice(head, tail).trim().length;
  return `${text.slice(0, head).trimEnd()} ${shortenedMarker(removed)} ${text.slice(tail).trimStart()}`;
}

/** End of the kept start: the last sentence end or space at or before `at` (see {@link shortenMiddle}). */
function headCut(text: string, at: number): number {
  const reach = Math.floor(at / 3);
  const sentenceEnd = (i: number) => /[.!?:\n]/.test(text[i - 1]) && /\s/.test(text[i]);
  for (let i = at; i >= at - reach && i > 0; i--) if (sentenceEnd(i)) return i;
  // A sentence or line that ends after the cut (within as much again) is kept whole rather than cut in its middle.
  for (let i = at + 1; i <= 2 * at && i < text.length; i++) if (sentenceEnd(i)) return i;
  if (/\s/.test(text[at] ?? ' ')) return at;
  for (let i = at; i > 0; i--) if (/\s/.test(text[i])) return i;
  return at;
}

/** Start of the kept end: the first space or sentence start at or after `at`, never before `head`. */
function tailCut(text: string, at: number, head: number): number {
  if (at <= head) return head;
  const reach = Math.floor((text.length - at) / 3);
  const sentenceStart = (i: number) => /[.!?:\n]/.test(text[i - 1]) && /\s/.test(text[i]);
  for (let i = at; i < Math.min(text.length, at + reach); i++) if (sentenceStart(i)) return i;
  // A sentence or line that starts before the cut (within as much again) is kept whole rather than from its middle.
  for (let i = at - 1; i > Math.max(head, at - (text.length - at)); i--) if (sentenceStart(i)) return i;
  if (/\s/.test(text[at - 1] ?? ' ')) return at;
  for (let i = at; i < text.length; i++) if (/\s/.test(text[i])) return i;
  // The end is one long token (a path at the request's end): resume at its start, not inside it.
  for (let i = at - 1; i > head; i--) if (/\s/.test(text[i])) return i;
  return at;
}

/**
 * A request shortened to about `max` characters, its instructions first: by whole sentences, the
 * sentences that say what to do (imperatives, questions, constraints) kept ahead of those that
 * describe, with a marker wherever text was left out (`shortenInstructionsFirst`); when no instruction
 * fits whole, the instructions alone are clipped in their middle after a marker counting the rest; a
 * request with no instruction (or too little room for them) is kept by its start and end
 * ({@link shortenMiddle}).
 */
export function shortenRequest(text: string, max: number): string {
  if (shownLength(text.length, max) >= text.length) return text;
  return worthIt(text, shortened(text, max));
}

/** {@link shortenRequest} past its checks. */
function shortened(text: string, max: number): string {
  const whole = shortenInstructionsFirst(text, max, shortenedMarker);
  if (whole !== undefined) return whole;
  // No instruction fits whole: the instructions are clipped rather than the description kept.
  const asks = text.length > max ? instructionsOf(text) : undefined;
  const lead = asks ? shortenedMarker(asks.leftOut) : '';
  if (asks && max - lead.length >= MIN_CLIPPED_INSTRUCTIONS_CHARS)
    return `${lead} ${shortenMiddle(asks.text, max - lead.length - 1)}`;
  return shortenMiddle(text, max);
}

/**
 * `out`, a shortening of `text`, when it is at least {@link MIN_LEFT_OUT_CHARS} / 2 characters
 * shorter (its markers counted); else `text` whole: keeping whole sentences can leave so little out
 * that the marker costs as much as it saves.
 */
function worthIt(text: string, out: string): string {
  return text.length - out.length >= MIN_LEFT_OUT_CHARS / 2 ? out : text;
}

/**
 * Longest request, in characters, that is never shortened: a short request costs few tokens, and
 * cut at both ends it says nothing ("In […] other parts of the page."). Only longer ones are clipped.
 */
export const SHORT_REQUEST_CHARS = 120;

/**
 * Fewest characters a shortening must leave out: its marker alone takes about 45 characters, so
 * a cut of fewer than this saves almost nothing and loses the person's exact words.
 */
export const MIN_LEFT_OUT_CHARS = 80;

/**
 * Characters of a request of `length` characters shown when it is to be shortened to about `max`:
 * `length` (whole) when it is short ({@link SHORT_REQUEST_CHARS}) or the cut would leave out fewer
 * than {@link MIN_LEFT_OUT_CHARS}, else `max`.
 */
function shownLength(length: number, max: number): number {
  return length <= SHORT_REQUEST_CHARS || length - max < MIN_LEFT_OUT_CHARS ? length : max;
}

/** Characters the clipped instructions of a request keep at least beside the marker before them, else it is clipped as a whole. */
const MIN_CLIPPED_INSTRUCTIONS_CHARS = 80;

/**
 * A request shortened to about `max` characters ({@link shortenRequest}); one that states standing
 * rules (`ruleSentences`) keeps those sentences whole instead, with the marker counting the rest,
 * when they take no more than `max` characters or {@link RULES_SHOWN_CHARS}: a prohibition survives the
 * shortening of the request it is in.
 */
export function shortenKeepingRules(text: string, max: number): string {
  if (shownLength(text.length, max) >= text.length) return text;
  const rules = omissionRank(text) >= RULE_RANK ? ruleSentences(text).map((r) => r.replace(/\s+/g, ' ').trim()) : [];
  const kept = rules.join(' ');
  if (!rules.length || kept.length > Math.max(max, RULES_SHOWN_CHARS)) return shortenRequest(text, max);
  return worthIt(text, keepingRules(text, rules, kept));
}

/** The request `text` with only its rule sentences `rules` (joined: `kept`), a marker wherever text was left out. */
function keepingRules(text: string, rules: readonly string[], kept: string): string {
  // Each sentence stays where it was: a marker stands wherever text was left out (before, between or
  // after them), so the request never reads as if only its end were cut.
  const flat = text.replace(/\s+/g, ' ').trim();
  const parts: string[] = [];
  let from = 0;
  for (const rule of rules) {
    const at = flat.indexOf(rule, from);
    if (at < 0) return `${kept} ${shortenedMarker(Math.max(0, text.length - kept.length))}`;
    if (flat.slice(from, at).trim()) parts.push(shortenedMarker(at - from));
    parts.push(rule);
    from = at + rule.length;
  }
  if (flat.slice(from).trim()) parts.push(shortenedMarker(flat.length - from));
  return parts.join(' ');
}

/** Characters of a request's rule sentences kept whole when the request is shortened further. */
const RULES_SHOWN_CHARS = 240;

/** Renders one request as a list item: `- ` then its lines, each continuation indented two spaces. */
function renderRequest(text: string): string {
  return text
    .split('\n')
    .map((line, i) => (i === 0 ? `- ${line}` : `  ${line}`))
    .join('\n');
}

/** What {@link renderRequestsSection} produced. */
export interface RequestsSection {
  /** The section (heading and list), or '' when there are no requests. */
  text: string;
  /** Requests in the section whole. */
  whole: number;
  /** Requests shortened (instructions first, see `shortenRequest`). */
  shortened: number;
  /** Requests left out (only when even shortened ones would not fit). */
  omitted: number;
  /** Tokens of `text`, by the counter given. */
  tokens: number;
}

/** Length the first and newest requests are shortened to when they alone would fill the budget, in characters. */
const PROTECTED_SHORTENED_CHARS = 400;
/** Lengths a long request is shortened to, in characters, tried in order (with its marker it stays readable). */
const SHORTENED_CHARS = [200, 120, 60] as const;

/**
 * Tokens of a request's list item (followed by a line break) per shown length, per request text,
 * kept across sections of one encoding (the same requests come back in every compaction of a
 * session). Cleared past {@link KEPT_REQUESTS} requests.
 */
const itemCounts = new Map<string, Map<string, Map<number, number>>>();
/** Most request texts whose counts are kept per encoding. */
const KEPT_REQUESTS = 50_000;

function countsFor(encoding: string | undefined): Map<string, Map<number, number>> {
  if (encoding === undefined) return new Map();
  let store = itemCounts.get(encoding);
  if (!store || store.size > KEPT_REQUESTS) itemCounts.set(encoding, (store = new Map<string, Map<number, number>>()));
  return store;
}

/**
 * A reply that only acknowledges or lets the agent go on ("Authentication complete - continue", "ok,
 * proceed", "yes please", "Approved"): at most six words, one of them an acknowledgement, no rule.
 */
const ACKNOWLEDGEMENT =
  /^(?=[\s\S]{0,60}$)(?=.*\b(?:continue|proceed|go ahead|go on|ok(?:ay)?|yes|yep|approved?|done|complete[d]?|thanks?|thank you|sure|lgtm|sounds good|looks good|perfect|great)\b)(?:\W*[\w'’]+){1,6}\W*$/i;

/** Omission rank of each request text (0 left out first), kept per text across sections. */
const ranks = new Map<string, number>();

/**
 * When a request is left out, by rank (lower first): 0 a request that is mostly pasted output
 * (`isMostlyPastedOutput`: a log the person pasted, condensed; the replaced messages hold it whole),
 * 1 a long request (over {@link SHORT_REQUEST_CHARS} characters; one frees many tokens), 3 a short
 * one or an acknowledgement ({@link ACKNOWLEDGEMENT}: an approval such as "Approved - Proceed to
 * Phase 2" is the user's decision, and costs a few tokens), 4 a long one that states a standing rule
 * (`ruleSentences`: a prohibition such as "DO NOT touch the old project"), 5 a short one that does.
 * Safety constraints outlast every ordinary request; dozens of short replies outlast one long request.
 */
function omissionRank(text: string): number {
  let r = ranks.get(text);
  if (r !== undefined) return r;
  const rule = ruleSentences(text).length > 0;
  r = rule
    ? text.length > 240
      ? 4
      : 5
    : isMostlyPastedOutput(text)
      ? 0
      : text.length <= SHORT_REQUEST_CHARS || ACKNOWLEDGEMENT.test(text.trim())
        ? SHORT_RANK
        : 1;
  if (ranks.size > KEPT_REQUESTS) ranks.clear();
  ranks.set(ownCopy(text), r);
  return r;
}

/**
 * A request of at most {@link SHORT_REQUEST_CHARS} characters, or an acknowledgement
 * ({@link ACKNOWLEDGEMENT}), that is not mostly pasted output: a few tokens that say what the user
 * decided ("Approved - Proceed to Phase 3").
 */
function isShortRequest(text: string): boolean {
  return (text.length <= SHORT_REQUEST_CHARS || ACKNOWLEDGEMENT.test(text.trim())) && !isMostlyPastedOutput(text);
}

/** Rank of a short request or an acknowledgement ({@link omissionRank}): kept before a long request is. */
const SHORT_RANK = 3;
/** Highest omission rank ({@link omissionRank}). */
const TOP_RANK = 5;
/** Rank from which a request states a standing rule (its rule sentences kept when it is shortened). */
const RULE_RANK = 4;
/** Rank of a long request that states no rule (a rule-stating one ranks so when the rules are kept elsewhere). */
const LONG_RANK = 2;

/**
 * The line that says how many requests were left out at one place, and where they can be read: the
 * summary's last line points at the messages it replaced, which hold them word for word. `again`: a
 * line after the section's first such line, which says where to read them, only counts.
 */
function omittedLine(count: number, chars: number, again = false): string {
  // Where to read them is said once per section: a later such line in it only counts.
  return `[${count} earlier request${count === 1 ? '' : 's'} (${groupDigits(chars)} characters) left out here to fit the budget${again ? '' : '; read them in the replaced messages (last line)'}]`;
}

/** A line of {@link omittedLine} (or of an older summary, which said no more than the count), with its figures. */
const OMITTED_LINE =
  /^\[([\d,]+) earlier requests? \(([\d,]+) characters\) left out here to fit the budget\b[^\]\n]*\]$/;

/**
 * The figures of a line saying requests were left out ({@link omittedLine}), as an earlier summary's
 * requests section holds it; undefined for any other text. A later summary carries such a line as an
 * entry of its requests, so what an earlier summary left out is never dropped in silence.
 */
export function omittedNote(text: string): { count: number; chars: number } | undefined {
  const m = OMITTED_LINE.exec(text);
  if (!m) return undefined;
  return { count: Number(m[1].replace(/,/g, '')), chars: Number(m[2].replace(/,/g, '')) };
}

/**
 * Renders `entries` (oldest first) as the requests section within `maxTokens` tokens, as counted
 * by `countText`. An entry is a request, or a line of an earlier summary saying requests were left out
 * there ({@link omittedNote}): its count joins the line this section writes at that place, so what was
 * left out once stays said. Priority (the product's retention rule, README "What a summary keeps"):
 * when the requests do not all fit whole, the pasted output inside them (logs, stack traces) is
 * condensed first (`condensePastedOutput`: first and last lines and the error line kept, a marker
 * saying how much was left out and where to read it); then the first request and the newest are whole
 * first; every other request is whole up to a length cap, chosen as large as the budget allows, and a
 * longer one is shortened, its instructions first ({@link shortenRequest}), to 200, 120 or 60 characters (the length that keeps the most
 * requests whole) with a marker counting what was left out; when even that does not fit, middle
 * requests are left out in the order of {@link omissionRank} and one line counts them and says where
 * to read them. The first and newest are shortened only when they alone leave no room for any other
 * request (then to 400 characters each, so short replies between them still fit) or alone exceed the
 * budget. `lineAdditive`: `countText` is tiktoken's exact count (`TokenCounter.lineAdditive`), so tries
 * are counted request by request (same result, much faster); with `encoding` (its name) the counts of
 * rendered requests are kept for later sections too. `rulesElsewhere`: the summary keeps the standing
 * rules in its own section, so a request is not kept longer for stating one (it ranks as any other).
 */
export function renderRequestsSection(
  entries: readonly string[],
  maxTokens: number,
  countText: (text: string) => number,
  lineAdditive = false,
  encoding?: string,
  rulesElsewhere = false,
): RequestsSection {
  return renderEntries(entries, maxTokens, countText, lineAdditive, encoding, true, rulesElsewhere);
}

/**
 * What every rendering of one list of entries shares, whatever its budget: the requests, the
 * figures of earlier left-out lines by place, the omission orders and which requests hold a marker.
 * A summary renders its requests up to five times (the first section, the room the notes left, the
 * corrections of `composeSummary`), each time with the same array; the condensed entries are one
 * array too, so their preparation is kept as well.
 */
interface PreparedEntries {
  requests: string[];
  /** Figures of earlier summaries' left-out lines, by the place they stood (before the request of the same index; `carried[n]` after the newest). */
  carried: Array<{ count: number; chars: number } | undefined>;
  carriedCount: number;
  /** Omission order of the middle requests ({@link omissionRank}), by whether the rules are kept elsewhere. */
  orders: Partial<Record<'own' | 'elsewhere', number[]>>;
  /** Per request: 0 not looked at yet, 1 no left-out marker in it, 2 a marker. */
  markers: Uint8Array;
  /** The entries with their pasted output condensed (the same array when nothing was). */
  condensed?: readonly string[];
}

/** Preparations by entries array (a summary's few renderings of one array; collected with it). */
const preparations = new WeakMap<readonly string[], PreparedEntries>();

function preparedOf(entries: readonly string[]): PreparedEntries {
  let p = preparations.get(entries);
  if (p) return p;
  const requests: string[] = [];
  const carried: PreparedEntries['carried'] = [];
  for (const e of entries) {
    const note = omittedNote(e);
    if (!note) {
      requests.push(e);
      continue;
    }
    const k = requests.length;
    const c = carried[k];
    carried[k] = c ? { count: c.count + note.count, chars: c.chars + note.chars } : note;
  }
  const carriedCount = carried.reduce((s, c) => s + (c?.count ?? 0), 0);
  p = { requests, carried, carriedCount, orders: {}, markers: new Uint8Array(requests.length) };
  preparations.set(entries, p);
  return p;
}

/**
 * The middle requests in the order they are left out: by {@link omissionRank}, oldest first within a
 * rank; a request that states a rule ranks as a long one when `rulesElsewhere`.
 */
function omissionOrder(p: PreparedEntries, rulesElsewhere: boolean): number[] {
  const key = rulesElsewhere ? 'elsewhere' : 'own';
  const have = p.orders[key];
  if (have) return have;
  const { requests } = p;
  const n = requests.length;
  const rankOf = (text: string): number => {
    const r = omissionRank(text);
    return rulesElsewhere && r >= RULE_RANK ? r - (RULE_RANK - LONG_RANK) : r;
  };
  const byRank: number[][] = Array.from({ length: TOP_RANK + 1 }, () => []);
  for (let i = 1; i < n - 1; i++) byRank[rankOf(requests[i])].push(i);
  return (p.orders[key] = byRank.flat());
}

/**
 * Tokens (by `countText`) of a requests section of `entries` (oldest first, as for
 * {@link renderRequestsSection}) that keeps every short request and acknowledgement
 * ({@link isShortRequest}) whole, the first and newest
 * shortened to {@link SHORTENED_CHARS}[0] characters, and lines counting the long ones left out: the least
 * the section needs before a long request may take the room of the short ones. 0 when there are no
 * middle requests (the first and newest are kept by the section's own minimum).
 */
export function shortRequestsTokens(
  entries: readonly string[],
  countText: (text: string) => number,
  rulesElsewhere = false,
): number {
  const prepared = preparedOf(entries);
  const { requests } = prepared;
  const n = requests.length;
  if (n <= 2) return 0;
  // Left out as the section leaves them out: the first `spared` of its order, all before any short one.
  const out = new Set(omissionOrder(prepared, rulesElsewhere).slice(0, sparedCount(prepared, rulesElsewhere)));
  const shortest = SHORTENED_CHARS[SHORTENED_CHARS.length - 1];
  const parts = [
    `${REQUESTS_HEADING} (oldest first; the user's own words)`,
    renderRequest(shortenRequest(requests[0], SHORTENED_CHARS[0])),
  ];
  let left = 0;
  let leftChars = 0;
  let lineSeen = false;
  for (let i = 1; i < n; i++) {
    if (out.has(i)) {
      left++;
      leftChars += requests[i].length;
      continue;
    }
    if (left > 0) parts.push(omittedLine(left, leftChars, lineSeen));
    lineSeen ||= left > 0;
    left = leftChars = 0;
    const r = requests[i];
    if (i < n - 1)
      parts.push(renderRequest(shortenKeepingRules(r, Math.min(shownLength(r.length, shortest), r.length))));
  }
  parts.push(renderRequest(shortenRequest(requests[n - 1], SHORTENED_CHARS[0])));
  return countText(parts.join('\n'));
}

/**
 * How many middle requests of `p` are left out before any short request or acknowledgement
 * ({@link isShortRequest}) is, in {@link omissionOrder}'s order.
 */
function sparedCount(p: PreparedEntries, rulesElsewhere: boolean): number {
  const order = omissionOrder(p, rulesElsewhere);
  const k = order.findIndex((i) => isShortRequest(p.requests[i]));
  return k < 0 ? order.length : k;
}

/** `entries` with each request's pasted output condensed (`condensePastedOutput`); `entries` itself when none changed. */
function condensedEntries(entries: readonly string[]): readonly string[] {
  const condensed = entries.map((e) => (omittedNote(e) ? e : condensePastedOutput(e)));
  return condensed.some((c, i) => c !== entries[i]) ? condensed : entries;
}

/**
 * {@link renderRequestsSection}; `condense`: when the entries do not all fit whole, their pasted output
 * is condensed first (then the search below runs on the condensed entries).
 */
function renderEntries(
  entries: readonly string[],
  maxTokens: number,
  countText: (text: string) => number,
  lineAdditive: boolean,
  encoding: string | undefined,
  condense: boolean,
  rulesElsewhere: boolean,
): RequestsSection {
  const prepared = preparedOf(entries);
  const { requests, carried, carriedCount } = prepared;
  if (requests.length === 0 && carriedCount === 0) return { text: '', whole: 0, shortened: 0, omitted: 0, tokens: 0 };
  const lines = new LineCounter(countText, lineAdditive, encoding);
  const heading = `${REQUESTS_HEADING} (oldest first; the user's own words)`;
  const n = requests.length;
  if (n === 0) {
    const text = `${heading}\n${omittedLine(
      carriedCount,
      carried.reduce((s, c) => s + (c?.chars ?? 0), 0),
    )}`;
    return { text, whole: 0, shortened: 0, omitted: carriedCount, tokens: countText(text) };
  }
  // Left out first when nothing else fits: pasted output, acknowledgements, then the oldest long middle
  // requests, then the oldest others; requests that state a standing rule last (see {@link omissionRank}).
  const omitOrder = omissionOrder(prepared, rulesElsewhere);
  // The first and newest requests keep what they ask first (the task and what is asked now).
  const rendered = (i: number, shown: number): string =>
    renderRequest(
      i === 0 || i === n - 1 ? shortenRequest(requests[i], shown) : shortenKeepingRules(requests[i], shown),
    );
  const markers = prepared.markers;
  const hasMarker = (i: number): boolean => {
    let m = markers[i];
    if (m === 0) markers[i] = m = MARKER_RE.test(requests[i]) ? 2 : 1;
    return m === 2;
  };
  // Counts per request, by shown length (the newest request is the last item: counted without its line break).
  const kept = countsFor(lineAdditive ? encoding : undefined);
  const perRequest = requests.map((r, i) => {
    if (i === n - 1) return new Map<number, number>();
    let m = kept.get(r);
    // Kept past the request text (an earlier summary's line, a trimmed message): a copy, not a view into it.
    if (!m) kept.set(ownCopy(r), (m = new Map<number, number>()));
    return m;
  });
  const itemTokens = (i: number, shown: number): number | undefined => {
    const m = perRequest[i];
    let t = m.get(shown);
    if (t === undefined) {
      const c = lines.itemTokens(rendered(i, shown), i === n - 1);
      if (c === undefined) return undefined;
      m.set(shown, (t = c));
    }
    return t;
  };
  const omittedCounts = new Map<number, number>();
  const omittedTokens = (count: number, chars: number, again: boolean): number | undefined => {
    const key = (count * 2 ** 32 + chars) * 2 + (again ? 1 : 0);
    let t = omittedCounts.get(key);
    if (t === undefined) {
      const c = lines.itemTokens(omittedLine(count, chars, again), false);
      if (c === undefined) return undefined;
      omittedCounts.set(key, (t = c));
    }
    return t;
  };
  const headingTokens = lines.itemTokens(heading, false);
  const omittedMark = new Uint8Array(n);
  // One try: which requests are whole, shortened or left out, and the tokens of the section.
  const build = (cap: number, shortLen: number, protectedCap: number, omitCount: number): RequestsSection => {
    omittedMark.fill(0);
    for (let k = 0; k < omitCount; k++) omittedMark[omitOrder[k]] = 1;
    const shownOf = (i: number): number => {
      const r = requests[i];
      const limit = i === 0 || i === n - 1 ? protectedCap : r.length <= cap ? r.length : shortLen;
      return Math.min(shownLength(r.length, limit), r.length);
    };
    let whole = 0;
    let shortened = 0;
    let tokens: number | undefined = headingTokens;
    let pending = 0;
    let pendingChars = 0;
    let lineSeen = false;
    for (let i = 0; i <= n; i++) {
      const c = carried[i];
      if (c) {
        pending += c.count;
        pendingChars += c.chars;
      }
      if (i < n && omittedMark[i] === 1) {
        pending++;
        pendingChars += requests[i].length;
        continue;
      }
      if (pending > 0) {
        const t = tokens === undefined ? undefined : omittedTokens(pending, pendingChars, lineSeen);
        tokens = t === undefined ? undefined : tokens! + t;
        lineSeen = true;
        pending = 0;
        pendingChars = 0;
      }
      if (i === n) break;
      const shown = shownOf(i);
      if (shown >= requests[i].length && !hasMarker(i)) whole++;
      else shortened++;
      if (tokens !== undefined) {
        const t = itemTokens(i, shown);
        tokens = t === undefined ? undefined : tokens + t;
      }
    }
    // The text is put together only for the result that is returned.
    let text: string | undefined;
    const join = (): string => {
      if (text !== undefined) return text;
      const out = new Uint8Array(n);
      for (let k = 0; k < omitCount; k++) out[omitOrder[k]] = 1;
      const parts: string[] = [heading];
      let run = 0;
      let runChars = 0;
      for (let i = 0; i <= n; i++) {
        const c = carried[i];
        if (c) {
          run += c.count;
          runChars += c.chars;
        }
        if (i < n && out[i] === 1) {
          run++;
          runChars += requests[i].length;
          continue;
        }
        if (run > 0)
          parts.push(
            omittedLine(
              run,
              runChars,
              parts.some((x) => OMITTED_LINE.test(x)),
            ),
          );
        run = 0;
        runChars = 0;
        if (i < n) parts.push(rendered(i, shownOf(i)));
      }
      return (text = parts.join('\n'));
    };
    return {
      get text() {
        return join();
      },
      whole,
      shortened,
      omitted: omitCount + carriedCount,
      tokens: tokens ?? countText(join()),
    };
  };
  const longest = requests.reduce((m, r) => Math.max(m, r.length), -Infinity);
  const all = build(longest, longest, longest, 0);
  if (all.tokens <= maxTokens) return all;
  // Over the budget: the pasted output inside requests is what is shortened first.
  if (condense) {
    const condensed = (prepared.condensed ??= condensedEntries(entries));
    if (condensed !== entries)
      return renderEntries(condensed, maxTokens, countText, lineAdditive, encoding, false, rulesElsewhere);
  }
  // Largest whole-length cap that fits with long ones shortened to `shortLen` (binary search).
  const fitCap = (shortLen: number) => {
    let found = build(shortLen, shortLen, longest, 0);
    if (found.tokens > maxTokens) return undefined;
    let lo = shortLen;
    let hi = longest;
    while (hi - lo > 8) {
      const mid = Math.floor((lo + hi) / 2);
      const r = build(mid, shortLen, longest, 0);
      if (r.tokens <= maxTokens) {
        found = r;
        lo = mid;
      } else hi = mid;
    }
    return found;
  };
  // The shortened length that keeps the most requests whole wins (ties: the longer shortened form).
  let chosen: RequestsSection | undefined;
  for (const len of SHORTENED_CHARS) {
    const r = fitCap(len);
    if (r && (!chosen || r.whole > chosen.whole)) chosen = r;
  }
  if (chosen) return chosen;
  // Leave out the fewest middle requests that makes the rest fit (binary search on the count).
  const shortest = SHORTENED_CHARS[SHORTENED_CHARS.length - 1];
  const fewestOmitted = (protectedCap: number): RequestsSection | undefined => {
    if (n <= 2) return undefined;
    const tokensWith =
      omittedSum(protectedCap) ?? ((omit: number) => build(shortest, shortest, protectedCap, omit).tokens);
    if (tokensWith(n - 2) > maxTokens) return undefined;
    let lo = 0;
    let hi = n - 2;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (tokensWith(mid) <= maxTokens) hi = mid;
      else lo = mid + 1;
    }
    return build(shortest, shortest, protectedCap, lo);
  };
  // The tokens `build(shortest, shortest, protectedCap, omit)` sums, from each request's count read
  // once: the search above tries a dozen counts of left-out requests over thousands of requests.
  // Undefined when a count is not additive (then `build` counts the whole text).
  const omittedSum = (protectedCap: number): ((omit: number) => number) | undefined => {
    if (headingTokens === undefined) return undefined;
    const each = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const len = requests[i].length;
      const t = itemTokens(i, Math.min(shownLength(len, i === 0 || i === n - 1 ? protectedCap : shortest), len));
      if (t === undefined) return undefined;
      each[i] = t;
    }
    const mark = new Uint8Array(n);
    return (omit: number) => {
      mark.fill(0);
      for (let k = 0; k < omit; k++) mark[omitOrder[k]] = 1;
      let total = headingTokens;
      let pending = 0;
      let pendingChars = 0;
      let lineSeen = false;
      for (let i = 0; i <= n; i++) {
        const c = carried[i];
        if (c) {
          pending += c.count;
          pendingChars += c.chars;
        }
        if (i < n && mark[i] === 1) {
          pending++;
          pendingChars += requests[i].length;
          continue;
        }
        if (pending > 0) {
          const t = omittedTokens(pending, pendingChars, lineSeen);
          if (t === undefined) return build(shortest, shortest, protectedCap, omit).tokens;
          total += t;
          lineSeen = true;
          pending = 0;
          pendingChars = 0;
        }
        if (i < n) total += each[i];
      }
      return total;
    };
  };
  // The first and newest whole; when they alone leave no room for the others, shortened to
  // PROTECTED_SHORTENED_CHARS each so the short replies between them still fit.
  // Short requests and acknowledgements are left out only when the first and newest, shortened to
  // as little as SHORTENED_CHARS[1], still leave no room for them: one long request never takes the
  // room of dozens of short replies ("yes, proceed with phase 2").
  const spared = sparedCount(prepared, rulesElsewhere);
  const keepsShort = (r: RequestsSection | undefined) => r !== undefined && r.omitted - carriedCount <= spared;
  const whole = fewestOmitted(longest);
  if (keepsShort(whole)) return whole!;
  let fallback = whole;
  for (const cap of [PROTECTED_SHORTENED_CHARS, SHORTENED_CHARS[0], SHORTENED_CHARS[1]]) {
    const r = fewestOmitted(cap);
    if (keepsShort(r)) return r!;
    fallback ??= r;
  }
  if (fallback) return fallback;
  // Only the first and newest remain and they alone are over: shorten them further.
  const omit = Math.max(0, n - 2);
  let protectedCap = longest;
  let best = build(shortest, shortest, protectedCap, omit);
  while (best.tokens > maxTokens && protectedCap > 80) {
    protectedCap = Math.floor(protectedCap * 0.7);
    best = build(shortest, shortest, protectedCap, omit);
  }
  return best;
}
