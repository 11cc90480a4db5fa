/**
 * Shortening a typed request by its sentences, instructions first: what the person asks (imperatives,
 * questions, constraints) stays ahead of what describes the situation (context, pasted output), so a
 * request shortened to fit never loses the part that says what to do. Cuts fall at sentence or line
 * ends, and a marker stands wherever text was left out, counting its characters.
 *
 * Pure: no I/O.
 */

/**
 * One sentence, line or fenced block of a request: its place in the text and how strongly it
 * instructs (0 an imperative or a question, 1 a sentence with a constraint word or an instruction
 * that only introduces the instructions after it, 2 none).
 */
interface Unit {
  start: number;
  end: number;
  rank: number;
}

/**
 * Verbs that open an instruction when a sentence starts with them (after a list marker): the person
 * tells the agent what to do ("Add a button…", "Keep the layout…", "Focus on…", "Please proceed…").
 */
const IMPERATIVE = new Set(
  (
    'add adjust align allow analyse analyze apply arrange ask avoid build center centre change check clean commit ' +
    'compare confirm continue convert create debug delete deploy describe disable discard do document drop enable ' +
    'ensure execute explain extract find fix focus follow format generate give go handle ignore implement include ' +
    'increase install integrate investigate keep leave let list load look make merge migrate modify move never ' +
    'open please polish prefer proceed provide push put read rearrange redesign reduce refactor remove rename ' +
    'replace resolve restyle retry return revert review rewrite run save send set show skip sort split start stop ' +
    'summarize support switch tell test try undo update use verify wait wrap write'
  ).split(' '),
);

/** Words that make a sentence a constraint or a request wherever they stand. */
const ASKS =
  /\b(?:must|should|need(?:s)? to|have to|has to|make sure|do not|don't|dont|never|always|please|i want|i'd like|i would like|we want|we need|can you|could you|would you|let's|lets)\b/i;

/** A list marker or heading mark at the start of a unit. */
const LEAD = /^\s*(?:[-*•>#]+|\d+[.)])\s*/;

/** How strongly `text` (one sentence or line) instructs: 0 a question or an imperative, 1 a constraint word, 2 neither. */
function instructionRank(text: string): number {
  const t = text.replace(LEAD, '').trim();
  if (!t) return 2;
  if (/\?["')\]]*$/.test(t)) return 0;
  const first = /^[A-Za-z']+/.exec(t)?.[0].toLowerCase().replace(/'s$/, '');
  if (first && IMPERATIVE.has(first)) return 0;
  return ASKS.test(t) ? 1 : 2;
}

/** Whether `text` (one sentence or line) instructs: a question, an imperative, or a constraint word. */
export function isInstruction(text: string): boolean {
  return instructionRank(text) < 2;
}

/** The units of `text`: fenced blocks whole (never instructions), then lines split at sentence ends. */
function unitsOf(text: string): Unit[] {
  const out: Unit[] = [];
  const fence = /^[ \t]*```[^\n]*\n[\s\S]*?^[ \t]*```[^\n]*$/gm;
  let at = 0;
  const prose = (from: number, to: number) => {
    const sentence = /[^\n]*?(?:[.!?](?=\s)|\n|$)/g;
    sentence.lastIndex = from;
    while (sentence.lastIndex < to) {
      const m = sentence.exec(text);
      if (!m) break;
      const end = Math.min(to, m.index + m[0].length);
      if (m[0].length === 0) sentence.lastIndex++;
      const piece = text.slice(m.index, end);
      if (piece.trim()) {
        const start = m.index + (piece.length - piece.trimStart().length);
        out.push({ start, end: start + piece.trim().length, rank: instructionRank(piece) });
      }
      if (end >= to) break;
    }
  };
  for (const m of text.includes('```') ? text.matchAll(fence) : []) {
    prose(at, m.index);
    out.push({ start: m.index, end: m.index + m[0].length, rank: 2 });
    at = m.index + m[0].length;
  }
  prose(at, text.length);
  // A sentence that only introduces the instructions after it ("Please proceed with the following
  // instructions:") says less than they do: it is kept after them, with the constraints.
  for (let k = 0; k + 1 < out.length; k++)
    if (out[k].rank === 0 && out[k + 1].rank === 0 && INTRODUCES.test(text.slice(out[k].start, out[k].end)))
      out[k].rank = 1;
  return out;
}

/**
 * An imperative that is no step to take: a closing courtesy ("Let me know if…", "Please let me
 * know…") or a prohibition ("Do not change…", "Never…", "Avoid…").
 */
const NOT_A_STEP = /^\W*(?:please\s+)?(?:let me know|do not|don'?t|never|avoid)\b/i;

/** A sentence that ends in a colon: it introduces what follows it. */
const INTRODUCES = /:\s*$/;

/**
 * `text` shortened to at most about `max` characters by whole sentences (lines, fenced blocks),
 * instructions first: the imperatives and questions in order while they fit (in a request that opens
 * with its situation, the closing one first: what to do now), then the sentences with a constraint
 * word ({@link isInstruction}) and those that only introduce the instructions after them, then the
 * opening sentence (what the request is about),
 * the closing one, and the others from the start; the closing instruction that cannot stay whole
 * keeps its opening words (what to do, on what); each run left out becomes one marker made by
 * `marker` (given the characters it stands for). Undefined when no instruction fits or nothing would
 * be left out (the caller then clips otherwise).
 */
export function shortenInstructionsFirst(
  text: string,
  max: number,
  marker: (removedChars: number) => string,
): string | undefined {
  if (text.length <= max) return undefined;
  const units = unitsOf(text);
  if (units.length < 2) return undefined;
  const order: number[] = [];
  // A request that opens with its situation ("Good news. My admin granted…") ends with what to do now
  // ("Run terraform apply locally…", "begin Phase 1"): its closing instruction goes first, then the
  // others in order. A sign-off ("Let me know…") or a prohibition ("Do not change…") is no such step;
  // a request that opens with an instruction keeps its order.
  let closing = units[0].rank === 0 ? -1 : units.length - 1;
  while (
    closing >= 0 &&
    (units[closing].rank !== 0 || NOT_A_STEP.test(text.slice(units[closing].start, units[closing].end)))
  )
    closing--;
  if (closing >= 0) order.push(closing);
  for (const rank of [0, 1]) units.forEach((u, k) => u.rank === rank && k !== closing && order.push(k));
  if (!order.length) return undefined;
  for (const k of [0, units.length - 1]) if (!order.includes(k)) order.push(k);
  for (let k = 1; k < units.length - 1; k++) if (!order.includes(k)) order.push(k);
  // Where each kept unit ends (0: left out); the closing instruction may keep only its opening words.
  const ends = new Int32Array(units.length);
  const fits = () => render(text, units, ends, marker).length <= max;
  for (const k of order) {
    ends[k] = units[k].end;
    if (fits()) continue;
    ends[k] = k === closing ? openingWords(text, units[k], (end) => ((ends[k] = end), fits())) : 0;
  }
  if (!units.some((u, k) => u.rank < 2 && ends[k] > 0)) return undefined;
  if (units.every((u, k) => ends[k] === u.end)) return undefined;
  return render(text, units, ends, marker);
}

/** Fewest characters of an instruction's opening words kept when it cannot stay whole. */
const MIN_OPENING_CHARS = 24;

/**
 * The end of the longest opening of `unit` (whole words, at least {@link MIN_OPENING_CHARS}
 * characters) for which `fits(end)` holds, or 0 when none does: what to do and on what, the rest
 * marked as left out.
 */
function openingWords(text: string, unit: Unit, fits: (end: number) => boolean): number {
  const cuts: number[] = [];
  for (let i = unit.start + MIN_OPENING_CHARS; i < unit.end; i++)
    if (/\s/.test(text[i]) && !/\s/.test(text[i - 1])) cuts.push(i);
  // The longest that fits: the rendered length grows with the cut, so a binary search finds it.
  let lo = 0;
  let hi = cuts.length - 1;
  let best = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (fits(cuts[mid])) {
      best = cuts[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

/**
 * The kept `units` of `text` in order (`ends`: where each kept one ends, 0 for one left out; a unit
 * may end before its own end), the text between two kept ones as it was, each run left out (a
 * unit's cut end included) as one marker.
 */
function render(
  text: string,
  units: readonly Unit[],
  ends: Int32Array,
  marker: (removedChars: number) => string,
): string {
  const parts: string[] = [];
  // Where the text left out since the last kept part begins (-1: nothing left out).
  let gapFrom = -1;
  let lastEnd = -1;
  for (let k = 0; k < units.length; k++) {
    if (!ends[k]) {
      if (gapFrom < 0) gapFrom = lastEnd < 0 ? 0 : lastEnd;
      continue;
    }
    if (gapFrom >= 0) {
      parts.push(` ${marker(text.slice(gapFrom, units[k].start).trim().length)} `);
      gapFrom = -1;
    } else if (lastEnd >= 0) parts.push(text.slice(lastEnd, units[k].start));
    parts.push(text.slice(units[k].start, ends[k]));
    lastEnd = ends[k];
    if (ends[k] < units[k].end) gapFrom = ends[k];
  }
  if (gapFrom >= 0 && lastEnd >= 0) {
    const rest = text.slice(gapFrom).trim().length;
    if (rest > 0) parts.push(` ${marker(rest)}`);
  }
  return parts.join('').trim();
}

/**
 * The instruction sentences of `text` (imperatives and questions, else those with a constraint word;
 * see {@link isInstruction}) joined in order, with the characters of `text` they leave out; undefined
 * when it has none or they are all of it.
 */
export function instructionsOf(text: string): { text: string; leftOut: number } | undefined {
  const units = unitsOf(text);
  for (const rank of [0, 1]) {
    const asks = units.filter((u) => u.rank <= rank);
    if (!asks.length || asks.length === units.length) continue;
    const joined = asks.map((u) => text.slice(u.start, u.end)).join(' ');
    return { text: joined, leftOut: Math.max(0, text.trim().length - joined.length) };
  }
  return undefined;
}
