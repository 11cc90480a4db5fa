/**
 * What a restore would do, worked out without doing it, for the confirmation that asks first: the
 * checkpoints it would undo (the ones named and the later ones built on their summaries) and the
 * prompt tokens of the context after it. Plain Node.
 */
import type { TokenMeter } from '../../compaction/meter/meter';
import type { ContextItem } from '../../compaction/types';
import type { ConversationState } from './conversation-state';

/** The outcome of a restore, planned: ids of the checkpoints undone, and the prompt tokens after. */
export interface RestorePlan {
  undone: string[];
  /** `used` (the gauge's figure now) plus what comes back minus what goes, in tokens. */
  tokens: number;
}

/**
 * Plans the restore of `id` (one checkpoint or the steps of one run) on `session`, changing nothing.
 * The sums telescope over nested checkpoints: a later summary that replaced an earlier one is counted
 * out as inserted and the earlier summary in and out again.
 * @throws Error as {@link ConversationState.planRestore} does (unknown id, restored already)
 */
export function planRestoreOf(
  session: ConversationState,
  meter: TokenMeter,
  used: number,
  id: string | readonly string[],
  time: string,
): RestorePlan {
  const { event } = session.planRestore(id, time);
  const count = (items: readonly ContextItem[]) =>
    items.reduce((sum, item) => sum + meter.countMessage(item.message), 0);
  const undone = session.checkpoints.filter((c) => event.undone.includes(c.id));
  return {
    undone: event.undone,
    tokens: used + undone.reduce((sum, c) => sum + count(c.replaced) - count(c.inserted), 0),
  };
}
