/**
 * The service's visible state ({@link StateChange}): the agent's own state, overridden while a
 * compaction runs, and a problem shown once as `error` until the next change clears it. While a task
 * runs the state is never `idle`: the agent is idle before its first request (the user's message is
 * written, the tokenizer loads, a compaction runs at the safe point) and after its last reply (queued
 * compactions at the end of the task); those moments show as `streaming` ("between model calls"),
 * so the views never offer what an idle session allows (delete, switch, rebuild) while the task runs.
 */
import type { AgentState } from '../agent/session';
import type { ModelFailure } from '../compaction/outcome';
import type { ServiceState, StateChange } from './records';

/** Tracks and announces the service state; fires only on a real change. */
export class ServiceStatus {
  private state: StateChange = { state: 'idle' };
  private agentState: AgentState = 'idle';
  private compactingDetail: string | undefined;
  private taskRunning = false;

  /**
   * @param fire Announces a new state.
   * @param live False once the owner is disposed (then nothing is announced).
   */
  constructor(
    private readonly fire: (change: StateChange) => void,
    private readonly live: () => boolean,
  ) {}

  get current(): StateChange {
    return this.state;
  }

  /** The agent's state changed. */
  agent(state: AgentState, detail?: string): void {
    this.agentState = state;
    this.update(detail);
  }

  /** A task started (true) or settled (false); a problem held back while it ran is shown now. */
  task(running: boolean): void {
    this.taskRunning = running;
    this.update();
    const held = this.heldProblem;
    if (running || !held) return;
    this.heldProblem = undefined;
    this.problem(held.reason, held.failure);
  }

  /** A compaction started (`detail`) or ended (undefined). */
  compacting(detail: string | undefined): void {
    this.compactingDetail = detail;
    this.update(detail);
  }

  /**
   * Shows a problem as the `error` state; the next state change clears it. While a task runs (a
   * failed save does not stop it) the state stays the task's, with the problem as its detail, and the
   * problem is shown as `error` once the task settles, so the views never show a running task as
   * failed nor lose the message.
   */
  problem(reason: string, failure?: ModelFailure): void {
    if (this.taskRunning) {
      this.heldProblem = { reason, ...(failure ? { failure } : {}) };
      this.state = { state: this.state.state === 'error' ? 'streaming' : this.state.state, detail: reason };
      if (this.live()) this.fire(this.state);
      return;
    }
    this.state = { state: 'error', detail: reason, ...(failure ? { failure } : {}) };
    if (this.live()) this.fire(this.state);
  }

  /** A problem met while a task ran, shown when it settles. */
  private heldProblem: { reason: string; failure?: ModelFailure } | undefined;

  private update(detail?: string): void {
    const between = !this.compactingDetail && this.agentState === 'idle' && this.taskRunning;
    const state: ServiceState = this.compactingDetail ? 'compacting' : between ? 'streaming' : this.agentState;
    const shown = this.compactingDetail ?? (between ? 'between model calls' : detail);
    const next: StateChange = { state, ...(shown ? { detail: shown } : {}) };
    if (next.state === this.state.state && next.detail === this.state.detail) return;
    this.state = next;
    if (this.live()) this.fire(next);
  }
}
