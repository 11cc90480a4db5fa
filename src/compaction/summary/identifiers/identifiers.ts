/**
 * Identifier extraction and back-fill for summaries (design: compaction pipeline, step 2).
 *
 * A summary may paraphrase, but the exact strings an agent needs to continue work — file paths, URLs,
 * ids, shell commands, error messages — must survive verbatim. {@link extractIdentifiers} finds them in
 * the replaced span; {@link appendMissingIdentifiers} appends those a summary left out.
 *
 * Pure: no I/O, no model calls.
 */

/** Longest identifier kept, in characters. Longer matches (an error line, a command) are cut at the end. */
const MAX_IDENTIFIER_CHARS = 240;

/** File extensions accepted for bare file names without a directory (`report.ts`), lower case. */
const FILE_EXTENSIONS = new Set([
  'ts',
  'tsx',
  'mts',
  'cts',
  'js',
  'jsx',
  'mjs',
  'cjs',
  'json',
  'jsonl',
  'md',
  'mdx',
  'txt',
  'py',
  'pyi',
  'rb',
  'go',
  'rs',
  'java',
  'kt',
  'kts',
  'scala',
  'c',
  'h',
  'cc',
  'cpp',
  'hpp',
  'cs',
  'fs',
  'swift',
  'm',
  'php',
  'sh',
  'bash',
  'zsh',
  'ps1',
  'bat',
  'cmd',
  'sql',
  'yml',
  'yaml',
  'toml',
  'ini',
  'cfg',
  'conf',
  'env',
  'lock',
  'xml',
  'html',
  'htm',
  'css',
  'scss',
  'sass',
  'less',
  'vue',
  'svelte',
  'astro',
  'graphql',
  'gql',
  'proto',
  'csv',
  'tsv',
  'log',
  'diff',
  'patch',
  'ipynb',
  'r',
  'lua',
  'dart',
  'ex',
  'exs',
  'erl',
  'hs',
  'ml',
  'clj',
  'zig',
  'nim',
  'sol',
  'tf',
  'gradle',
  'mk',
  'cmake',
  'dockerfile',
  'png',
  'jpg',
  'jpeg',
  'gif',
  'svg',
  'webp',
  'pdf',
  'zip',
  'gz',
  'tgz',
  'wasm',
  'vsix',
  'db',
  'sqlite',
  'pem',
  'crt',
]);

interface Candidate {
  start: number;
  value: string;
}

/** `http(s)://…` up to whitespace or a closing delimiter. */
const URL_RE = /\bhttps?:\/\/[^\s<>"'`)\]}\\]+/g;
/** RFC 4122-shaped UUIDs (any version). */
const UUID_RE = /\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b/g;
/**
 * Hex hashes of 7 to 64 digits (git short and full hashes, sha256), checked for a digit and a letter:
 * a whole token only (a commit, an id; the ends of a range `a1b2c3d..e4f5a6b` too), never a piece of
 * a longer path or name (`…/e03964cb4ea041…/`, `build-e03964cb`, `pkg@1a2b3c4d`, `a1b2c3d4.json`),
 * nor of percent-encoded text, whose escape's digits run into what follows (`%603e37bb42%60` is
 * `` `3e37bb42` ``, an address's query, not a hash), nor the last piece of a colon-joined id
 * (`1:1234:web:ae7e70cdb5`, a Firebase app id).
 */
const HEX_RE = /(?<![\w/\\@%-]|(?<!\.)\.|\w:)[0-9a-fA-F]{7,64}(?![\w/\\@%-]|\.\w)/g;
/**
 * A log's label for a tracing id right before a hex run (`traceId: '…'`, `"request_id": "…"`,
 * `span-id=…`): it names one request's trace in a service's log, not a commit or the work's object.
 */
const TRACE_ID_BEFORE = /\b(?:trace|span|request|correlation|parent)[_-]?id['"]?\s*[:=]\s*['"]?$/i;
/**
 * A setting's label right before a value (`appId: "…"`, `api_key = '…'`, `"clientSecret": "…"`,
 * `AUTH_TOKEN=…`), the value possibly a colon-joined id (`1:1234:web:…`): the value of an id, key,
 * secret or token in a configuration is data, not a commit or a name of the work. A label that
 * names a commit (`commit_id`, `latestGitCommitHash`) is not one, nor a bare `id:` (a record's own).
 */
const SETTING_VALUE_BEFORE =
  /(?<![\w-])(?![\w-]*[Cc]ommit)[\w-]+?(?:[iI]d|ID|[kK]ey|KEY|[sS]ecret|SECRET|[tT]oken|TOKEN|[sS]id|SID)['"]?\s*[:=]\s*['"`]?(?:[\w.-]+:)*$/;
/**
 * Where git prints a commit on the line of a hex run: the word commit (`commit 1a2b3c4`, `Commit
 * a1b2c3d`, `latestGitCommitHash`), git itself or its words for commits (`git show`, `HEAD is now at`,
 * `Merge:`, `cherry-pick`, `revert`, `rebase`, `checkout`, `branch`, `sha`).
 */
const GIT_WORDS =
  /commit|\bgit\b|\bHEAD\b|\bsha\b|cherry-pick|\brevert|\brebase|\bmerge|\bcheckout\b|\bbranch\b|\breflog\b/i;
/** Provider tool-call ids: OpenAI `call_…`, Anthropic `toolu_…`, Responses `fc_…`. */
const TOOL_CALL_ID_RE = /\b(?:call|toolu|fc|tool_call)_[A-Za-z0-9_-]{4,}\b/g;
/** Ids in the transcript markers written by `renderTranscript` (`[call c1]`, `[result c1]`). */
const CALL_MARKER_RE = /\[(?:call|result) ([^\s\]]+)\]/g;
/**
 * POSIX-style paths: anchored (`/abs/x`, `./x`, `../x`, `~/x`) or relative with at least one `/`
 * (`src/a/b.ts`). Segments are word characters, dots, dashes, `@`, `+` and `%`. Backslashes are not
 * separators here: in JSON text (tool-call arguments) `\n` is an escape, not a path.
 */
const PATH_RE =
  /(?<![\w.@:/\\-])(?:~|\.{1,2})?(?:\/[\w.@+%-]+)+\/?|(?<![\w.@:/\\-])[\w@+.-][\w.@+%-]*(?:\/[\w.@+%-]+)+\/?/g;
/**
 * Windows paths with a drive letter (`C:\\Users\\x`, also JSON-escaped `C:\\\\Users\\\\x`), also
 * at the start of a line of JSON text (after a `\\n` escape).
 */
const WINDOWS_PATH_RE = /(?:(?<=\\[nrt])|\b)[A-Za-z]:(?:\\{1,2}[\w.@+%-]+(?: [\w.@+%-]+)*(?=\\))*\\{1,2}[\w.@+%-]+/g;
/** First segments of relative paths that name a directory even without a file extension. */
const COMMON_DIRECTORIES = new Set([
  'src',
  'lib',
  'libs',
  'test',
  'tests',
  'spec',
  'docs',
  'doc',
  'packages',
  'apps',
  'app',
  'scripts',
  'bin',
  'out',
  'dist',
  'build',
  'node_modules',
  'config',
  'public',
  'assets',
  'components',
  'pages',
  'internal',
  'cmd',
  'pkg',
  'include',
  'examples',
  'tools',
  'media',
  'bench',
  'vendor',
  'target',
  'tmp',
  'var',
  'etc',
  'usr',
  'home',
  'opt',
]);

/** Bare file names: `name.ext` with an extension from {@link FILE_EXTENSIONS}. */
const FILE_NAME_RE = /(?<![\w./\\-])[\w-][\w.-]*\.([A-Za-z0-9]{1,10})\b(?![/\\\w])/g;
/** Shell commands in tool-call arguments: `"command": "…"` / `"cmd": "…"` (JSON string values). */
export const COMMAND_STRING_RE = /"(?:command|cmd|script)"\s*:\s*"((?:[^"\\]|\\.)*)"/g;
/** Codex-style command arrays: `"command": ["bash", "-lc", "…"]`. */
export const COMMAND_ARRAY_RE = /"(?:command|cmd)"\s*:\s*(\[(?:\s*"(?:[^"\\]|\\.)*"\s*,?)+\])/g;
/** Shell prompt lines: `$ npm test`. */
/** A package archive's address: a registry tarball (`…/-/name-1.0.0.tgz`), a wheel, a zip or tar archive. */
const ARCHIVE_URL = /\/-\/[^/]+$|\.(?:tgz|tar\.(?:gz|bz2|xz)|whl|zip)$/i;
/** A dependency lock file (written by the package manager, never by the work): its name, any folder. */
const LOCK_FILE =
  /(?:^|[\\/])(?:package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.ya?ml|yarn\.lock|bun\.lockb?|[\w.-]+\.lock)$/i;
/**
 * What follows a product's name in a log line, not a file's: its version (`▲ Next.js 14.2`,
 * `Node.js v20.11.1`) or the time it took (`(next.js: 3.0s, application-code: 305ms)`, a dev
 * server's timing). A file's line number (`app.js:12`) has no unit and no space after its colon.
 */
const PRODUCT_IN_LOG = /^(?:\s+v?\d+\.\d+|:\s+\d+(?:\.\d+)?\s?(?:ms|s|µs)\b)/;
/** What comes before a module specifier in an import (`from '`, `require('`, `import('`). */
const IMPORT_BEFORE = /(?:\bfrom\s*|\brequire\(\s*|\bimport\(\s*|\bimport\s+)['"`]$/;
const PROMPT_LINE_RE = /^[ \t]*\$ (\S.*)$/gm;
/** A line that reports an error (`TypeError: …`, `error TS2304: …`, `Error: …`, `FAILED …`, `panic: …`). */
const ERROR_LINE_RE =
  /\b(?:[A-Z]\w*(?:Error|Exception)\b(?!::):?|[Ee]rror(?:\[\w+\])?:|error [A-Z]{1,4}\d{2,6}\b|ERROR\b|FAILED\b|FATAL\b|fatal:|panic:|Traceback \(most recent call last\))/;

/**
 * Finds identifiers in `text`: URLs, file paths and file names, UUIDs, hex hashes (7–64 digits with at
 * least one digit and one letter), tool-call ids, shell commands (from JSON `command`/`cmd` arguments and
 * `$ ` prompt lines) and error lines (lines containing `Error:`, `error TS2304`, `FAILED`, `panic:`; for
 * a Python `Traceback` the exception line that ends it).
 *
 * @param text Any text: a rendered transcript, tool-call arguments, tool results.
 * @returns Distinct identifiers, in order of first appearance, each at most 240 characters (longer error
 *   lines and commands are cut). Never throws.
 */
export function extractIdentifiers(source: string): string[] {
  // Terminal colour codes are no part of any identifier (same length: positions stay).
  const text = maskAnsi(source);
  const candidates: Candidate[] = [];
  const push = (start: number, raw: string): void => {
    // A match that touches a clip's edge (`…`, the clip marker) may be cut mid-word: no identifier.
    if (atClipEdge(text, start, start + raw.length)) return;
    const value = tidy(raw);
    if (value.length > 0) candidates.push({ start, value });
  };

  // Windows paths first: their backslashes are separators, never escapes.
  const windowsSpans: Array<[number, number]> = [];
  for (const m of text.matchAll(WINDOWS_PATH_RE)) {
    const path = trimTrailingPunctuation(jsonPathEnd(m[0]));
    // `f:\n` in JSON text is a letter, a colon and a line break, not a drive's file.
    if (/^[A-Za-z]:\\{1,2}[nrt]$/.test(path)) continue;
    windowsSpans.push([m.index, m.index + path.length]);
    // The path as written in JSON text (`c:\\\\Apps\\\\x.ts`) is the path `c:\\Apps\\x.ts`.
    if (!examplePath(path)) push(m.index, path.replace(/\\\\/g, '\\'));
  }
  // Tokens are read in a view of the text where a JSON escape (`\n`, `\t` as text in a tool's output
  // or arguments) is a break: the `n` of `\n/src/a.ts` is no letter of the path after it.
  const view = escapesAsBreaks(text, windowsSpans);

  // URLs next; their spans are masked so their path parts are not reported again as paths.
  const urlSpans: Array<[number, number]> = [];
  for (const m of view.matchAll(URL_RE)) {
    // A URL built in a template literal (`http://127.0.0.1:${port}`) is code, not an address: masked only.
    // A package archive's address (a lock file's `resolved` tarball) is no identifier of the work.
    if (!m[0].includes('${') && !ARCHIVE_URL.test(trimTrailingPunctuation(m[0])))
      push(m.index, trimTrailingPunctuation(m[0]));
    urlSpans.push([m.index, m.index + m[0].length]);
  }
  const masked = maskSpans(view, urlSpans);

  for (const m of text.matchAll(COMMAND_STRING_RE)) {
    const command = decodeJsonString(m[1] ?? '');
    if (command !== undefined && isOneCommand(command)) push(m.index, command);
  }
  for (const m of text.matchAll(COMMAND_ARRAY_RE)) {
    const command = commandFromArray(m[1] ?? '');
    if (command !== undefined && isOneCommand(command)) push(m.index, command);
  }
  for (const m of text.matchAll(PROMPT_LINE_RE)) push(m.index, m[1] ?? '');

  collectErrorLines(text, push);

  for (const m of view.matchAll(UUID_RE)) push(m.index, m[0]);
  for (const m of view.matchAll(HEX_RE)) {
    if (
      /[0-9]/.test(m[0]) &&
      /[a-fA-F]/.test(m[0]) &&
      !isInsideUuid(view, m.index, m[0].length) &&
      !TRACE_ID_BEFORE.test(view.slice(Math.max(0, m.index - 24), m.index)) &&
      !SETTING_VALUE_BEFORE.test(view.slice(Math.max(0, m.index - 60), m.index)) &&
      gitPrinted(view, m.index, m[0].length)
    ) {
      push(m.index, m[0]);
    }
  }
  for (const m of view.matchAll(TOOL_CALL_ID_RE)) push(m.index, m[0]);
  for (const m of text.matchAll(CALL_MARKER_RE)) push(m.index + m[0].indexOf(' ') + 1, m[1] ?? '');

  for (const m of masked.matchAll(PATH_RE)) {
    const path = trimTrailingPunctuation(m[0]);
    // A piece of a path built from parts (`${dir}/a.ts`, `app/[id]/page.tsx`, `src/*.ts`) is not the path.
    if (PIECE_BEFORE.test(masked.charAt(m.index - 1)) || PIECE_AFTER.test(masked.charAt(m.index + m[0].length)))
      continue;
    // The end of a quoted name with spaces (`'docs/LM Studio/setup.md'`) is a piece of it.
    if (inSpacedQuote(masked, m.index, m.index + path.length)) continue;
    // A module specifier (`from './chat'`) names a module, not a file path; a lock file is no file of the work.
    if (IMPORT_BEFORE.test(masked.slice(Math.max(0, m.index - 12), m.index)) && !/\.\w{1,6}$/.test(path)) continue;
    if (LOCK_FILE.test(path)) continue;
    // `dir/` and `dir` are one identifier; the bare form is found inside either.
    if (looksLikePath(path) && !examplePath(path)) push(m.index, path.length > 1 ? path.replace(/\/+$/, '') : path);
  }
  for (const m of masked.matchAll(FILE_NAME_RE)) {
    const ext = m[1] ?? '';
    if (
      FILE_EXTENSIONS.has(ext.toLowerCase()) &&
      isFileName(masked, m.index, m[0], ext) &&
      !LOCK_FILE.test(m[0]) &&
      !PRODUCT_IN_LOG.test(masked.slice(m.index + m[0].length, m.index + m[0].length + 24))
    )
      push(m.index, m[0]);
  }

  // Stable sort by position; at equal positions the longer (more specific) match first.
  candidates.sort((a, b) => a.start - b.start || b.value.length - a.value.length);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const c of candidates) {
    if (seen.has(c.value)) continue;
    seen.add(c.value);
    out.push(c.value);
  }
  return out;
}

/**
 * A JSON-escaped Windows path (separators `\\\\`) ends where a single backslash starts an escape
 * (`C:\\\\a\\\\b.ts\\nnext` is `C:\\\\a\\\\b.ts` and a line break).
 */
function jsonPathEnd(path: string): string {
  if (!path.includes('\\\\')) return path;
  const escape = /(?<!\\)\\[nrt]/.exec(path);
  return escape === null ? path : path.slice(0, escape.index);
}

/**
 * `text` with each JSON escape of a line break or tab (`\\n`, `\\r`, `\\t` as text, the backslash
 * itself not escaped) outside `keep` (Windows paths, whose `\\new` is a folder) written as a space
 * and a line break (a tab as two spaces): same length, so indices still match. Tool output recorded
 * as JSON text (Codex) holds its lines this way; a token at the start of such a line follows the
 * escape's letter, which no word boundary separates from it.
 */
function escapesAsBreaks(text: string, keep: ReadonlyArray<[number, number]>): string {
  if (!/\\[nrt]/.test(text)) return text;
  let k = 0;
  return text.replace(/(?<!\\)((?:\\\\)*)\\([nrt])/g, (m: string, even: string, letter: string, at: number) => {
    const escapeAt = at + even.length;
    while (k < keep.length && keep[k][1] <= escapeAt) k++;
    if (k < keep.length && keep[k][0] <= escapeAt) return m;
    return even + (letter === 't' ? '  ' : ' \n');
  });
}

/**
 * ANSI escape sequences (colours, cursor moves): the ESC control byte, or its escaped spellings as
 * text (`\x1b`, `\u001b`, `\033`, `\e`, with one or two backslashes as JSON text has them), then
 * `[`, parameters and a final letter.
 */
const ESC = String.fromCharCode(27);
const ANSI_RE = new RegExp(String.raw`(?:${ESC}|\\{1,2}(?:x1b|u001b|033|e))\[[0-9;?]*[A-Za-z]`, 'gi');

/** `text` with its ANSI escape sequences replaced by spaces (same length, so indices still match). */
function maskAnsi(text: string): string {
  if (!text.includes(ESC) && !/\\(?:x1b|u001b|033|e)\[/i.test(text)) return text;
  return text.replace(ANSI_RE, (m) => ' '.repeat(m.length));
}

/**
 * Whether `[start, end)` of `text` ends a quoted name that holds a space (`'LM Studio configuration.md'`):
 * the closing quote follows it and its opening quote, on the same line, comes a few words before it
 * (at most four). The name is one file; its last word alone names none.
 */
function inSpacedQuote(text: string, start: number, end: number): boolean {
  const q = text.charAt(end);
  if (q !== "'" && q !== '"' && q !== '`') return false;
  const lineStart = text.lastIndexOf('\n', start) + 1;
  const open = text.lastIndexOf(q, start - 1);
  // A quote opened after a space, `=` or `(` (a shell argument, a name in prose); one opened after
  // `:`, `,` or `[` is a JSON value (a whole command), whose words are no one name.
  return (
    open >= lineStart &&
    (open === lineStart || /[\s=(]/.test(text.charAt(open - 1))) &&
    /\s/.test(text.slice(open + 1, start)) &&
    text.slice(open + 1, start).split(/\s+/).length <= 4
  );
}

/**
 * Whether the bare file name `name` (extension `ext`) found at `start` of `text` names a file, not
 * code: no call (`response.json()`), no member chain (`process.env.PORT`), no constant written in
 * capitals after a name in lower case (`SqlTypes.JSON`), no last word of a quoted name with spaces.
 */
function isFileName(text: string, start: number, name: string, ext: string): boolean {
  const end = start + name.length;
  const next = text.charAt(end);
  if (next === '(' || (next === '.' && /\w/.test(text.charAt(end + 1)))) return false;
  if (ext !== ext.toLowerCase() && /[a-z]/.test(name.slice(0, -ext.length - 1))) return false;
  return !inSpacedQuote(text, start, end);
}

/**
 * Whether an identifier is one token, as the lists of identifiers carry them: no whitespace (a
 * command, an error line or a sentence is no identifier; the notes list commands and errors with
 * their outcomes), except a Windows path, whose folders may hold spaces.
 */
export function isOneToken(id: string): boolean {
  return !/\s/.test(id) || /^[A-Za-z]:\\/.test(id);
}

/**
 * A command that is an identifier: one or two lines, no heredoc (a script or a patch written
 * through the shell is content, not a name to carry: the ledger names the files it writes).
 */
function isOneCommand(command: string): boolean {
  return !command.includes('<<') && command.split('\n').length <= 2;
}

/**
 * A line of source code or narration that merely mentions an error (`console.error('x', e);`,
 * `} catch (error) {`, `-- ERROR: …` in SQL, "The user reported an error…"), not an error report.
 */
const NOT_AN_ERROR_REPORT =
  /^(?:[-+]\s*)?(?:[})\]]|\\?["'`]|(?:const|let|var|return|throw|catch|if|else|elif|except|raise|def|function|import|export|from|await|async|print|echo|log|logger|console|stderr|stdout|process|self|this|alert|set[A-Z]\w*|res|req|expect|assert)\b|\/\/|#|--|\*)|[;,]\s*$|\{\s*$|^(?:[-*]\s+|\d+[.)]\s+)?(?:the user|user|i|i'm|i'll|we|let me|let's|let us|next|first|then|now|this|that|it|they|he|she)\b/i;

/**
 * The `path:line:` (or `path:line:column:`) prefix grep, rg and compilers put before a line they
 * quote, or the bare line number `grep -n` on one file, `cat -n` and file readers put there (`54:`,
 * `28<tab>`, `12→`).
 */
const SEARCH_HIT_PREFIX = /^(?:[\w./\\@~+-]+:\d+(?::\d+)?[:-]|\s*\d+(?:[:\t]|\s*→))/;

/** Result of {@link appendMissingIdentifiers}. */
export interface IdentifierBackfill {
  /** The summary with the missing identifiers appended (unchanged when none were missing). */
  text: string;
  /** Identifiers appended, in order. */
  added: string[];
}

/** Identifiers too common to be worth keeping. */
export const NOISE = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '2>&1', '/tmp']);

/** Heading of the identifiers section, as the default summary instruction asks for it. */
export const IDENTIFIERS_HEADING = '## Identifiers';

/**
 * Appends identifiers found in `sourceText` but absent (verbatim, case-sensitive) from `summary` as list
 * items `- <identifier>` under the summary's `## Identifiers` section, creating the section at the end
 * when there is none, or extending the existing one (at its end, before the next `## ` heading).
 *
 * @param summary Summary text written by a summarizer.
 * @param sourceText Text of the span the summary replaces (rendered transcript or raw message text).
 * @param maxChars Upper bound, in characters (UTF-16 code units), on the text this call adds (heading
 *   and list items included). Identifiers that do not fit are skipped; later shorter ones may still fit.
 *   About 4 characters make one token for English text and code.
 * @returns The new text and the identifiers added. Never throws.
 */
export function appendMissingIdentifiers(summary: string, sourceText: string, maxChars: number): IdentifierBackfill {
  // Blank or trivial strings and the null device carry no information worth a line.
  const missing = extractIdentifiers(sourceText).filter(
    (id) => id.trim().length >= 3 && !NOISE.has(id.trim()) && !summary.includes(id),
  );
  if (missing.length === 0 || maxChars <= 0) return { text: summary, added: [] };

  const section = findIdentifiersSection(summary);
  const heading = section === undefined ? `${IDENTIFIERS_HEADING}\n` : '';
  const separator = section === undefined ? (summary.trimEnd().length > 0 ? '\n\n' : '') : '';
  let budget = maxChars - heading.length - separator.length;
  const added: string[] = [];
  const lines: string[] = [];
  for (const id of missing) {
    // An identifier spanning lines would break the list; such ids come only from commands.
    const line = `- ${id.replace(/\r?\n/g, ' ⏎ ')}\n`;
    if (line.length > budget) continue;
    budget -= line.length;
    lines.push(line);
    added.push(id);
  }
  if (added.length === 0) return { text: summary, added: [] };

  const block = lines.join('');
  if (section === undefined) {
    return { text: `${summary.trimEnd()}${separator}${heading}${block}`.trimEnd(), added };
  }
  const before = summary.slice(0, section.end).replace(/\s*$/, '\n');
  const after = summary.slice(section.end);
  const joined = after.length > 0 ? `${before}${block}\n${after.replace(/^\s*/, '')}` : `${before}${block}`;
  return { text: joined.trimEnd(), added };
}

/** Locates the `## Identifiers…` section: `end` is the index where the next `#`/`##` heading starts. */
function findIdentifiersSection(summary: string): { start: number; end: number } | undefined {
  const heading = /^#{1,3}\s*Identifiers\b.*$/im.exec(summary);
  if (heading === null) return undefined;
  const bodyStart = heading.index + heading[0].length;
  const next = /^#{1,3}\s/m.exec(summary.slice(bodyStart));
  return { start: heading.index, end: next === null ? summary.length : bodyStart + next.index };
}

/**
 * Adds error lines: each line matching {@link ERROR_LINE_RE}; a Traceback contributes its last line.
 * Lines end at a newline or at a JSON `\\n` escape (tool-call arguments are JSON text). A line longer
 * than {@link MAX_IDENTIFIER_CHARS} contributes the text from just before its match.
 */
function collectErrorLines(text: string, push: (start: number, raw: string) => void): void {
  const lines: Array<{ index: number; text: string }> = [];
  let from = 0;
  for (const separator of text.matchAll(/\n|\\n/g)) {
    lines.push({ index: from, text: text.slice(from, separator.index) });
    from = separator.index + separator[0].length;
  }
  lines.push({ index: from, text: text.slice(from) });
  // For each line, the first later line that is not indented and not blank (a Traceback's end),
  // found in one pass from the end rather than by a search per Traceback.
  let endAfter: Int32Array | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const match = ERROR_LINE_RE.exec(line.text);
    if (match === null) continue;
    if (match[0].startsWith('Traceback')) {
      // The exception line is the first non-indented line after the frames.
      endAfter ??= exceptionLines(lines);
      const end = lines[endAfter[i]];
      if (end !== undefined) push(end.index, end.text);
      continue;
    }
    // Transcript markers (`[result c1] `) at the start of a line are not part of the error text.
    let value = line.text.replace(/^\s*(?:\[[^\]\n]*\]\s*)+/, '');
    if (NOT_AN_ERROR_REPORT.test(value.trim())) continue;
    // A search hit (`grep -n`, `rg -n`: `path:74:  const { error: e } =`) shows a line of a file; it
    // is an error report only when the line itself is one (`src/a.c:3:1: error: …` is a compiler's).
    const hit = SEARCH_HIT_PREFIX.exec(value);
    if (hit && NOT_AN_ERROR_REPORT.test(value.slice(hit[0].length).trim())) continue;
    if (value.length > MAX_IDENTIFIER_CHARS) {
      const at = Math.max(0, match.index - 40);
      const wordStart = line.text.lastIndexOf(' ', at);
      value = line.text.slice(wordStart < 0 || at - wordStart > 20 ? at : wordStart + 1);
    }
    push(line.index, value);
  }
}

/**
 * Whether a Traceback of `source` waits for its exception line: after the last line that opens one
 * (as {@link extractIdentifiers} reads the lines: colour codes masked, split at a line break or its
 * `\\n` escape), no line is neither indented nor blank. Text after `source` (joined with `\n`) then
 * gives {@link extractIdentifiers} its first such line, at its place. Never throws.
 */
export function tracebackAwaitsException(source: string): boolean {
  if (!source.includes('Traceback')) return false;
  const lines = maskAnsi(source).split(/\n|\\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    if (ERROR_LINE_RE.exec(lines[i])?.[0].startsWith('Traceback')) return true;
    if (endsTraceback(lines[i])) return false;
  }
  return false;
}

/** Whether some line of `source` would end a Traceback before it (see {@link tracebackAwaitsException}). */
export function hasExceptionLine(source: string): boolean {
  return maskAnsi(source)
    .split(/\n|\\n/)
    .some(endsTraceback);
}

/** A line neither indented nor blank: the exception line that ends a Traceback's frames. */
function endsTraceback(line: string): boolean {
  return !/^\s/.test(line) && line.trim().length > 0;
}

/** `out[i]`: index of the first line after `i` that is neither indented nor blank (`lines.length` when none). */
function exceptionLines(lines: ReadonlyArray<{ text: string }>): Int32Array {
  const out = new Int32Array(lines.length);
  let next = lines.length;
  for (let i = lines.length - 1; i >= 0; i--) {
    out[i] = next;
    if (endsTraceback(lines[i].text)) next = i;
  }
  return out;
}

/** Characters before a path match that make it a piece of a longer one (a template, a route's `[id]`, a variable). */
const PIECE_BEFORE = /[\]}$*>]/;
/** Characters after a path match that make it a piece of a longer one. */
const PIECE_AFTER = /[[{$*<]/;

/**
 * A path written as an example in instructions or docs, naming no file of the project:
 * `/path/to/file`, `/abs/x`, `foo/bar`, `your-project/src`, `<dir>/x`, `C:\\path\\to\\x`.
 */
export function examplePath(p: string): boolean {
  return EXAMPLE_SEGMENT.test(p);
}
const EXAMPLE_SEGMENT =
  /(?:^|[\\/])(?:path[\\/]to|foo|bar|baz|qux|abs|your[-_][\w-]*|my[-_](?:project|app|repo)|some[-_]?(?:dir|file|path)|<[^>]*>)(?=[\\/.]|$)/i;

/**
 * Whether `[start, end)` of `text` touches a clip: an ellipsis right before or after it, or the clip
 * marker's brackets (`[… 1200 characters clipped …]`) on the line next to it.
 */
function atClipEdge(text: string, start: number, end: number): boolean {
  return (
    text.charAt(end) === '…' ||
    text.startsWith('\n[… ', end) ||
    text.charAt(start - 1) === '…' ||
    text.startsWith('…]\n', start - 3)
  );
}

/** Trims, strips the transcript's own line prefixes, and cuts to {@link MAX_IDENTIFIER_CHARS}. */
function tidy(raw: string): string {
  const value = raw.trim();
  if (value.length <= MAX_IDENTIFIER_CHARS) return value;
  let cut = MAX_IDENTIFIER_CHARS;
  const code = value.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1; // never end on a lone high surrogate
  return value.slice(0, cut);
}

/** Drops sentence punctuation that follows an identifier in prose (`see src/a.ts.` → `src/a.ts`). */
function trimTrailingPunctuation(s: string): string {
  return s.replace(/[.,;:!?'"]+$/, '');
}

/** `s` with each `[start, end)` span replaced by spaces (same length, so indices still match). */
function maskSpans(s: string, spans: ReadonlyArray<[number, number]>): string {
  if (spans.length === 0) return s;
  const parts: string[] = [];
  let at = 0;
  for (const [start, end] of spans) {
    parts.push(s.slice(at, start), ' '.repeat(end - start));
    at = end;
  }
  parts.push(s.slice(at));
  return parts.join('');
}

/**
 * Rejects prose that merely contains slashes (`and/or`, `HTML/JSON`, `SMS/email/push`, `</thinking>`,
 * `/task`). Anchored paths need two segments or a file extension; relative ones need a file extension
 * on the last segment, a trailing `/`, a leading dot directory, or a common first directory (`src/`).
 */
function looksLikePath(p: string): boolean {
  if (!/[A-Za-z]/.test(p)) return false;
  const segments = p.split('/').filter((seg) => seg.length > 0 && seg !== '.' && seg !== '..' && seg !== '~');
  if (segments.length === 0) return false;
  const last = segments[segments.length - 1];
  const hasExtension = FILE_EXTENSIONS.has((/\.([A-Za-z0-9]{1,10})$/.exec(last)?.[1] ?? '').toLowerCase());
  if (/^(?:~|\.{1,2})?\//.test(p)) {
    return segments.length >= 2 || hasExtension || /^(?:~|\.{1,2})\//.test(p);
  }
  if (hasExtension || p.endsWith('/')) return true;
  const first = segments[0];
  return first.startsWith('.') || COMMON_DIRECTORIES.has(first.toLowerCase());
}

function isInsideUuid(text: string, index: number, length: number): boolean {
  return text[index - 1] === '-' || text[index + length] === '-';
}

/**
 * Whether the hex run at `[index, index + length)` of `text` is a commit as git prints one: its line
 * holds {@link GIT_WORDS}, or the run opens its line before a message (`git log --oneline`, with
 * `--graph`'s `* | /`; in output recorded as JSON text, after its key), is the whole line (`git rev-parse HEAD`), ends a branch's bracket (`[main
 * a1b2c3d] …`) or is an end of a range (`a1b2c3d..e4f5a6b`). Any other hex run (a checksum, a
 * sub-agent's or a build's id) is no commit, and an identifier list would show it as one.
 */
function gitPrinted(text: string, index: number, length: number): boolean {
  const end = index + length;
  if (text.startsWith('..', end) || text.slice(Math.max(0, index - 3), index).endsWith('..')) return true;
  const lineStart = text.lastIndexOf('\n', index - 1) + 1;
  const nl = text.indexOf('\n', end);
  const lineEnd = nl < 0 ? text.length : nl;
  const before = text.slice(lineStart, index);
  const after = text.slice(end, lineEnd);
  // A line of output recorded as JSON text starts after its key (`{"output":"9f8e7d6 fix …`).
  if (/^(?:\{?"\w+"\s*:\s*")?[\s*|/\\]*$/.test(before) && (/^\s*$/.test(after) || /^ \S/.test(after))) return true;
  if (/\[[^\]\s]+(?: \(root-commit\))? $/.test(before) && after.startsWith(']')) return true;
  return GIT_WORDS.test(before) || GIT_WORDS.test(after);
}

function decodeJsonString(body: string): string | undefined {
  try {
    const value: unknown = JSON.parse(`"${body}"`);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** `["bash","-lc","npm test"]` → `npm test`; `["git","status"]` → `git status`. */
function commandFromArray(json: string): string | undefined {
  let parts: unknown;
  try {
    parts = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parts) || !parts.every((p): p is string => typeof p === 'string') || parts.length === 0) {
    return undefined;
  }
  const shells = new Set(['bash', 'sh', 'zsh', '/bin/bash', '/bin/sh', 'pwsh', 'powershell']);
  if (parts.length >= 3 && shells.has(parts[0]) && /^-\w*c$/.test(parts[1])) {
    return parts.slice(2).join(' ');
  }
  return parts.join(' ');
}
