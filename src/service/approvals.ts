/**
 * Approval requests waiting for the user, when the service has no approval handler of its own: each
 * request is announced through an event and settles when answered, or as declined when the tool call
 * is cancelled.
 */
import type { ApprovalRequest } from '../agent/types';
import { Emitter } from './events';

/** Pending approvals of one service. */
export class PendingApprovals {
  private readonly pending = new Map<string, { request: ApprovalRequest; resolve: (ok: boolean) => void }>();
  private readonly _onDidRequest = new Emitter<ApprovalRequest>();
  /** Fired for each new request. */
  readonly onDidRequest = this._onDidRequest.event;

  /** Announces `request` and resolves with the user's answer (false when `signal` aborts first). */
  ask(request: ApprovalRequest, signal: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      const finish = (ok: boolean): void => {
        signal.removeEventListener('abort', onAbort);
        this.pending.delete(request.requestId);
        resolve(ok);
      };
      const onAbort = (): void => finish(false);
      if (signal.aborted) return finish(false);
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(request.requestId, { request, resolve: finish });
      this._onDidRequest.fire(request);
    });
  }

  /** Answers a request; unknown ids are ignored. */
  resolve(requestId: string, approved: boolean): void {
    this.pending.get(requestId)?.resolve(approved);
  }

  /** Declines every waiting request. */
  declineAll(): void {
    for (const [, p] of [...this.pending]) p.resolve(false);
  }

  /** Requests still waiting, oldest first. */
  list(): ApprovalRequest[] {
    return [...this.pending.values()].map((p) => p.request);
  }

  dispose(): void {
    this.declineAll();
    this._onDidRequest.dispose();
  }
}
