/**
 * Feeds one context service's events into a {@link SidebarModel} and asks for a flush after each.
 * Pure: no `vscode` import, so the benchmark drives exactly the path the extension runs.
 */
import type { ContextServiceApi, Disposable } from '../service/api';
import { DisposableStore } from '../lifecycle/disposables';
import type { SidebarModel } from './view-model';

/** Subscribes `model` to `service`; `changed` is called after every event (callers coalesce). */
export function feedSidebar(service: ContextServiceApi, model: SidebarModel, changed: () => void): Disposable {
  const listeners = new DisposableStore();
  listeners.addAll(
    service.onDidStreamText((e) => {
      model.streamText(e.entryId, e.delta);
      changed();
    }),
    service.onDidAppendEntry((e) => {
      model.appendEntry(e.entry);
      changed();
    }),
    service.onDidStartToolCall((e) => {
      model.startTool(e.callId, e.entryId);
      changed();
    }),
    service.onDidFinishToolCall((e) => {
      model.finishTool(e.callId, e.ok, e.entryId);
      // An answered approval ends in a tool run; the card goes with it.
      model.approvalsChanged();
      changed();
    }),
    service.onDidChangeBudget(() => {
      model.budgetChanged();
      changed();
    }),
    service.onDidChangeState(() => {
      model.stateChanged();
      model.approvalsChanged();
      changed();
    }),
    service.onDidAddCheckpoint(() => {
      model.checkpointsChanged();
      changed();
    }),
    service.onDidRestoreCheckpoint(() => {
      model.checkpointsChanged();
      changed();
    }),
    service.onDidRequestApproval(() => {
      model.approvalsChanged();
      changed();
    }),
    service.onDidChangePreview(() => {
      model.previewChanged();
      changed();
    }),
  );
  return listeners;
}
