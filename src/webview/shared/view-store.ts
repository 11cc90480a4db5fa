/**
 * The webview's copy of the view state. Snapshots replace it; deltas patch it in place (lines by id,
 * streamed text appended), so the keyed renderer only touches what changed. A delta whose sequence
 * number is not the next one means a message was lost: the store asks the host for a snapshot.
 */
import type {
  CompactionDetailView,
  CompactionView,
  HostMessage,
  TranscriptItemView,
  ViewDelta,
  ViewState,
} from './protocol';

/** The body of a compaction divider, fetched when it is opened. */
export type CompactionDetail = CompactionDetailView;

/** What an applied message changed, for announcements. */
export interface Applied {
  kind: 'snapshot' | 'delta' | 'reply' | 'gap';
  /** The state before and after, when it changed. */
  stateChange?: { from: string; to: string };
  /** Compactions added by this message. */
  newCompactions: ViewState['compactions'];
  /** True when this message shows another session than before, or is the first state after a (re)load. */
  sessionChanged?: boolean;
  /** Compactions of the same session restored by this message (`undone`: a restore undone, the compaction back). */
  restoreChanges?: { compaction: CompactionView; undone: boolean }[];
  /**
   * The state that began the current stretch of activity (the first state after idle or error), so
   * the end of a compaction run alone is told from the end of an agent's run.
   */
  startedAs?: string;
  /** True when a summary preview waits for review (Apply or Discard) after this message. */
  previewPending?: boolean;
  /** True when this message brought a preview that was not there before. */
  previewAppeared?: boolean;
}

/** The webview's state: the host's view plus what only the webview knows (texts fetched on demand). */
export class Store {
  view: ViewState | undefined;
  private seq = 0;
  /** The first state after idle or error, kept until the activity ends (see `Applied.startedAs`). */
  private startedAs: string | undefined;
  private readonly index = new Map<string, number>();
  /** Full texts fetched with `expandItem`, by line id. */
  readonly fullTexts = new Map<string, string>();
  /** Opened compaction dividers' bodies (undefined while loading). */
  readonly details = new Map<string, CompactionDetail | undefined>();

  /** Applies one host message; returns what it changed, or a gap (then ask for a snapshot). */
  apply(message: HostMessage): Applied {
    switch (message.type) {
      case 'snapshot': {
        const before = this.view;
        this.view = message.state;
        this.seq = message.seq;
        this.reindex();
        const sameSession = before !== undefined && before.sessionId === message.state.sessionId;
        const stateChange =
          before && before.state !== message.state.state ? { from: before.state, to: message.state.state } : undefined;
        return {
          kind: 'snapshot',
          stateChange,
          newCompactions: sameSession
            ? message.state.compactions.filter((c) => !before.compactions.some((b) => b.id === c.id))
            : [],
          sessionChanged: !sameSession,
          restoreChanges: sameSession ? restoreChanges(before.compactions, message.state.compactions) : [],
          startedAs: this.track(stateChange),
          previewPending: message.state.preview !== undefined,
          previewAppeared: sameSession && before.preview === undefined && message.state.preview !== undefined,
        };
      }
      case 'delta': {
        if (!this.view || message.seq !== this.seq + 1) return { kind: 'gap', newCompactions: [] };
        this.seq = message.seq;
        return this.patch(this.view, message.delta);
      }
      case 'itemText':
        this.fullTexts.set(message.id, message.text);
        return { kind: 'reply', newCompactions: [] };
      case 'compactionDetail':
        this.details.set(message.id, {
          summary: message.summary,
          replaced: message.replaced,
          more: message.more,
          opens: message.opens,
        });
        return { kind: 'reply', newCompactions: [] };
      case 'previewTokens':
        // Only the figure: the boxes keep what is typed in them.
        if (this.view?.preview) this.view.preview = { ...this.view.preview, tokensAfter: message.tokensAfter };
        return { kind: 'reply', newCompactions: [] };
      case 'restoreTask':
        // Handled by the page's task box, not the view state.
        return { kind: 'reply', newCompactions: [] };
    }
  }

  private patch(view: ViewState, delta: ViewDelta): Applied {
    const applied: Applied = { kind: 'delta', newCompactions: [] };
    if (delta.state !== undefined && delta.state !== view.state) {
      applied.stateChange = { from: view.state, to: delta.state };
      view.state = delta.state;
    }
    applied.startedAs = this.track(applied.stateChange);
    if (delta.compactions) {
      applied.newCompactions = delta.compactions.filter((c) => !view.compactions.some((b) => b.id === c.id));
      applied.restoreChanges = restoreChanges(view.compactions, delta.compactions);
      view.compactions = delta.compactions;
    }
    if (delta.budget) view.budget = delta.budget;
    if (delta.checkpoints) view.checkpoints = delta.checkpoints;
    if (delta.approvals) view.approvals = delta.approvals;
    if (delta.preview !== undefined) {
      applied.previewAppeared = view.preview === undefined && delta.preview !== null;
      view.preview = delta.preview ?? undefined;
    }
    if (delta.error !== undefined) view.error = delta.error ?? undefined;
    if (delta.source !== undefined) view.source = delta.source;
    if (delta.hasApiKey !== undefined) view.hasApiKey = delta.hasApiKey;
    if (delta.sessions) view.sessions = delta.sessions;
    if (delta.sessionId !== undefined && delta.sessionId !== view.sessionId) {
      view.sessionId = delta.sessionId;
      applied.sessionChanged = true;
      // Another session's compactions are no news to announce.
      applied.newCompactions = [];
      applied.restoreChanges = [];
      applied.previewAppeared = false;
    }
    applied.previewPending = view.preview !== undefined;
    if (delta.readOnly !== undefined) view.readOnly = delta.readOnly;
    if (delta.items) this.upsert(view, delta.items);
    if (delta.text) {
      for (const { id, append } of delta.text) {
        const i = this.index.get(id);
        const item = i === undefined ? undefined : view.transcript[i];
        // A new object: the keyed renderer compares by identity.
        if (item?.kind === 'assistant') view.transcript[i!] = { ...item, text: item.text + append };
      }
    }
    if (delta.earlier !== undefined) view.earlier = delta.earlier;
    return applied;
  }

  /** Keeps `startedAs` across a state change; returns the value that holds for this message. */
  private track(change: { from: string; to: string } | undefined): string | undefined {
    if (!change) return this.startedAs;
    const rest = (state: string) => state === 'idle' || state === 'error';
    if (rest(change.from) && !rest(change.to)) this.startedAs = change.to;
    const startedAs = this.startedAs;
    if (rest(change.to)) this.startedAs = undefined;
    return startedAs;
  }

  private upsert(view: ViewState, items: TranscriptItemView[]): void {
    let appended = false;
    for (const item of items) {
      const i = this.index.get(item.id);
      if (i !== undefined) view.transcript[i] = item;
      else {
        this.index.set(item.id, view.transcript.length);
        view.transcript.push(item);
        appended = true;
      }
    }
    if (appended && view.transcript.length > view.limit) {
      view.transcript.splice(0, view.transcript.length - view.limit);
      this.reindex();
    }
  }

  private reindex(): void {
    this.index.clear();
    this.view?.transcript.forEach((item, i) => this.index.set(item.id, i));
  }
}

/** Compactions in both lists whose `restored` flag changed: restored now, or a restore undone. */
function restoreChanges(
  before: readonly CompactionView[],
  after: readonly CompactionView[],
): { compaction: CompactionView; undone: boolean }[] {
  const was = new Map(before.map((c) => [c.id, c.restored === true]));
  return after
    .filter((c) => was.has(c.id) && was.get(c.id) !== (c.restored === true))
    .map((c) => ({ compaction: c, undone: c.restored !== true }));
}
