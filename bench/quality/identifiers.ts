/**
 * Identifiers by class, taken from what the user typed, what the agent wrote and the arguments of
 * its tool calls (never from tool output): paths, commands, error lines, function/class names, URLs.
 * The benchmark's own regular expressions; each identifier is reduced to the key that must appear in
 * a context for it to count as kept (see {@link keptKey}).
 */
import type { Action } from './actions';

/** The identifier classes the benchmark reports. */
export const CLASSES = ['paths', 'commands', 'errors', 'symbols', 'urls'] as const;
export type IdClass = (typeof CLASSES)[number];

/** Distinct identifiers per class. */
export type Identifiers = Record<IdClass, Set<string>>;

export function emptyIdentifiers(): Identifiers {
  return { paths: new Set(), commands: new Set(), errors: new Set(), symbols: new Set(), urls: new Set() };
}

const URL = /\bhttps?:\/\/[^\s<>"'`)\]}]+/g;
/** Any scheme's address (`ws://host:9001/mqtt`): not a path, masked before paths are looked for. */
const ANY_URL = /\b[A-Za-z][\w+.-]*:\/\/[^\s<>"'`)\]}]+/g;
const EXTENSIONS =
  'ts|tsx|js|jsx|mjs|cjs|py|rs|go|java|kt|rb|php|cs|c|h|cpp|md|json|ya?ml|toml|sql|sh|css|scss|html|vue|svelte|txt|env|lock|cfg|ini|xml|tf';
/** Path-like tokens: with a file extension, or starting at a root/home/dot/drive, or with a slash. A drive letter stands alone (`C:\x`, not the `t:` of `host:9001`). */
const PATH = new RegExp(
  `(?:(?<![\\w])[A-Za-z]:(?=[\\\\/]))?[~.@]{0,2}[\\\\/]?[\\w@.-]+(?:[\\\\/][\\w@.-]+)+[\\\\/]?|\\b[\\w-]+\\.(?:${EXTENSIONS})\\b`,
  'g',
);
/** A last path segment with one of the file extensions above. */
const HAS_EXTENSION = new RegExp(`\\.(?:${EXTENSIONS})$`, 'i');
/**
 * In prose, a word/word token is a path only when it is anchored (`/`, `./`, `../`, `~/`, `@/`, a
 * drive), ends with a slash or names a file by its extension: "pass/fail", "bg-white/80",
 * "next/navigation" and "green/red/yellow" are not paths. Tool-call arguments need no such test.
 */
function isProsePath(p: string): boolean {
  return (
    /^(?:[A-Za-z]:[\\/]|[~.@]{0,2}\/)/.test(p) || p.endsWith('/') || HAS_EXTENSION.test(p.split(/[\\/]/).pop() ?? '')
  );
}
const DEFINITION =
  /\b(?:function\*?|def|class|interface|enum|struct|trait|fn|func|type)\s+([A-Za-z_$][\w$]*)|\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s*)?(?:\([^)]*\)|[A-Za-z_$][\w$]*)\s*=>/g;
const CALLED_IN_PROSE = /`([A-Za-z_$][\w$.]*)\(\)?[^`]*`/g;
/**
 * A line that reports a failure: an error or exception class reporting (`TypeError: …`,
 * `Exception in thread …`, pytest's `E   AssertionError`), `error:` prefixes, test failures, tool
 * errors. A class name merely mentioned (`import …BusinessException;` in a file shown by `cat`) is not one.
 */
export const ERROR_LINE =
  /\b[A-Z]\w*(?:Error|Exception)(?::|\s+in thread\b)|^E\s+[\w.]*(?:Error|Exception)\b|(?:^|\s)(?:error|ERROR|Error|fatal|FATAL)(?:\[\w+\])?:|Traceback \(most recent call last\)|\bFAIL(?:ED)?\b|npm ERR!|command not found|No such file or directory|Cannot find module|\bexit(?:ed with)? code:? ?[1-9]/;
const NOT_NAMES = new Set([
  'if',
  'for',
  'while',
  'switch',
  'return',
  'function',
  'catch',
  'new',
  'await',
  'async',
  'require',
  'import',
  'export',
  'default',
  'props',
  'main',
  'test',
  'data',
  'self',
  'this',
  'the',
  'and',
]);

/** Whitespace-collapsed and cut to 100 characters: the part of a long line a summary must keep. */
export function keptKey(line: string): string {
  return line.replace(/\s+/g, ' ').trim().slice(0, 100).trim();
}

/** Paths are compared with forward slashes, without a trailing slash. */
export function pathKey(p: string): string {
  return p.replace(/\\\\/g, '/').replace(/\\/g, '/').replace(/\/+$/, '');
}

/** First line of a command, as kept. */
export function commandKey(c: string): string {
  return keptKey(c.split('\n').find((l) => l.trim() !== '') ?? '');
}

/** Failure lines of a text (each cut by {@link keptKey}), in order. */
export function errorLines(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const l = line.trim();
    if (l.length >= 12 && l.length <= 400 && ERROR_LINE.test(l)) out.push(keptKey(l));
  }
  return out;
}

function addPaths(text: string, ids: Identifiers, prose: boolean): void {
  for (const m of text.replace(ANY_URL, ' ').matchAll(PATH)) {
    const raw = m[0].replace(/[.,:;]+$/, '');
    const p = pathKey(raw);
    if (p.length >= 4 && !/^\d/.test(p) && !p.includes('://') && /[/.]/.test(p) && (!prose || isProsePath(raw)))
      ids.paths.add(p);
  }
}

function addSymbols(code: string, ids: Identifiers): void {
  for (const m of code.matchAll(DEFINITION)) {
    const n = m[1] ?? m[2];
    if (n && n.length >= 3 && !NOT_NAMES.has(n)) ids.symbols.add(n);
  }
}

/** Identifiers of text a person or the agent wrote (prose, code blocks, pasted errors). */
export function fromWrittenText(text: string, ids: Identifiers): void {
  for (const m of text.matchAll(URL)) ids.urls.add(m[0].replace(/[.,:;]+$/, ''));
  addPaths(text, ids, true);
  for (const e of errorLines(text)) ids.errors.add(e);
  addSymbols(text, ids);
  for (const m of text.matchAll(CALLED_IN_PROSE)) {
    const n = m[1].split('.').pop()!;
    if (n.length >= 3 && !NOT_NAMES.has(n)) ids.symbols.add(n);
  }
}

/** Identifiers of one action's arguments: its path, command, code definitions and URLs. */
export function fromAction(a: Action, ids: Identifiers): void {
  if (a.path) ids.paths.add(pathKey(a.path));
  if (a.command) {
    const k = commandKey(a.command);
    if (k.length >= 2) ids.commands.add(k);
    addPaths(a.command, ids, false);
  }
  if (a.code) addSymbols(a.code, ids);
  for (const s of a.strings) for (const m of s.matchAll(URL)) ids.urls.add(m[0].replace(/[.,:;]+$/, ''));
}
