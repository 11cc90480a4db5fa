/**
 * Commits made in a span, by their ids: Aider's commit notices (`> Commit e647cd7 feat: …`, which the
 * importer keeps at the end of the reply whose edits they committed) and the first line a
 * successful `git commit` prints (`[main e647cd7] feat: …`, `[main (root-commit) e647cd7] …`). Rules
 * written for measurement; no code shared with the summary writer. Pure.
 */
import { textWithPlaceholders } from '../content-text';
import { commandOf, type AgentCall, type RetentionEntry } from './calls';

const NOTICE = /^> Commit ([0-9a-f]{7,40}) \S/gm;
const GIT_FIRST_LINE = /^\[[^\]\s]+(?: \(root-commit\))? ([0-9a-f]{7,40})\] \S/gm;

/**
 * Ids of the commits made by messages `from` ≤ index < `to` of `entries`, in order, without repeats.
 * `calls`: the span's `agentCalls`.
 */
export function spanCommits(
  entries: readonly RetentionEntry[],
  calls: readonly AgentCall[],
  from = 0,
  to = entries.length,
): string[] {
  const out = new Set<string>();
  let next = 0;
  for (let i = Math.max(0, from); i < Math.min(to, entries.length); i++) {
    const m = entries[i].message;
    if (m.role !== 'assistant') continue;
    // A call's commits come before the notices of the reply after it: calls of this message first.
    for (; next < calls.length && calls[next].index <= i; next++) {
      const c = calls[next];
      const command = c.index >= from ? commandOf(c) : undefined;
      if (command === undefined || c.failed === true || !/\bgit\b[^\n|;&]*\bcommit\b/.test(command)) continue;
      for (const hit of (c.result ?? '').matchAll(GIT_FIRST_LINE)) out.add(hit[1]);
    }
    const text = textWithPlaceholders(m.content);
    if (text.includes('> Commit ')) for (const hit of text.matchAll(NOTICE)) out.add(hit[1]);
  }
  return [...out];
}
