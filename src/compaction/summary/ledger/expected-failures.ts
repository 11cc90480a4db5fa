/**
 * Failures the agent meant to see: a deliberate negative check (a fake address, a missing argument)
 * whose result the agent's next words take as the intended outcome ("Exit codes work.", "fails as
 * expected"). The rule is the scorecard's (`retention/outcome.ts`, `expectsFailure`; `errors.ts`
 * reads the same next message), so the summary and its scorecard call the same failures open.
 *
 * Pure: no I/O.
 */
import type { ContextItem } from '../../types';
import { textWithPlaceholders } from '../../content-text';
import { agentWords } from '../../harness-text';
import { checkHead, expectsFailure } from '../../retention/outcome';
import { commandsRun } from './actions';
import { commandKey } from './ledger-fold';

/**
 * For each command run in `items` (by its ledger key, `commandKey`), the agent's next words (its
 * next message with words; messages of tool calls alone are passed over) when they took its latest
 * run's outcome as intended (its next message's opening, clipped), or that of a later run of the same
 * check (`checkHead`); a command
 * whose latest run the agent did not speak of so is absent. `items` in order; earlier summaries are
 * skipped (their ledger lines say what they resolved).
 */
export function expectedOutcomes(items: readonly ContextItem[]): Map<string, string> {
  const out = new Map<string, string>();
  // Commands run so far by the check they run (`checkHead`): words accepting one run speak of the
  // earlier runs of the same check too (the same negative check run again without a pipe, say).
  const byHead = new Map<string, Set<string>>();
  let waiting: string[] = [];
  for (const it of items) {
    if (it.kind === 'summary' || it.message.role !== 'assistant') continue;
    const words = agentWords(textWithPlaceholders(it.message.content));
    const runs = commandsRun(it.message);
    if (words) {
      const accepted = expectsFailure(words);
      for (const run of waiting)
        if (!accepted) out.delete(commandKey(run));
        else for (const key of byHead.get(checkHead(run)) ?? []) out.set(key, firstSentence(words));
      waiting = [];
    }
    // A notice a harness wrote in the agent's role, or a message of tool calls alone, says nothing
    // yet: the agent's next words speak of every run since it last spoke.
    for (const r of runs) {
      waiting.push(r);
      const head = checkHead(r);
      let keys = byHead.get(head);
      if (!keys) byHead.set(head, (keys = new Set()));
      keys.add(commandKey(r));
    }
  }
  return out;
}

/** The opening sentence of `words`, at most 120 characters. */
function firstSentence(words: string): string {
  const one = words.replace(/\s+/g, ' ').trim();
  const end = /[.!?](?:\s|$)/.exec(one);
  const s = end ? one.slice(0, end.index + 1) : one;
  return s.length > 120 ? `${s.slice(0, 119)}…` : s;
}
