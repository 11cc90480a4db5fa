/**
 * The events of one context service, kept apart from what the service does: one {@link Emitter} per
 * event, fired by the service and disposed together. The public `onDid*` properties of
 * {@link ContextServiceApi} are these emitters' `event`s.
 */
import type { BudgetSnapshot, CheckpointRecord, CheckpointRestored, CompactionPreview, EntryAppended, StateChange, StreamText, ToolCallEvent, ToolResultEvent } from './api';
import { Emitter } from './events';

/** Every emitter of a context service except approvals (owned by `PendingApprovals`). */
export class ServiceEvents {
  readonly budget = new Emitter<BudgetSnapshot>();
  readonly checkpointAdded = new Emitter<CheckpointRecord>();
  readonly checkpointRestored = new Emitter<CheckpointRestored>();
  readonly state = new Emitter<StateChange>();
  readonly streamText = new Emitter<StreamText>();
  readonly entryAppended = new Emitter<EntryAppended>();
  readonly toolCallStarted = new Emitter<ToolCallEvent>();
  readonly toolCallFinished = new Emitter<ToolResultEvent>();
  readonly preview = new Emitter<CompactionPreview | undefined>();

  /** Drops every listener; later subscriptions are no-ops. */
  dispose(): void {
    for (const emitter of [
      this.budget,
      this.checkpointAdded,
      this.checkpointRestored,
      this.state,
      this.streamText,
      this.entryAppended,
      this.toolCallStarted,
      this.toolCallFinished,
      this.preview,
    ]) {
      emitter.dispose();
    }
  }
}
