/**
 * The events of one context service, kept apart from what the service does: one {@link Emitter} per
 * event, fired by the service and disposed together. The public `onDid*` properties of
 * {@link ContextServiceApi} are these emitters' `event`s.
 */
import type { ApprovalRequest } from '../agent/types';
import { Emitter } from './events';
import { PendingApprovals } from './approvals';
import type {
  CheckpointRecord,
  CheckpointRestored,
  CompactionPreview,
  EntryAppended,
  StateChange,
  StreamText,
  ToolCallEvent,
  ToolResultEvent,
} from './records';
import type { BudgetSnapshot } from './meter/budget-types';

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
  readonly previewDropped = new Emitter<string>();

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
      this.previewDropped,
    ]) {
      emitter.dispose();
    }
  }
}

/**
 * The event and approval surface of a context service: the public `onDid*` events of
 * {@link ContextServiceApi} and the pending approvals. The service extends it and fires `events`.
 */
export abstract class ServiceEventSurface {
  protected readonly events = new ServiceEvents();
  protected readonly approvals = new PendingApprovals();
  readonly onDidChangeBudget = this.events.budget.event;
  readonly onDidAddCheckpoint = this.events.checkpointAdded.event;
  readonly onDidRestoreCheckpoint = this.events.checkpointRestored.event;
  readonly onDidChangeState = this.events.state.event;
  readonly onDidStreamText = this.events.streamText.event;
  readonly onDidAppendEntry = this.events.entryAppended.event;
  readonly onDidStartToolCall = this.events.toolCallStarted.event;
  readonly onDidFinishToolCall = this.events.toolCallFinished.event;
  readonly onDidRequestApproval = this.approvals.onDidRequest;
  readonly onDidChangePreview = this.events.preview.event;
  readonly onDidDropPreview = this.events.previewDropped.event;

  resolveApproval(requestId: string, approved: boolean): void {
    this.approvals.resolve(requestId, approved);
  }

  getPendingApprovals(): ApprovalRequest[] {
    return this.approvals.list();
  }

  /** Drops every listener and pending approval. */
  protected disposeEvents(): void {
    this.approvals.dispose();
    this.events.dispose();
  }
}
