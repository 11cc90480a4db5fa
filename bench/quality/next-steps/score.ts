/**
 * Scores one context (the messages a model would be sent next) against the gold sets of a point:
 * the share of each set present, and the false-open count of the text a compaction wrote.
 */
import { commandKey, samePath, type ErrorSignature } from '../../../src/compaction/retention';
import { contextText, keptIn, normalize, WordIndex, type PlainMessage } from '../text';
import type { NeededToken } from './needed';

/** A kept/total pair. */
export interface Share {
  kept: number;
  total: number;
}

/** The gold sets of one point, as the scorer needs them. */
export interface PointGold {
  typed: string[];
  constraints: string[];
  modified: string[];
  read: string[];
  codeNames: string[];
  needed: NeededToken[];
  latestRequest?: string;
  todoOpen: string[];
  errors: ErrorSignature[];
  neverFailed: string[];
}

/** Figures of one context. */
export interface Scores {
  typed: Share;
  constraints: Share;
  modified: Share;
  read: Share;
  codeNames: Share;
  needed: Share;
  latestRequest: Share;
  todoOpen: Share;
  /** Open errors of the span still named in the context. */
  openErrors: Share;
  /** Resolved errors the written text presents as open, failing or as the next step; null when nothing was written. */
  falseOpen: number | null;
  /** Commands that never failed, shown as failing by the written text; null when nothing was written. */
  neverFailedShownFailing: number | null;
  /** Lines behind the two counts above (at most 10), for reading. */
  falseOpenLines: string[];
  /** What was missed, by set (at most 15 each), for reading. */
  missed: Record<'modified' | 'needed' | 'codeNames', string[]>;
}

/** Folder names a summary defines (`$A = /home/u/app/`), expanded in place so `$A/src/x.ts` reads as the full path. */
export function expandRoots(text: string): string {
  const roots = [...text.matchAll(/(\$[A-Z]) = ([~/]?[^\s,]*\/)(?=[,\s]|$)/g)].map((m) => ({ name: m[1], dir: m[2] }));
  let out = text;
  for (const r of roots) out = out.split(`${r.name}/`).join(r.dir);
  return out;
}

/** A searchable view of a context. */
export class ContextView {
  readonly text: string;
  readonly normalized: string;
  readonly slashed: string;
  readonly index: WordIndex;
  readonly words: Set<string>;
  constructor(messages: readonly PlainMessage[]) {
    this.text = expandRoots(contextText(messages));
    this.normalized = normalize(this.text);
    this.slashed = this.text.replace(/\\\\/g, '/').replace(/\\/g, '/');
    this.index = new WordIndex(this.text);
    this.words = new Set(this.text.match(/[\w$]+/g) ?? []);
  }
  /** A typed message or sentence: verbatim, or 90% of its words in runs of 8 (bench/quality/text.ts). */
  keptText(t: string): boolean {
    return keptIn(t, this.normalized, this.index) !== 'no';
  }
  /**
   * A path: its full form, or (for a path of more than three components) its last three components
   * at a folder boundary, so a summary may name files relative to the workspace.
   */
  hasPath(p: string): boolean {
    const k = p.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '');
    if (this.slashed.includes(k)) return true;
    const parts = k.split('/').filter(Boolean);
    if (parts.length <= 3) return false;
    const tail = parts.slice(-3).join('/');
    for (let at = this.slashed.indexOf(tail); at >= 0; at = this.slashed.indexOf(tail, at + 1)) {
      if (at === 0 || /[\s/'"`(:=[]/.test(this.slashed[at - 1])) return true;
    }
    return false;
  }
  hasWord(w: string): boolean {
    return this.words.has(w);
  }
  hasToken(t: NeededToken): boolean {
    return t.kind === 'path' ? this.hasPath(t.token) : this.text.includes(t.token);
  }
}

/** Cues that a line presents something as still open or failing. */
const OPEN_CUE =
  /\b(?:open|unresolved|fail(?:s|ed|ing|ure)?|errors?|broken|next step|resolve|todo|still|pending|blocked)\b|✗|❌/i;
/** Cues that a line presents it as done. */
const DONE_CUE = /\b(?:resolved|fixed|pass(?:es|ed)?|now (?:works|succeeds)|succeeded|ok|works)\b|✓|✅/i;

/** Lines of `written` that mention `needle` (case-sensitive, whitespace collapsed); none for a needle under 8 characters. */
function linesMentioning(lines: readonly string[], needle: string): string[] {
  return needle.length < 8 ? [] : lines.filter((l) => l.includes(needle));
}

/**
 * Lines that name the command `key` as a whole command: not as part of a longer one (`terraform init`
 * inside `terraform init && terraform plan`, `node -e` inside `npx ts-node -e`).
 */
export function linesNamingCommand(lines: readonly string[], key: string): string[] {
  if (key.length < 8) return [];
  return lines.filter((l) => {
    for (let at = l.indexOf(key); at >= 0; at = l.indexOf(key, at + 1)) {
      const before = l.slice(0, at);
      const after = l.slice(at + key.length);
      if (/(?:&&|\|\||\||;)\s*$|[\w./-]$/.test(before)) continue;
      if (/^\s*(?:&&|\|\||\||;)|^[\w./-]/.test(after)) continue;
      return true;
    }
    return false;
  });
}

/** How much of a command or failure line must appear for a line to mention it, in characters. */
const MENTION = 100;

/**
 * False-open count of `written` (the text a compaction wrote: its summary) against the errors of the
 * span: a resolved error whose command key or failure line (first {@link MENTION} characters)
 * appears on a line with an open cue and no done cue; and a command that never failed appearing on
 * such a line. Each line is charged to one command at most (the longest key it holds).
 */
export function falseOpens(
  written: string,
  errors: readonly ErrorSignature[],
  neverFailed: readonly string[],
): { falseOpen: number; neverFailedShownFailing: number; lines: string[] } {
  const lines = written
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' '))
    .filter((l) => OPEN_CUE.test(l) && !DONE_CUE.test(l));
  const out: string[] = [];
  let falseOpen = 0;
  for (const e of errors) {
    if (e.state !== 'resolved') continue;
    const hits = [
      ...(e.tool === 'command' ? linesNamingCommand(lines, e.key.slice(0, MENTION)) : linesMentioning(lines, e.key)),
      ...linesMentioning(lines, e.line.replace(/\s+/g, ' ').slice(0, MENTION)),
    ];
    if (hits.length) {
      falseOpen++;
      out.push(`resolved (${e.resolvedBy}): ${hits[0].slice(0, 240)}`);
    }
  }
  let shown = 0;
  const used = new Set<string>();
  for (const c of [...neverFailed].sort((a, b) => b.length - a.length)) {
    const hits = linesNamingCommand(lines, commandKey(c).slice(0, MENTION)).filter((l) => !used.has(l));
    if (hits.length) {
      shown++;
      for (const h of hits) used.add(h);
      out.push(`never failed: ${hits[0].slice(0, 240)}`);
    }
  }
  return { falseOpen, neverFailedShownFailing: shown, lines: out.slice(0, 10) };
}

function share<T>(items: readonly T[], kept: (x: T) => boolean, missed?: string[], name?: (x: T) => string): Share {
  let k = 0;
  for (const x of items) {
    if (kept(x)) k++;
    else if (missed && name && missed.length < 15) missed.push(name(x));
  }
  return { kept: k, total: items.length };
}

/** Scores `context`; `written` is the text the method wrote (summary), undefined when it wrote none. */
export function scoreContext(gold: PointGold, context: readonly PlainMessage[], written: string | undefined): Scores {
  const v = new ContextView(context);
  const missed = { modified: [] as string[], needed: [] as string[], codeNames: [] as string[] };
  const fo = written === undefined ? undefined : falseOpens(expandRoots(written), gold.errors, gold.neverFailed);
  return {
    typed: share(gold.typed, (t) => v.keptText(t)),
    constraints: share(gold.constraints, (t) => v.keptText(t)),
    modified: share(
      gold.modified,
      (p) => v.hasPath(p),
      missed.modified,
      (p) => p,
    ),
    read: share(gold.read, (p) => v.hasPath(p)),
    codeNames: share(
      gold.codeNames,
      (n) => v.hasWord(n),
      missed.codeNames,
      (n) => n,
    ),
    needed: share(
      gold.needed,
      (t) => v.hasToken(t),
      missed.needed,
      (t) => t.token,
    ),
    latestRequest: share(gold.latestRequest ? [gold.latestRequest] : [], (t) => v.keptText(t)),
    todoOpen: share(gold.todoOpen, (t) => v.keptText(t) || v.normalized.includes(normalize(t))),
    openErrors: share(
      gold.errors.filter((e) => e.state === 'open'),
      (e) =>
        (e.key.length >= 8 && v.text.includes(e.key.slice(0, 40))) ||
        (e.line.length >= 8 && v.normalized.includes(normalize(e.line).slice(0, 40))),
    ),
    falseOpen: fo ? fo.falseOpen : null,
    neverFailedShownFailing: fo ? fo.neverFailedShownFailing : null,
    falseOpenLines: fo ? fo.lines : [],
    missed,
  };
}

/** Same file check re-exported for the data checks. */
export { samePath };
