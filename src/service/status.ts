/**
 * The service's visible state ({@link StateChange}): the agent's own state, overridden while a
 * compaction runs, and a problem shown once as `error` until the next change clears it.
 */
import type { AgentState } from '../agent/session';
import type { ServiceState, StateChange } from './api';
import type { ModelFailure } from '../compaction/outcome';

/** Tracks and announces the service state; fires only on a real change. */
export class ServiceStatus {
  private state: StateChange = { state: 'idle' };
  private agentState: AgentState = 'idle';
  private compactingDetail: string | undefined;

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

  /** A compaction started (`detail`) or ended (undefined). */
  compacting(detail: string | undefined): void {
    this.compactingDetail = detail;
    this.update(detail);
  }

  /** Shows a problem as the `error` state; the next state change clears it. */
  problem(reason: string, failure?: ModelFailure): void {
    this.state = { state: 'error', detail: reason, ...(failure ? { failure } : {}) };
    if (this.live()) this.fire(this.state);
  }

  private update(detail?: string): void {
    const state: ServiceState = this.compactingDetail ? 'compacting' : this.agentState;
    const next: StateChange = { state, ...(this.compactingDetail ?? detail ? { detail: this.compactingDetail ?? detail } : {}) };
    if (next.state === this.state.state && next.detail === this.state.detail) return;
    this.state = next;
    if (this.live()) this.fire(next);
  }
}
