/**
 * The webview's copy of the view state. Snapshots replace it; deltas patch it in place (lines by id,
 * streamed text appended), so the keyed renderer only touches what changed. A delta whose sequence
 * number is not the next one means a message was lost: the store asks the host for a snapshot.
 */
import type { HostMessage, ReplacedItemView, TranscriptItemView, ViewDelta, ViewState } from './protocol';

/** The body of a compaction divider, fetched when it is opened. */
export interface CompactionDetail {
  summary: string;
  replaced: ReplacedItemView[];
  more: number;
}

/** What an applied message changed, for announcements. */
export interface Applied {
  kind: 'snapshot' | 'delta' | 'reply' | 'gap';
  /** The state before and after, when it changed. */
  stateChange?: { from: string; to: string };
  /** Compactions added by this message. */
  newCompactions: ViewState['compactions'];
  /** True when this message shows another session than before, or is the first state after a (re)load. */
  sessionChanged?: boolean;
}

/** The webview's state: the host's view plus what only the webview knows (texts fetched on demand). */
export class Store {
  view: ViewState | undefined;
  private seq = 0;
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
        return {
          kind: 'snapshot',
          stateChange:
            before && before.state !== message.state.state
              ? { from: before.state, to: message.state.state }
              : undefined,
          newCompactions:
            before && before.sessionId === message.state.sessionId
              ? message.state.compactions.filter((c) => !before.compactions.some((b) => b.id === c.id))
              : [],
          sessionChanged: !before || before.sessionId !== message.state.sessionId,
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
        this.details.set(message.id, { summary: message.summary, replaced: message.replaced, more: message.more });
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
    if (delta.compactions) {
      applied.newCompactions = delta.compactions.filter((c) => !view.compactions.some((b) => b.id === c.id));
      view.compactions = delta.compactions;
    }
    if (delta.budget) view.budget = delta.budget;
    if (delta.checkpoints) view.checkpoints = delta.checkpoints;
    if (delta.approvals) view.approvals = delta.approvals;
    if (delta.preview !== undefined) view.preview = delta.preview ?? undefined;
    if (delta.error !== undefined) view.error = delta.error ?? undefined;
    if (delta.source !== undefined) view.source = delta.source;
    if (delta.hasApiKey !== undefined) view.hasApiKey = delta.hasApiKey;
    if (delta.sessions) view.sessions = delta.sessions;
    if (delta.sessionId !== undefined && delta.sessionId !== view.sessionId) {
      view.sessionId = delta.sessionId;
      applied.sessionChanged = true;
      // Another session's compactions are no news to announce.
      applied.newCompactions = [];
    }
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
