/**
 * Sidebar webview script (bundled by esbuild to dist/webview.js), rendered with lit-html.
 *
 * Protocol (see src/webview/shared/protocol.ts): posts `ready`, renders the complete `snapshot` the host sends,
 * then patches its copy with each `delta`. Messages are queued as they arrive and applied once per
 * animation frame, after any waiting input, and only the regions they touched are rendered again
 * (see scheduler.ts), so a click is never queued behind rendering. lit-html
 * inserts host text as text, never as HTML, and keeps DOM nodes across renders (keyed transcript
 * lines), so focus, scroll position and opened items survive updates. One narrow `role=status`
 * region announces state changes and compactions only.
 *
 * Local state kept with `setState` (survives the view being hidden and rebuilt): the task draft,
 * the Compact focus text of each session (see focus-drafts.ts) and which tool results and dividers are open.
 */
import { html, nothing, render } from 'lit-html';
import type { HostMessage, WebviewMessage } from './shared/protocol.js';
import { approvals, banners, gauge, header, history } from './panels.js';
import { Store } from './shared/view-store.js';
import type { Applied } from './shared/view-store.js';
import { announcementWithFigure, type StatedFigure } from './shared/announcements.js';
import { compactionAnnouncement, restoreAnnouncement, transcript } from './transcript.js';
import type { Ui } from './transcript.js';
import { RovingRows } from './roving.js';
import { UpdateScheduler } from './scheduler.js';
import { FocusDrafts } from './shared/focus-drafts.js';
import { focusRefusal, taskRefusal } from './shared/input-limits.js';
import { formatInteger, setDisplayLocale } from '../format/display.js';
import { watchResources } from './resource-watch.js';

interface Saved {
  draft?: string;
  open?: string[];
  /** Compact focus text by session id. */
  focus?: Record<string, string>;
}
interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): Saved | undefined;
  setState(state: Saved): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

// Times and figures in the locale the extension writes them in (VS Code's display language).
setDisplayLocale(document.documentElement.dataset.locale);
const vscode = acquireVsCodeApi();
const saved = vscode.getState() ?? {};

type Region = 'top' | 'transcript' | 'history';

/** The regions a host message touches (only those are rendered again). */
function regionsOf(message: HostMessage): Region[] {
  switch (message.type) {
    case 'snapshot':
      return ['top', 'transcript', 'history'];
    case 'itemText':
    case 'compactionDetail':
      return ['transcript'];
    case 'restoreTask':
      return [];
    case 'previewTokens':
      return ['top'];
    case 'delta': {
      const d = message.delta;
      const regions = new Set<Region>();
      if (d.text || d.items || d.earlier !== undefined || d.compactions || d.readOnly !== undefined)
        regions.add('transcript');
      // The top's over-budget warning offers to restore the newest compaction run.
      if (d.checkpoints) {
        regions.add('history');
        regions.add('top');
      }
      if (
        d.state !== undefined ||
        d.budget ||
        d.approvals ||
        d.preview !== undefined ||
        d.error !== undefined ||
        d.source !== undefined ||
        d.hasApiKey !== undefined ||
        d.sessions ||
        d.sessionId !== undefined ||
        d.readOnly !== undefined
      )
        regions.add('top');
      return [...regions];
    }
  }
}

class Page implements Ui {
  readonly store = new Store();
  readonly open = new Set<string>(saved.open ?? []);
  private readonly focusDrafts = new FocusDrafts(saved.focus);
  /** The session whose draft the focus box shows; the box is refilled when the shown session changes. */
  private focusSession: string | undefined | null = null;
  private readonly queue: HostMessage[] = [];
  private readonly status = document.getElementById('status')!;
  private cancelRequested = false;
  /** The figure the status line's sentence states ("33k tokens now"), while it states one. */
  private stated: StatedFigure | undefined;
  private readonly pending: ReturnType<typeof setTimeout>[] = [];
  private readonly statsNode = document.getElementById('ck-stats')!;
  private readonly scheduler = new UpdateScheduler<Region>(
    ['top', 'transcript', 'history'],
    () => this.applyQueued(),
    (region) => this.draw(region),
    (stats) => (this.statsNode.dataset.json = JSON.stringify(stats)),
  );
  // Fixed containers, one lit-html render each: a streamed delta renders the transcript alone.
  private readonly top = document.createElement('div');
  private readonly form = document.createElement('div');
  private readonly list = document.createElement('div');
  private readonly history = document.createElement('div');
  /** Pending approvals, after the transcript's newest line (the tool call that waits for them). */
  private readonly approvalsBox = document.createElement('div');
  /** Approval requests already brought into view, so a redraw does not pull the reader back to one. */
  private readonly shownRequests = new Set<string>();
  /** "↓ 3 new": shown while the reader is scrolled up and new lines arrived. */
  private readonly jump = document.createElement('button');
  /** Why the box kept a task (or the focus field a focus) instead of sending it; empty when nothing was kept. */
  private readonly inputNote = document.createElement('p');
  /** Transcript lines the reader has seen at its end; -1 until the next draw (a new session). */
  private seen = -1;
  /** True from a state that shows another session (or the first after a load) until its transcript is drawn. */
  private opening = false;
  private readonly rows = new RovingRows(this.list);
  // The checkpoint history as one Tab stop too (newest first), instead of one per button.
  private readonly checkpointRows = new RovingRows(this.history, 'first');

  constructor(
    root: HTMLElement,
    private readonly taskInput: HTMLTextAreaElement,
  ) {
    const task = document.createElement('section');
    task.className = 'task';
    task.setAttribute('aria-labelledby', 'task-title');
    const title = document.createElement('h2');
    title.id = 'task-title';
    title.textContent = 'Agent';
    this.jump.type = 'button';
    this.jump.className = 'jump-latest';
    this.jump.dataset.test = 'jump-latest';
    this.jump.hidden = true;
    this.jump.addEventListener('click', () => this.toLatest());
    this.approvalsBox.className = 'approvals';
    this.inputNote.className = 'meta input-note';
    this.inputNote.dataset.test = 'input-note';
    this.inputNote.setAttribute('role', 'alert');
    this.inputNote.hidden = true;
    taskInput.addEventListener('input', () => this.note(undefined));
    task.append(title, this.form, this.inputNote, this.list, this.approvalsBox, this.jump);
    // The view is the one scroll container: reaching the transcript's end by scrolling counts as seen.
    window.addEventListener('scroll', () => this.atLatest() && this.markSeen(), { passive: true });
    const loading = document.createElement('p');
    loading.className = 'loading';
    loading.textContent = 'Loading…';
    this.top.append(loading);
    root.replaceChildren(this.top, task, this.history);
    document.addEventListener('click', (event) => this.scheduler.noteClick(event), true);
  }

  post(message: WebviewMessage): void {
    vscode.postMessage(message);
    // Retry sends the failed task as Run would: the box the failure refilled with it is emptied.
    if (message.type === 'retryTask' && this.taskInput.value.trim() === this.store.view?.error?.retryTask?.trim()) {
      this.taskInput.value = '';
      this.save();
    }
  }

  toggle(id: string, open: boolean): void {
    if (open === this.open.has(id)) return;
    if (open) this.open.add(id);
    else this.open.delete(id);
    this.save();
    this.rerender();
  }

  save(): void {
    vscode.setState({ draft: this.taskInput.value, open: [...this.open].slice(-200), focus: this.focusDrafts.saved() });
  }

  /** Queues a host message; it is applied at the next frame, after any waiting input. */
  /** True once a snapshot from the host was applied. */
  get hasSnapshot(): boolean {
    return this.scheduler.stats.snapshots > 0;
  }

  /** Snapshots from the host applied so far. */
  get snapshotsApplied(): number {
    return this.scheduler.stats.snapshots;
  }

  /** Host messages received so far (reported with `ready`, for the host's log). */
  received = 0;

  receive(message: HostMessage): void {
    this.received++;
    this.queue.push(message);
    this.scheduler.mark();
  }

  rerender(): void {
    this.scheduler.mark('transcript');
  }

  private applyQueued(): void {
    for (const message of this.queue.splice(0)) {
      const applied = this.store.apply(message);
      if (applied.kind === 'gap') {
        this.queue.length = 0;
        this.post({ type: 'resync' });
        return;
      }
      if (applied.kind === 'snapshot') {
        this.scheduler.stats.snapshots++;
        // Another session, or the view shown again: its lines are not "new" to the reader.
        this.seen = -1;
      }
      if (applied.sessionChanged) this.opening = true;
      if (applied.kind === 'delta') this.scheduler.stats.deltas++;
      this.announceChanges(applied);
      // eslint-disable-next-line no-restricted-syntax -- bounded: at most the three regions of the sidebar
      this.scheduler.mark(...regionsOf(message));
    }
  }

  private announceChanges(applied: Applied): void {
    // A cancel from outside the sidebar (palette, notification) shows as the newest reply cut short.
    const newest = this.store.view?.transcript.at(-1);
    const fromRun = applied.stateChange?.from === 'streaming' || applied.stateChange?.from === 'running-tool';
    const cancelled = this.cancelRequested || (fromRun && newest?.kind === 'assistant' && newest.interrupted === true);
    const { clear, texts, stated } = announcementWithFigure(
      applied,
      cancelled,
      this.store.view?.budget,
      this.stated,
      compactionAnnouncement,
      (_c, undone, used) => restoreAnnouncement(undone, used),
    );
    if (applied.stateChange && (applied.stateChange.to === 'idle' || applied.stateChange.to === 'error'))
      this.cancelRequested = false;
    if (clear) {
      // A text still waiting to be written belongs to the session left behind, or states a past figure.
      for (const t of this.pending.splice(0)) clearTimeout(t);
      this.status.textContent = '';
    }
    this.stated = stated;
    for (const text of texts) this.announce(text);
  }

  /** Lines of the transcript, the earlier ones not shown included. */
  private lineCount(): number {
    const view = this.store.view;
    return view ? view.earlier + view.transcript.length : 0;
  }

  /** The transcript's end: the pending approvals when there are any (they follow its newest line). */
  private latestEnd(): Element | null {
    return this.approvalsBox.childElementCount > 0 ? this.approvalsBox : this.list.querySelector('.transcript');
  }

  /** True when the transcript's end is in view (8 px of slack). */
  private atLatest(): boolean {
    const end = this.latestEnd();
    return !end || end.getBoundingClientRect().bottom <= window.innerHeight + 8;
  }

  /** Scrolls the view so the transcript's end is at its bottom, and marks every line seen. */
  private toLatest(): void {
    const end = this.latestEnd();
    const below = end ? end.getBoundingClientRect().bottom - window.innerHeight : 0;
    if (below > 0) window.scrollBy({ top: below + 8 });
    this.markSeen();
  }

  private markSeen(): void {
    this.seen = this.lineCount();
    this.showJump();
  }

  /** Shows the jump control with the count of lines added since the reader left the end. */
  private showJump(): void {
    const unseen = this.seen < 0 ? 0 : Math.max(0, this.lineCount() - this.seen);
    this.jump.hidden = unseen === 0;
    if (unseen === 0) return;
    this.jump.replaceChildren();
    const arrow = document.createElement('span');
    arrow.className = 'codicon codicon-arrow-down';
    arrow.setAttribute('aria-hidden', 'true');
    this.jump.append(arrow, `${formatInteger(unseen)} new`);
    this.jump.title = `Jump to the latest message (${unseen === 1 ? '1 new line' : `${unseen} new lines`})`;
    this.jump.setAttribute('aria-label', this.jump.title);
  }

  /** Asks the host to cancel the run; its end is then announced as cancelled. */
  private cancel(): void {
    this.cancelRequested = true;
    this.post({ type: 'cancel' });
  }

  /** Writes to the status region; a short pause lets screen readers see a change of text. */
  private announce(text: string): void {
    this.status.textContent = '';
    this.pending.push(setTimeout(() => (this.status.textContent = text), 50));
  }

  private draw(region: Region): void {
    const view = this.store.view;
    if (!view) return;
    const busy = view.state !== 'idle' && view.state !== 'error';
    switch (region) {
      case 'top':
        if (this.top.querySelector(':scope > .loading')) this.top.replaceChildren();
        document.body.dataset.state = view.state;
        render(
          html`${header(this, view)}
            <div id="gauge">${gauge(view.budget, undefined, { ui: this, checkpoints: view.checkpoints })}</div>
            <div class="compact-row">
              <input
                type="text"
                id="compact-focus"
                placeholder="Focus (optional)"
                aria-label="Compaction focus"
                data-test="compact-focus"
                @input=${(e: Event) => this.noteFocus(view.sessionId, (e.target as HTMLInputElement).value)}
              />
              <button
                class="secondary"
                data-test="compact"
                title=${
                  view.budget.compactBlocked
                    ? `Nothing to compact: ${view.budget.compactBlocked}`
                    : 'Summarize older history into a checkpoint now'
                }
                aria-describedby=${view.budget.compactBlocked ? 'compact-blocked' : nothing}
                ?disabled=${busy || view.budget.compactBlocked !== undefined}
                @click=${() => this.compact()}
              >
                <span class="codicon codicon-fold" aria-hidden="true"></span><span>Compact</span>
              </button>
              <button
                class="icon-button"
                title="Import transcript…"
                aria-label="Import transcript…"
                data-test="import"
                @click=${() => this.post({ type: 'importTranscript' })}
              >
                <span class="codicon codicon-cloud-download" aria-hidden="true"></span>
              </button>
            </div>
            ${
              view.budget.compactBlocked
                ? html`<p class="meta compact-blocked" id="compact-blocked" data-test="compact-blocked">
                    Nothing to compact: ${view.budget.compactBlocked}.
                  </p>`
                : nothing
            }
            ${banners(this, view)}`,
          this.top,
        );
        render(approvals(this, view), this.approvalsBox);
        this.revealNewApproval();
        this.showFocusOf(view.sessionId);
        // A recording takes no task: say why Run is off, and where to go instead.
        this.taskInput.placeholder = view.readOnly
          ? 'A recording is read-only: “Continue in a new task” (above) starts a working session from it.'
          : 'Describe a task for the agent… (Ctrl+Enter runs it)';
        render(
          html`<form
            class="task-form"
            @submit=${(e: Event) => {
              e.preventDefault();
              this.submit();
            }}
          >
            ${this.taskInput}
            <div class="actions">
              <button
                type="submit"
                data-test="run-task"
                title=${view.readOnly ? 'A recording is read-only: use “Continue in a new task” to run a task from it' : 'Run the task (Ctrl+Enter)'}
                ?disabled=${busy || view.readOnly}
              >
                <span class="codicon codicon-play" aria-hidden="true"></span><span>Run</span>
              </button>
              <button
                type="button"
                class="secondary"
                data-test="cancel"
                ?disabled=${!busy}
                @click=${() => this.cancel()}
              >
                <span class="codicon codicon-debug-stop" aria-hidden="true"></span><span>Cancel</span>
              </button>
            </div>
          </form>`,
          this.form,
        );
        return;
      case 'transcript': {
        render(transcript(this, view), this.list);
        this.rows.sync();
        // A session shown anew (opened, imported, the view reloaded) opens at the top, gauge and
        // checkpoint history in sight, its lines counted as seen; the jump control leads to its end.
        if (this.opening) {
          this.opening = false;
          window.scrollTo({ top: 0 });
          this.markSeen();
          return;
        }
        // Follow the stream only when the reader is at the transcript's end already (or when the
        // first lines of an empty session arrive).
        const stick = this.seen <= 0 || this.atLatest();
        if (stick && this.lineCount() > 0) this.toLatest();
        else if (stick) this.markSeen();
        else this.showJump();
        return;
      }
      case 'history':
        render(history(this, view.checkpoints), this.history);
        this.checkpointRows.sync();
        return;
    }
  }

  /**
   * Scrolls a newly pending approval into view and moves focus to its Allow button, unless the reader
   * is typing in a field of the page (a task draft or a focus text is never interrupted).
   */
  private revealNewApproval(): void {
    const cards = [...this.approvalsBox.querySelectorAll<HTMLElement>('[data-request]')];
    const pending = new Set(cards.map((card) => card.dataset.request ?? ''));
    for (const id of [...this.shownRequests]) if (!pending.has(id)) this.shownRequests.delete(id);
    const fresh = cards.find((card) => !this.shownRequests.has(card.dataset.request ?? ''));
    if (!fresh) return;
    for (const id of pending) this.shownRequests.add(id);
    fresh.scrollIntoView({ block: 'nearest' });
    const active = document.activeElement;
    const typing = active instanceof HTMLTextAreaElement || active instanceof HTMLInputElement;
    if (!typing) fresh.querySelector<HTMLButtonElement>('[data-test="approve"]')?.focus({ preventScroll: true });
  }

  private compact(): void {
    const input = this.top.querySelector<HTMLInputElement>('#compact-focus');
    const focus = input?.value.trim();
    const refused = focusRefusal(focus ?? '');
    this.note(refused);
    if (refused) return;
    this.post({ type: 'compact', focus: focus || undefined });
    if (input) input.value = '';
    this.noteFocus(this.store.view?.sessionId, '');
  }

  /** Keeps the focus text typed for session `id`. */
  private noteFocus(id: string | undefined, text: string): void {
    this.focusDrafts.set(id, text);
    this.save();
  }

  /** Fills the focus box with session `id`'s own draft when the shown session changed (typing is never disturbed). */
  private showFocusOf(id: string | undefined): void {
    if (id === this.focusSession) return;
    this.focusSession = id;
    const input = this.top.querySelector<HTMLInputElement>('#compact-focus');
    if (input) input.value = this.focusDrafts.get(id);
  }

  /** A task Run sent that the host did not take: back into the box, unless something new was typed. */
  restoreTask(text: string): void {
    if (this.taskInput.value.trim()) return;
    this.taskInput.value = text;
    this.save();
  }

  /** Shows why a typed text was kept instead of sent; undefined hides the note. */
  private note(text: string | undefined): void {
    this.inputNote.textContent = text ?? '';
    this.inputNote.hidden = !text;
  }

  submit(): void {
    const text = this.taskInput.value.trim();
    const view = this.store.view;
    if (!text || view?.readOnly) return;
    // Checked before the box is cleared: a task the host would refuse stays where the user typed it.
    const refused = taskRefusal(text, view !== undefined && view.state !== 'idle' && view.state !== 'error');
    this.note(refused);
    if (refused) return;
    this.post({ type: 'runTask', text });
    this.taskInput.value = '';
    this.save();
  }
}

/** The page's last uncaught error, reported with `ready` so the host's log shows why a view did not draw. */
let lastError: string | undefined;
window.addEventListener('error', (event) => (lastError = String(event.message).slice(0, 500)));
window.addEventListener('unhandledrejection', (event) => (lastError = String(event.reason).slice(0, 500)));

const root = document.getElementById('app');
if (root) {
  // The task box is one element kept across renders, so typing is never disturbed by an update.
  const taskInput = document.createElement('textarea');
  Object.assign(taskInput, {
    id: 'task',
    rows: 3,
    placeholder: 'Describe a task for the agent… (Ctrl+Enter runs it)',
    value: saved.draft ?? '',
  });
  taskInput.setAttribute('aria-label', 'Agent task');
  const page = new Page(root, taskInput);
  taskInput.addEventListener('input', () => page.save());
  taskInput.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      page.submit();
    }
  });
  window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
    if (!event.data || typeof event.data !== 'object' || !('type' in event.data)) return;
    if (event.data.type === 'restoreTask') page.restoreTask(event.data.text);
    else page.receive(event.data);
  });
  watchResources((what) => vscode.postMessage({ type: 'resourcesLost', what }));
  let attempt = 0;
  const sayReady = () =>
    vscode.postMessage({
      type: 'ready',
      attempt: ++attempt,
      received: page.received,
      applied: page.snapshotsApplied,
      hidden: document.hidden,
      error: lastError,
    });
  sayReady();
  // A view resolved while the workbench lays out several webviews can miss its first snapshot (seen
  // as a view stuck on "Loading…"): it says ready again until one arrives; the host answers each.
  const retry = setInterval(() => {
    if (page.hasSnapshot) clearInterval(retry);
    else sayReady();
  }, 2_000);
}
