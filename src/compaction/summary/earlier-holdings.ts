/**
 * What an earlier summary holds that the summary replacing it must still hold: the files it names
 * (with the line that says what happened to each), the commits it names and the root causes it
 * states. A span that folds an earlier summary (the product's own, or a recording agent's, imported)
 * is summarised within the new summary's budget, which at a small context window is far smaller than
 * the earlier summary: without this, a richer summary would be replaced by a thinner one, and the
 * agent would lose the files it created and the commits it made. What the new text does not name is
 * added under {@link KEPT_HEADING}, whatever the budget; when even that does not make the span
 * shorter, the compactor keeps the span as it is (see `compactor.ts`).
 *
 * The writer's own rules (the retention scorecard reads summaries by rules of its own).
 * Pure: no I/O.
 */
import type { ContextItem } from '../types';
import { textWithPlaceholders } from '../content-text';
import { expandRoots, parseRootsLine, rootsIn } from './ledger/path-root';
import { LEDGER } from './ledger/ledger';
import { expandFolderLines, foldIntoFolders, shortDetail } from './ledger/file-names';
import { REQUESTS_HEADING } from './requests-section';
import { insertSection } from './recall-pointer';
import { productOrFile } from './identifiers/file-use';

/** Heading of what the earlier summaries held and the new notes did not name. */
export const KEPT_HEADING = '## Kept from the earlier summaries (files, commits, root causes)';

/**
 * How the carried files an earlier summary listed as read only begin: read files stay told apart
 * from changed ones (the agent must not take a file it only read for one it edited).
 */
export const READ_LINE = '- Files read (not changed):';

/** How the line of the carried commits begins: their ids, one list, oldest first. */
export const KEPT_COMMITS_LINE = '- Commits:';

/** Most characters of one carried line (a file's line of what changed, a root cause). */
const LINE_CHARS = 240;

/** A file path: a token with a folder separator ending in an extension, or a bare name with a common one. */
const PATH_TOKEN = /^(?:[\w.@+~$-]*\/)+[\w.@+-]*[\w@+-]\.[A-Za-z][\w]{0,7}$/;
const BARE_FILE =
  /^[\w@+-][\w.@+-]*\.(?:md|mdx|txt|json|jsonl|ya?ml|toml|ts|tsx|js|jsx|mjs|cjs|py|rs|go|java|kt|rb|php|cs|c|h|cpp|sql|sh|css|scss|html|vue|svelte|lock|env)$/i;
/** A commit id: 7 to 40 lower-case hex digits holding a letter and a digit. */
const HEX = /(?<![\w/.-])[0-9a-f]{7,40}(?![\w/.-])/g;

/**
 * Whether a line of an earlier summary under `heading` names commits the agent made: a line of its
 * commits section, the commits line of its kept section (a command's line names the commits it made
 * after its outcome, {@link COMMAND_COMMITS}), or (a recording agent's own summary, which
 * has no sections of ours) a line that says "commit". A hex id anywhere else (an identifier
 * from a `git log` listing, a sub-agent's id, a request's trace id) is no commit of the agent's.
 */
function namesCommits(heading: string, line: string): boolean {
  // A recording agent's own summary has none of these headings: its line that says "commit" counts.
  if (heading === '') return /\bcommit/i.test(line);
  return heading === LEDGER.commits || (heading === KEPT_HEADING && line.startsWith(KEPT_COMMITS_LINE));
}
/** A command's line that names the commits it made (`… → ok, commit 4be9a4b`, ledger.ts): their ids. */
const COMMAND_COMMITS = /→ ok, commit ((?:[0-9a-f]{7,40}(?:, )?)+)/;

/** Lines that state why something failed. */
const CAUSE = /\broot[- ]cause|\bcaused by\b|\bthe cause (?:was|is)\b|\bbecause of\b/i;

/** One thing an earlier summary held: its key (a path, a commit id, a cause line) and the line that keeps it. */
interface Holding {
  kind: 'file' | 'commit' | 'cause';
  key: string;
  /** A file the earlier summary lists as read only (its files section's `- read only:` line). */
  read?: boolean;
  /** The earlier summary's line that says what happened to it, when there is one. */
  line?: string;
}

/**
 * A bare name that is code, not a file: an extension in capitals after a name holding lower case
 * (`SqlTypes.JSON`, `MediaType.JSON`), the rule the identifier lists apply to bare file names.
 */
function isCodeMember(token: string): boolean {
  const at = token.lastIndexOf('.');
  const ext = token.slice(at + 1);
  return !token.includes('/') && ext !== ext.toLowerCase() && /[a-z]/.test(token.slice(0, at));
}

/**
 * A token that names no file of the work: a glob (`eslint.config*`, cut there it reads as a file
 * named `eslint.config`), a scoped package (`@solana/web3.js`), a name clipped with `…`, or, outside
 * the files section's own lines, a product named like a file (`Node.js`, `MQTT.js`: see
 * `productOrFile`), which the files section would name had the work used it as a file.
 */
function namesNoFile(token: string, inFiles: boolean): boolean {
  if (/[*?…]/.test(token) || /^@[\w.-]+\/[\w.-]+$/.test(token)) return true;
  return !inFiles && !/[\\/]/.test(token) && (productOrFile(token) || /^[A-Z][A-Z\d]*\.js$/.test(token));
}

/** A command that copies: its last path is the copy, the ones before it are only read. */
const COPY_COMMAND = /(?:^|[\s`(;&|])(?:cp|copy|copy-item|cpi)\s/i;
/** Words before a path that point at it as something to read (`read the full transcript at: p`). */
const READ_POINTER = /\b(?:read|see|view|open)\b[^.;]*\b(?:at|from|in)\s*:?\s*$/i;

/** Whether the text before a path ends inside a copy command (no command separator since its `cp`). */
function inCopy(before: string): boolean {
  const last = before.split(/[;&|]/).pop() ?? '';
  return COPY_COMMAND.test(last);
}

/**
 * What `echo` or `printf` prints in a command (`echo "=== PROMPT.MD ==="`, `echo "--- a.md ---"`):
 * banner text, not a file operation; where it is written to (`echo x > notes.md`) stays.
 */
const ECHOED = /(\b(?:echo|printf|Write-Host)\b)((?:\s+(?:"[^"\n]*"|'[^'\n]*'|[^\s;&|<>`⏎"']+))+)/gi;

/** `line` with the text its commands echo left out ({@link ECHOED}). */
function withoutEchoedText(line: string): string {
  return /\b(?:echo|printf|Write-Host)\b/i.test(line) ? line.replace(ECHOED, '$1') : line;
}

/**
 * The file paths of one line that it may say were changed, roots expanded, in order: no code member
 * (see {@link isCodeMember}), no source of a copy (read, not changed: `cp a b` holds `b`), no path
 * the line only points at to be read ("read the full transcript at: p").
 */
function pathsOf(line: string, inFiles = false): string[] {
  line = withoutEchoedText(line);
  const out: string[] = [];
  const copies = COPY_COMMAND.test(line);
  const found: { token: string; at: number }[] = [];
  let at = 0;
  for (const raw of line.split(/([\s`'"()[\]<>{},;|]+)/)) {
    const start = at;
    at += raw.length;
    // Emphasis around a name (`**src/a.ts**`) is markdown; a star on one side only is a glob.
    const bare = /^(\*+)([^*]+)\1$/.exec(raw)?.[2] ?? raw;
    const t = bare.replace(/[.:!?]+$/, '').replace(/(?::\d+)+$/, '');
    if (t.length < 4 || t.includes('://') || isCodeMember(t) || namesNoFile(t, inFiles)) continue;
    if (READ_POINTER.test(line.slice(0, start))) continue;
    if ((PATH_TOKEN.test(t) || BARE_FILE.test(t)) && !found.some((f) => f.token === t))
      found.push({ token: t, at: start });
  }
  for (const [i, f] of found.entries()) {
    // Of a copy's paths, the last one before the next command is the destination.
    const next = found[i + 1];
    const between = next ? line.slice(f.at, next.at) : '';
    if (copies && next && inCopy(line.slice(0, f.at)) && !/[;&|]/.test(between)) continue;
    out.push(f.token);
  }
  return out;
}

/** The commit ids of one line. */
function commitsOf(line: string): string[] {
  return [...line.matchAll(HEX)].map((m) => m[0]).filter((h) => /[a-f]/.test(h) && /\d/.test(h));
}

/** What the summary `text` holds: files (with their line in a files section), commits, cause lines. */
function holdingsOf(text: string): Holding[] {
  const roots = rootsIn(text);
  const out: Holding[] = [];
  let heading = '';
  for (const raw of text.split('\n')) {
    if (/^#{1,6} /.test(raw)) {
      heading = raw.trim();
      continue;
    }
    // The requests section is carried by the requests of the span; roots lines name folders.
    if (heading.startsWith(REQUESTS_HEADING) || parseRootsLine(raw) !== undefined) continue;
    const line = expandRoots(roots, raw).trim();
    if (!line) continue;
    const read = heading === LEDGER.files && line.startsWith('- read only:');
    const inFiles = heading === LEDGER.files && /^- \S+: /.test(line) && !read;
    for (const p of pathsOf(line, heading === LEDGER.files))
      out.push({ kind: 'file', key: p, ...(inFiles ? { line } : {}), ...(read ? { read: true } : {}) });
    if (namesCommits(heading, line)) for (const c of commitsOf(line)) out.push({ kind: 'commit', key: c });
    else if (heading === LEDGER.commands) {
      const made = COMMAND_COMMITS.exec(line);
      if (made) for (const c of commitsOf(made[1])) out.push({ kind: 'commit', key: c });
    }
    if (CAUSE.test(line)) out.push({ kind: 'cause', key: line.replace(/^[-*\s]+/, ''), line });
  }
  return out;
}

/** Whitespace-collapsed lower-case text, for presence of a cause line. */
function flat(text: string): string {
  return text.replace(/\s+/g, ' ').toLowerCase();
}

function clipLine(line: string): string {
  return line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS - 1)}…` : line;
}

/**
 * How many shorter forms {@link keepEarlierHoldings} can write of what it keeps, below the full one
 * (level 0): 1, each file's line with what changed in a short form; 2, the files changed named by
 * folder, each saying what happened to it (created, edited, moved here, deleted), the files read
 * still listed; 3, the files changed by folder only. Past the last level the caller leaves the kept
 * part out altogether.
 */
export const SHORTER_HOLDINGS = 3;

/**
 * `summary` (a new summary's text) with what the earlier summaries among `span` held and it does not
 * name added under {@link KEPT_HEADING}, before its requests section (else before its closing pointer line, else at its end): each missing
 * file with the earlier line that says what changed in it, the files listed as read only on one
 * line of their own ({@link READ_LINE}), other paths in one list, the missing
 * commit ids, the missing root-cause lines. Paths are written out in full. `level` (0 to
 * {@link SHORTER_HOLDINGS}) asks for a shorter form of the files: a room too small for the full one
 * still names every file changed, with what happened to it, before any is left out. `summary`
 * unchanged when nothing is missing or the span holds no earlier summary. Never throws.
 */
export function keepEarlierHoldings(summary: string, span: readonly ContextItem[], level = 0): string {
  const earlier = span.filter((i) => i.kind === 'summary' && i.attachedFile === undefined);
  if (earlier.length === 0) return summary;
  // A file named on a folder line (`- in src/: created a.ts`) is named.
  const present = expandFolderLines(expandRoots(rootsIn(summary), summary));
  const presentFlat = flat(present);
  const fileLines: string[] = [];
  const bareFiles: string[] = [];
  const commits: string[] = [];
  const causes: string[] = [];
  const readFiles: string[] = [];
  const seen = new Set<string>();
  const named = (key: string) => present.includes(key);
  // A commit is kept unless the new text lists it as a commit: an id in another list (identifiers
  // carried from the earlier summary) does not tell the agent it made that commit.
  const presentCommits = new Set(holdingsOf(present).flatMap((h) => (h.kind === 'commit' ? [h.key] : [])));
  for (const item of earlier) {
    for (const h of holdingsOf(textWithPlaceholders(item.message.content))) {
      // Read files are listed apart, unless another line says the file changed.
      if (h.read) {
        if (!named(h.key) && !readFiles.includes(h.key)) readFiles.push(h.key);
        continue;
      }
      if (seen.has(`${h.kind}:${h.key}`)) continue;
      if (
        h.kind === 'cause'
          ? presentFlat.includes(flat(h.key))
          : h.kind === 'commit'
            ? presentCommits.has(h.key)
            : named(h.key)
      )
        continue;
      seen.add(`${h.kind}:${h.key}`);
      if (h.kind === 'file') {
        if (h.line && !fileLines.includes(clipLine(h.line))) fileLines.push(clipLine(h.line));
        else if (!h.line) bareFiles.push(h.key);
      } else if (h.kind === 'commit') commits.push(h.key);
      else causes.push(`- ${clipLine(h.key)}`);
    }
  }
  // A path a carried line already names is not listed again.
  const inLines = fileLines.join('\n');
  const read = readFiles.filter((p) => !inLines.includes(p));
  const rest = bareFiles.filter((p) => !inLines.includes(p) && !read.includes(p));
  const changed = level >= 2 ? foldIntoFolders([], fileLines) : level === 1 ? fileLines.map(shortDetail) : fileLines;
  const lines = [
    ...changed,
    ...(read.length && level < 3 ? [`${READ_LINE} ${read.join(', ')}`] : []),
    ...(rest.length && level < 3 ? [`- Files also named: ${rest.join(', ')}`] : []),
    ...(commits.length ? [`${KEPT_COMMITS_LINE} ${commits.join('; ')}`] : []),
    ...causes,
  ];
  if (lines.length === 0) return summary;
  const section = `${KEPT_HEADING}\n${lines.join('\n')}`;
  return insertSection(summary, section, REQUESTS_HEADING);
}
