/**
 * A recorded agent's own summary (or one quoted by an earlier summary of ours) as quoted lines of the
 * "Earlier summary" section, and how those lines shrink when they do not fit: sentences that name a
 * cause, a fix, a file, a decision or a commit are kept before any other, and what is left out is said by a marker line.
 * A richer summary is never replaced by a thinner paraphrase. Pure: no I/O.
 */

/**
 * Heading of the part of an imported summary item that holds, verbatim, the requests the user typed
 * in the span the recording agent compacted (its own summary only paraphrases them). The requests
 * section of a later summary carries them (from the item's `requests`), so quoting skips this part.
 */
export const REQUESTS_BEFORE_HEADING = '## Requests before this summary (typed by the user, verbatim)';

/**
 * Heading of the agent's answers and findings, in our notes and beside an imported summary (the
 * recording agent's summary paraphrases what its agent told the person; the answers are quoted
 * beside it as a native compaction keeps them). Quoting a summary skips this part: a later summary
 * carries its lines in its own answers section.
 */
export const ANSWERS_HEADING = "## Agent's answers and findings (oldest first; each ended a turn)";

/** A marker line saying how many sentences of quoted summaries were left out. */
const MARKER = /^> \[… (\d+) sentences? of the recorded summary left out to fit the budget …\]$/;

/**
 * A sentence that says why something failed, how it was fixed, what was decided, recommended or
 * committed: work a later agent must not redo or contradict. Kept longest.
 */
const KEY =
  /\b(root cause|recommend\w*|decid\w*|decision|chose|chosen|agreed|commit(s|ted)?|pending|next step|caus(e|ed|es|ing)|because|due to|fix(e[sd]|ing)?|bug|broke\w*|regression|error|fail\w*|exception|crash\w*|resolv\w*)\b/i;

/** A sentence that names a file or a change: kept after {@link KEY} sentences, before all others. */
const FILE =
  /\b(patch\w*|modif\w*|chang(e|ed|es))\b|[\w.-]+\/[\w.-]+|\b[\w-]+\.(ts|tsx|js|jsx|py|go|rs|java|json|md|c|cc|cpp|h|rb|yml|yaml|toml|sh)\b/i;

/** 0: a sentence of no kind below; 1: names a file or a change ({@link FILE}); 2: a {@link KEY} sentence. */
function rank(sentence: string): number {
  return KEY.test(sentence) ? 2 : FILE.test(sentence) ? 1 : 0;
}

function marker(n: number): string {
  return `> [… ${n} sentence${n === 1 ? '' : 's'} of the recorded summary left out to fit the budget …]`;
}

/**
 * True for a line that says nothing: once its list and quote marks (`-`, `*`, `>`, a number) are
 * taken off, nothing is left but quote characters (`""`, `''`, `“”`, backticks) or a bare colon. An
 * earlier summary's such line is not carried into a later one.
 */
export function isEmptyItem(line: string): boolean {
  const rest = line.replace(/^(?:\s*(?:[-*+>]|\d+[.)])(?=\s|$|["'“”‘’`«»]))*\s*/, '');
  return /^["'“”‘’`«»:\s]*$/.test(rest);
}

/**
 * The quoted lines of `body`: every non-empty line, trimmed, prefixed `> `, whole (no line or length
 * cap); the opening `[Summary of …]` line, the requests-before part and the answers part (each from
 * its heading to the next `## ` heading) are left out.
 */
export function quoteSummary(body: string): string[] {
  const out: string[] = [];
  let skipping = false;
  for (const raw of body.split('\n')) {
    const l = raw.trim();
    if (l === REQUESTS_BEFORE_HEADING || l === ANSWERS_HEADING) {
      skipping = true;
      continue;
    }
    if (skipping && l.startsWith('## ')) skipping = false;
    if (skipping || !l || l.startsWith('[Summary of') || isEmptyItem(l)) continue;
    out.push(`> ${l}`);
  }
  return out;
}

/** Sentences of a quoted line's text (the `> ` removed), split after `.`, `!` or `?` and a space. */
function sentencesOf(line: string): string[] {
  return line
    .slice(2)
    .split(/(?<=[.!?])\s+(?=\S)/)
    .filter((s) => s.length > 0);
}

/**
 * Removes `n` sentences from the quoted lines `lines` (in place): the newest sentence that names no
 * cause, fix, decision, commit or file first, then the newest that names a file or change, then the
 * newest of the others; a line left without sentences goes. One
 * marker line at the end counts every sentence left out (markers already there are added up).
 * Returns false when no sentence was left to remove (the marker alone may remain).
 */
export function shrinkQuoted(lines: string[], n: number): boolean {
  let left = 0;
  const body: string[][] = [];
  for (const l of lines) {
    const m = MARKER.exec(l);
    if (m) left += Number(m[1]);
    else body.push(sentencesOf(l));
  }
  let removed = 0;
  for (let k = 0; k < n; k++) {
    let at: [number, number] | undefined;
    for (const most of [0, 1, 2]) {
      for (let i = body.length - 1; i >= 0 && !at; i--)
        for (let j = body[i].length - 1; j >= 0 && !at; j--) if (rank(body[i][j]) <= most) at = [i, j];
      if (at) break;
    }
    if (!at) break;
    body[at[0]].splice(at[1], 1);
    removed++;
  }
  lines.length = 0;
  for (const s of body) if (s.length) lines.push(`> ${s.join(' ')}`);
  if (left + removed > 0) lines.push(marker(left + removed));
  return removed > 0;
}

/** Sentences in the quoted lines `lines` (marker lines not counted). */
export function quotedSentences(lines: readonly string[]): number {
  return lines.reduce((n, l) => n + (MARKER.test(l) ? 0 : sentencesOf(l).length), 0);
}
