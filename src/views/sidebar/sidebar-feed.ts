/**
 * Feeds one context service's events into a {@link SidebarModel} and asks for a flush after each.
 * Pure: no `vscode` import, so the benchmark drives exactly the path the extension runs.
 */
import type { ContextServiceApi, Disposable, Event } from '../../service/api';
import { DisposableStore } from '../../lifecycle/disposables';
import type { SidebarModel } from './view-model';

/** Subscribes `model` to `service`; `changed` is called after every event (callers coalesce). */
export function feedSidebar(service: ContextServiceApi, model: SidebarModel, changed: () => void): Disposable {
  const listeners = new DisposableStore();
  /** Applies every event of `event` to the model, then asks for a flush. */
  const on = <T>(event: Event<T>, apply: (value: T) => void) =>
    listeners.add(
      event((value) => {
        apply(value);
        changed();
      }),
    );
  on(service.onDidStreamText, (e) => model.streamText(e.entryId, e.delta));
  on(service.onDidAppendEntry, (e) => model.appendEntry(e.entry));
  on(service.onDidStartToolCall, (e) => model.startTool(e.callId, e.entryId));
  on(service.onDidFinishToolCall, (e) => {
    model.finishTool(e.callId, e.ok, e.entryId);
    // An answered approval ends in a tool run; the card goes with it.
    model.approvalsChanged();
  });
  on(service.onDidChangeBudget, () => model.budgetChanged());
  on(service.onDidChangeState, () => {
    model.stateChanged();
    model.approvalsChanged();
  });
  on(service.onDidAddCheckpoint, () => model.checkpointsChanged());
  on(service.onDidRestoreCheckpoint, () => model.checkpointsChanged());
  on(service.onDidRequestApproval, () => model.approvalsChanged());
  on(service.onDidChangePreview, () => model.previewChanged());
  return listeners;
}
