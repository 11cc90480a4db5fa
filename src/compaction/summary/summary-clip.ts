/**
 * Clipping a summary too large for the context window by its sections, where a plain middle clip
 * would take out whatever lies in the middle of the text: the headings that say what each part
 * holds, and often the typed requests. A summary read back from a file (`compact --out`) or an
 * agent's own sectioned summary can be larger than a small window by itself; clipped this way it
 * keeps its opening line, the typed requests first (the section headed {@link REQUESTS_HEADING},
 * clipped in its middle only when it is over most of the room) and its closing recall pointer, and
 * the other sections share what is left: the small ones stay whole, the larger ones lose their
 * middle, each with the clip marker, and one left with too little room to say anything goes, named
 * in a left-out line after the opening one (`leftOutLine`).
 *
 * Pure: no I/O.
 */
import { clipMiddleToTokens } from '../clip';
import { REQUESTS_HEADING } from './requests-section';
import { leftOutLine, sectionName } from './compose-summary';

/** The closing line of a summary that says where the replaced messages can be read (recall-pointer.ts). */
const POINTER = /\n\n(\[The [^\n]*\])\s*$/;
/**
 * Most of the room the typed requests take while the other sections need the rest: the requests
 * come first, and the current work, the rules and the files still keep a part of what they said.
 */
const REQUESTS_SHARE = 0.75;
/** Tokens below which a section's body is left out whole (its heading stays) rather than clipped. */
const MIN_BODY_TOKENS = 12;

/** One `## ` section of a summary: its heading line and the lines under it. */
interface Section {
  heading: string;
  body: string;
}

/** A section left out, as the left-out line names it: its name and how many lines it held. */
function leftOutPart(section: Section): string {
  const n = section.body.split('\n').filter((l) => l.trim()).length;
  return `${sectionName(section.heading)} (${n} line${n === 1 ? '' : 's'})`;
}

/** Whether `text` is sectioned: it holds at least one line that starts with `## `. */
export function hasSections(text: string): boolean {
  return /(^|\n)## /.test(text);
}

/**
 * `text`, a summary, clipped to at most `maxTokens` tokens as counted by `countText`, by its
 * sections (see the module comment). A text without `## ` headings is middle-clipped as a whole.
 * Returns `text` itself when it fits; when even the opening line, the headings and the pointer are
 * over `maxTokens`, the whole is middle-clipped. Never throws unless `countText` throws.
 */
export function clipSummaryToTokens(text: string, maxTokens: number, countText: (text: string) => number): string {
  if (countText(text) <= maxTokens) return text;
  const parts = text.split(/\n(?=## )/);
  if (parts.length < 2) return clipMiddleToTokens(text, maxTokens, countText);
  let footer = '';
  const pointer = POINTER.exec(parts[parts.length - 1]);
  if (pointer) {
    footer = pointer[1];
    parts[parts.length - 1] = parts[parts.length - 1].slice(0, pointer.index);
  }
  const preamble = parts[0].trimEnd();
  const sections: Section[] = parts.slice(1).map((s) => {
    const nl = s.indexOf('\n');
    return nl < 0 ? { heading: s.trimEnd(), body: '' } : { heading: s.slice(0, nl), body: s.slice(nl + 1).trimEnd() };
  });
  // A section whose body the room leaves out goes with its heading, named in one left-out line
  // after the opening one: never dropped in silence.
  const render = (bodies: readonly string[]) => {
    const gone = sections.flatMap((s, k) => (s.body && !bodies[k] ? [leftOutPart(s)] : []));
    return [
      ...(preamble ? [preamble] : []),
      ...(gone.length ? [leftOutLine(gone)] : []),
      ...sections.flatMap((s, k) => (bodies[k] ? [`${s.heading}\n${bodies[k]}`] : s.body ? [] : [s.heading])),
      ...(footer ? [footer] : []),
    ].join('\n\n');
  };
  // The frame: the opening line, the headings and the pointer (the left-out line is counted in the rounds).
  const headingsOnly = [
    ...(preamble ? [preamble] : []),
    ...sections.map((s) => s.heading),
    ...(footer ? [footer] : []),
  ];
  const frame = countText(headingsOnly.join('\n\n'));
  if (frame >= maxTokens) return clipMiddleToTokens(text, maxTokens, countText);
  const sizes = sections.map((s) => (s.body ? countText(s.body) : 0));
  // Rounds: a join can count a token more or less than its parts; the room shrinks by what is over.
  let room = maxTokens - frame;
  // With no room for a body, the left-out line names them all; failing that, the headings alone.
  let best = render(sections.map(() => ''));
  if (countText(best) > maxTokens) best = headingsOnly.join('\n\n');
  for (let round = 0; round < 4 && room > 0; round++) {
    const bodies = share(sections, sizes, room).map((t, k) =>
      t >= sizes[k] ? sections[k].body : t < MIN_BODY_TOKENS ? '' : clipMiddleToTokens(sections[k].body, t, countText),
    );
    const out = render(bodies);
    const n = countText(out);
    if (n <= maxTokens) {
      best = out;
      break;
    }
    room -= n - maxTokens;
  }
  return best;
}

/**
 * Tokens each section's body may keep out of `room`: the typed requests first (all they need, up
 * to {@link REQUESTS_SHARE} of the room while the others need the rest), then the others by filling
 * the smallest first, so a short section stays whole and the longest ones share the rest equally.
 */
function share(sections: readonly Section[], sizes: readonly number[], room: number): number[] {
  const out = sizes.map(() => 0);
  let left = room;
  const requests = sections.findIndex((s) => s.heading.startsWith(REQUESTS_HEADING));
  if (requests >= 0) {
    const others = sizes.reduce((n, t, k) => (k === requests ? n : n + t), 0);
    const most = Math.max(Math.floor(room * REQUESTS_SHARE), room - others);
    out[requests] = Math.min(sizes[requests], most);
    left -= out[requests];
  }
  const rest = sizes.map((n, k) => [n, k] as const).filter(([, k]) => k !== requests);
  rest.sort((a, b) => a[0] - b[0]);
  rest.forEach(([n, k], i) => {
    const even = Math.floor(left / (rest.length - i));
    out[k] = Math.min(n, even);
    left -= out[k];
  });
  return out;
}

/**
 * `message` with its text content clipped by {@link clipSummaryToTokens} so that the whole message
 * is about `maxTokens` tokens (`countMessage` counts it with its overhead, `countText` its text).
 * Undefined when its content is no sectioned string (a caller then clips it as any message); the
 * message itself when it already fits. A new object otherwise: the input is not changed.
 */
export function clipSummaryMessage<M extends { content?: unknown }>(
  message: M,
  maxTokens: number,
  countMessage: (message: M) => number,
  countText: (text: string) => number,
): M | undefined {
  const text = message.content;
  if (typeof text !== 'string' || !hasSections(text)) return undefined;
  const whole = countMessage(message);
  if (whole <= maxTokens) return message;
  const overhead = whole - countText(text);
  const clipped = clipSummaryToTokens(text, Math.max(0, maxTokens - overhead), countText);
  return clipped === text ? message : { ...message, content: clipped };
}
