/**
 * What an earlier summary in a replaced span holds that a later summary must still hold: the files and
 * commits it names and the requests it quotes. Read from the summary's text by rules written for
 * measurement (no code shared with the summary writer), so a summary that drops an earlier one's
 * content is scored as having dropped it. Pure.
 */
import { expandRoots } from './presence';

/** Extensions of files a bare name (no folder) is read as a file by. */
const FILE_EXT =
  /\.(?:md|mdx|txt|json|jsonl|ya?ml|toml|ts|tsx|js|jsx|mjs|cjs|py|rs|go|java|kt|rb|php|cs|c|h|cpp|sql|sh|css|scss|html|vue|svelte)$/i;

/**
 * A commit id: 7 to 40 lower-case hex digits, holding a letter and a digit, said to be a commit: the
 * word "commit" (or "commits", "committed", "sha") within the same line before it.
 */
const HEX = /\b[0-9a-f]{7,40}\b/g;
const COMMIT_WORD = /\b(?:commit(?:s|ted)?|sha|hash(?:es)?)\b/i;

/** Heading of a summary's quoted requests (the product's own summaries, and quoted older ones). */
const REQUESTS_HEADING = /^#{2,3} Requests, verbatim\b/;

/** A product or library named in prose the way a file would be (`Next.js`, `Node.js`). */
const PRODUCT_NAME = /^[A-Z][a-z]+\.js$/;

/** A constant of a type, not a file: capitals after a dot behind a name holding lower case (`SqlTypes.JSON`). */
const CONSTANT = /^[\w$]*[a-z][\w$]*\.[A-Z][A-Z0-9_]*$/;

/** A placeholder a summary writes where it left the middle of a request out. */
const LEFT_OUT =
  /\s*\[… [\d,]+ (?:characters of this request left out|lines? \([\d,]+ characters\) of pasted output left out[^\]\n]*) …\]\s*/;

/**
 * A summary's line saying requests were left out there (`[3 earlier requests (1,234 characters) left
 * out here …]`): no request of its own, though a later summary's requests may carry it.
 */
const LEFT_OUT_LINE = /^\[[\d,]+ earlier requests? \([\d,]+ characters\) left out here\b/;

/** Whether `text` is a summary's line saying requests were left out (see {@link LEFT_OUT_LINE}). */
export function isLeftOutLine(text: string): boolean {
  return LEFT_OUT_LINE.test(text);
}

/** Names (files, commits) and requests an earlier summary holds. */
export interface EarlierHeld {
  /** Paths and commit ids, in order of first mention, without repeats. */
  names: string[];
  /** Requests quoted under its requests heading, each as shown there (marks of left-out middles included). */
  requests: string[];
}

/**
 * The file paths of `text`, in order, without repeats: tokens (split at spaces, quotes, brackets and
 * commas; trailing punctuation and `:line:column` left off) that hold a folder separator and end in a
 * file extension, or bare file names with a code or document extension (`ROADMAP.md`). URLs are not paths,
 * nor an extension alone (`.tsx`), nor a product named in prose (`Next.js`, `Node.js`: one capitalised
 * word before `.js`, with no folder), nor a type's constant (`SqlTypes.JSON`), nor a path a line only
 * points at to be read ("read the full transcript at: p": the earlier summary does not say it changed).
 */
export function pathsIn(text: string): string[] {
  const out = new Set<string>();
  for (const line of expandRoots(text).split('\n')) for (const p of linePaths(line)) out.add(p);
  return [...out];
}

/** Words that end a line's text before a path it only points at to be read ("read the transcript at: p"). */
const READ_AT = /\b(?:read|see|view|open)\b[^.;]*\b(?:at|from|in)\s*:?\s*$/i;

/** The paths of one line (see {@link pathsIn}). */
function linePaths(line: string): string[] {
  const out: string[] = [];
  const words = line.split(/([\s`'"()[\]<>{},;|*]+)/);
  for (let i = 0; i < words.length; i += 2) {
    if (READ_AT.test(words.slice(0, i).join(''))) continue;
    const t = words[i]
      .replace(/[.:!?]+$/, '')
      .replace(/(?::\d+)+$/, '')
      .replace(/\\/g, '/');
    if (t.length < 4 || t.includes('://') || !/^[\w.@+~/:$-]+$/.test(t)) continue;
    const file = t.includes('/')
      ? /\/[\w.@+-]*\w\.[A-Za-z]\w{0,7}$/.test(t)
      : FILE_EXT.test(t) && /^[\w@+-][\w.@+-]*$/.test(t) && !PRODUCT_NAME.test(t) && !CONSTANT.test(t);
    if (file) out.push(t);
  }
  return out;
}

/** The commit ids `text` names (see {@link HEX}), in order, without repeats. */
export function commitsIn(text: string): string[] {
  const out = new Set<string>();
  for (const line of text.split('\n')) {
    for (const m of line.matchAll(HEX)) {
      const h = m[0];
      if (!/[a-f]/.test(h) || !/\d/.test(h)) continue;
      if (COMMIT_WORD.test(line.slice(0, m.index))) out.add(h);
    }
  }
  return [...out];
}

/**
 * The requests quoted under the summary's requests heading: list items (`- ` then the request, its
 * continuation lines indented), up to the next heading, each as the summary shows it: a request
 * whose middle the summary left out keeps its marks (`[… N characters of this request left out …]`).
 */
export function quotedRequests(text: string): string[] {
  const out: string[] = [];
  let inside = false;
  let current: string[] | undefined;
  const flush = () => {
    if (!current) return;
    // As the summary shows it, marks of left-out middles included: a later summary carries the item
    // as it stands, and the scorecard finds it there whole (see `RequestPresentations`).
    const shown = current.join('\n').trim();
    if (shown.replace(LEFT_OUT, ' ').trim()) out.push(shown);
    current = undefined;
  };
  for (const line of text.split('\n')) {
    if (/^#{1,6} /.test(line)) {
      flush();
      inside = REQUESTS_HEADING.test(line);
      continue;
    }
    if (!inside) continue;
    if (line.startsWith('- ')) {
      flush();
      current = [line.slice(2)];
    } else if (current && /^\s{2}/.test(line)) current.push(line.slice(2));
    else if (line.trim()) flush();
  }
  flush();
  return out;
}

/**
 * What the earlier summary `text` holds: its files and commits, and its quoted requests. Names are
 * ordered paths with a folder first, then commits, then bare file names (each in order of first
 * mention), so a bounded list of what was left out shows the most telling names.
 */
export function earlierHeld(text: string): EarlierHeld {
  const requests = quotedRequests(text);
  const paths = pathsIn(text);
  const names = [...paths.filter((p) => p.includes('/')), ...commitsIn(text), ...paths.filter((p) => !p.includes('/'))];
  return { names: [...new Set(names)], requests };
}
