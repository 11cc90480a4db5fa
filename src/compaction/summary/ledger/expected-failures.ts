/**
 * Failures the agent meant to see: a deliberate negative check (a fake address, a missing argument)
 * whose result the agent's next words take as the intended outcome ("Exit codes work.", "fails as
 * expected"). The rule is the scorecard's (`retention/outcome.ts`, `expectsFailure`; `errors.ts`
 * reads the same next message), so the summary and its scorecard call the same failures open.
 *
 * Pure: no I/O.
 */
import type { ChatMessage, ContextItem } from '../../types';
import { textWithPlaceholders } from '../../content-text';
import { agentWords } from '../../harness-text';
import { checkHead, expectsFailure } from '../../retention/outcome';
import { commandsRun } from './actions';
import { commandKey } from './ledger-fold';
import { MessageMemo, messageMemosKept } from '../../message-memo';

/**
 * For each command run in `items` (by its ledger key, `commandKey`), the agent's next words (its
 * next message with words; messages of tool calls alone are passed over) when they took its latest
 * run's outcome as intended (its next message's opening, clipped), or that of a later run of the same
 * check (`checkHead`); a command
 * whose latest run the agent did not speak of so is absent. `items` in order; earlier summaries are
 * skipped (their ledger lines say what they resolved).
 */
export function expectedOutcomes(items: readonly ContextItem[]): Map<string, string> {
  return new Map(OutcomesFold.of(items).out);
}

/**
 * The forward reading of {@link expectedOutcomes}: what the agent's words took as intended so far,
 * the commands run so far by check, and the runs waiting for the agent's next words. It depends on
 * the items alone, in order, so a list that grew at its end (the next compaction of a growing
 * conversation, the same item objects first) continues the reading kept from the last long list
 * instead of reading every message again; any other list is read from its start.
 */
class OutcomesFold {
  /** The items read, in order. */
  private readonly items: ContextItem[] = [];
  readonly out = new Map<string, string>();
  // Commands run so far by the check they run (`checkHead`): words accepting one run speak of the
  // earlier runs of the same check too (the same negative check run again without a pipe, say).
  private readonly byHead = new Map<string, Set<string>>();
  private waiting: CommandRun[] = [];

  /** The reading of `items`: the kept one continued when it read a prefix of them, else a new one. */
  static of(items: readonly ContextItem[]): OutcomesFold {
    if (!messageMemosKept()) keptFold = undefined;
    if (items.length < KEEP_FROM || !messageMemosKept()) return new OutcomesFold().read(items, 0);
    const k = keptFold;
    let from = k && k.items.length <= items.length ? k.items.length : -1;
    for (let i = 0; i < from; i++)
      if (k!.items[i] !== items[i]) {
        from = -1;
        break;
      }
    keptFold = from < 0 ? new OutcomesFold().read(items, 0) : k!.read(items, from);
    return keptFold;
  }

  private read(items: readonly ContextItem[], from: number): this {
    const { out, byHead } = this;
    for (let i = from; i < items.length; i++) {
      const it = items[i];
      this.items.push(it);
      if (it.kind === 'summary' || it.message.role !== 'assistant') continue;
      const facts = turnFacts(it.message);
      if (facts.words) {
        for (const run of this.waiting)
          if (facts.sentence === undefined) out.delete(run.key);
          else for (const key of byHead.get(run.head) ?? []) out.set(key, facts.sentence);
        this.waiting = [];
      }
      // A notice a harness wrote in the agent's role, or a message of tool calls alone, says nothing
      // yet: the agent's next words speak of every run since it last spoke.
      for (const r of facts.runs) {
        this.waiting.push(r);
        let keys = byHead.get(r.head);
        if (!keys) byHead.set(r.head, (keys = new Set()));
        keys.add(r.key);
      }
    }
    return this;
  }
}

/** Lists shorter than this are read whole (cheap), so they do not push a long list's reading out. */
const KEEP_FROM = 256;
/** The reading {@link OutcomesFold.of} kept for the next, grown list. */
let keptFold: OutcomesFold | undefined;

/** A command an assistant message runs: its ledger key (`commandKey`) and the check it runs (`checkHead`). */
interface CommandRun {
  key: string;
  head: string;
}

/**
 * What {@link expectedOutcomes} reads of one assistant message: whether it has words of the agent's,
 * their opening sentence when they take the runs before as the intended outcome (undefined when they
 * do not), and the commands it runs.
 */
interface TurnFacts {
  words: boolean;
  sentence: string | undefined;
  runs: CommandRun[];
}

/**
 * Per message (a message is never mutated, so its facts never change): each compaction of a growing
 * conversation reads every assistant message of its span, and its words and commands once took a
 * fifth of a grown compaction at 100k messages.
 */
const turnFactsOf = new MessageMemo<object, TurnFacts>();

function turnFacts(message: ChatMessage): TurnFacts {
  const known = turnFactsOf.get(message);
  if (known) return known;
  const words = agentWords(textWithPlaceholders(message.content));
  const runs = commandsRun(message).map((r) => ({ key: commandKey(r), head: checkHead(r) }));
  const sentence = words && expectsFailure(words) ? firstSentence(words) : undefined;
  return turnFactsOf.set(message, { words: words !== '', sentence, runs });
}

/** The opening sentence of `words`, at most 120 characters. */
function firstSentence(words: string): string {
  const one = words.replace(/\s+/g, ' ').trim();
  const end = /[.!?](?:\s|$)/.exec(one);
  const s = end ? one.slice(0, end.index + 1) : one;
  return s.length > 120 ? `${s.slice(0, 119)}…` : s;
}
