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
 * instructs (0 an imperative or a question, 1 a sentence with a constraint word, 2 none).
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
  return out;
}

/**
 * `text` shortened to at most about `max` characters by whole sentences (lines, fenced blocks),
 * instructions first: the imperatives and questions in order while they fit, then the sentences with
 * a constraint word ({@link isInstruction}), then the opening sentence (what the request is about),
 * the closing one, and the others from the start; each run left out becomes one marker made by
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
  for (const rank of [0, 1]) units.forEach((u, k) => u.rank === rank && order.push(k));
  if (!order.length) return undefined;
  for (const k of [0, units.length - 1]) if (!order.includes(k)) order.push(k);
  for (let k = 1; k < units.length - 1; k++) if (!order.includes(k)) order.push(k);
  const kept = new Uint8Array(units.length);
  for (const k of order) {
    kept[k] = 1;
    if (render(text, units, kept, marker).length > max) kept[k] = 0;
  }
  if (!units.some((u, k) => u.rank < 2 && kept[k])) return undefined;
  if (kept.every(Boolean)) return undefined;
  return render(text, units, kept, marker);
}

/** The kept `units` of `text` in order, the text between two kept ones as it was, each run left out as one marker. */
function render(
  text: string,
  units: readonly Unit[],
  kept: Uint8Array,
  marker: (removedChars: number) => string,
): string {
  const parts: string[] = [];
  let gapFrom = -1;
  let last = -1;
  for (let k = 0; k < units.length; k++) {
    if (!kept[k]) {
      if (gapFrom < 0) gapFrom = k;
      continue;
    }
    if (gapFrom >= 0) {
      const from = gapFrom === 0 ? 0 : units[gapFrom - 1].end;
      parts.push(` ${marker(text.slice(from, units[k].start).trim().length)} `);
      gapFrom = -1;
    } else if (last >= 0) parts.push(text.slice(units[last].end, units[k].start));
    parts.push(text.slice(units[k].start, units[k].end));
    last = k;
  }
  if (gapFrom > 0) parts.push(` ${marker(text.slice(units[gapFrom - 1].end).trim().length)}`);
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
