/**
 * Scores one context (the messages a model would be sent next) against the gold sets of a point:
 * the share of each set present, and the false-open count of the text a compaction wrote.
 */
import { samePath, type ErrorSignature } from '../../../src/compaction/retention';
import { errorNamedIn, expandRoots, falseOpens, hasPathIn, slashed } from '../../../src/compaction/retention/presence';
import { contextText, keptIn, normalize, WordIndex, type PlainMessage } from '../text';

// The presence rules are shared with the checkpoint scorecard (src/compaction/retention/presence.ts).
export { expandRoots, falseOpens, linesNamingCommand } from '../../../src/compaction/retention/presence';
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
    this.slashed = slashed(this.text);
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
    return hasPathIn(this.slashed, p);
  }
  hasWord(w: string): boolean {
    return this.words.has(w);
  }
  hasToken(t: NeededToken): boolean {
    return t.kind === 'path' ? this.hasPath(t.token) : this.text.includes(t.token);
  }
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
      (e) => errorNamedIn(e, v.text, v.normalized),
    ),
    falseOpen: fo ? fo.falseOpen : null,
    neverFailedShownFailing: fo ? fo.neverFailedShownFailing : null,
    falseOpenLines: fo ? fo.lines : [],
    missed,
  };
}

/** Same file check re-exported for the data checks. */
export { samePath };
