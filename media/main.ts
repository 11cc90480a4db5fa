/**
 * Sidebar webview script (bundled by esbuild to dist/webview.js), rendered with lit-html.
 *
 * Protocol (see src/views/protocol.ts): posts `ready`, renders the complete `snapshot` the host sends,
 * then patches its copy with each `delta`. Messages are applied to the store at once but rendered at
 * most once per animation frame, so user input is never queued behind a backlog of renders. lit-html
 * inserts host text as text, never as HTML, and keeps DOM nodes across renders (keyed transcript
 * lines), so focus, scroll position and opened items survive updates. One narrow `role=status`
 * region announces state changes and compactions only.
 *
 * Local state kept with `setState` (survives the view being hidden and rebuilt): the task draft and
 * which tool results and dividers are open.
 */
import { html, render } from 'lit-html';
import type { HostMessage, WebviewMessage } from '../src/views/protocol.js';
import { banners, gauge, header, history } from './panels.js';
import { Store } from '../src/views/view-store.js';
import { compactionAnnouncement, transcript } from './transcript.js';
import type { Ui } from './transcript.js';

interface Saved {
  draft?: string;
  open?: string[];
}
interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): Saved | undefined;
  setState(state: Saved): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const saved = vscode.getState() ?? {};

/**
 * Timing figures read by the end-to-end suite (through `#ck-stats`): render times, and for each click
 * how many renders ran between the input event and its handler (0 means input was never queued).
 */
const stats = { snapshots: 0, deltas: 0, renders: 0, renderMs: [] as number[], clicks: [] as Array<{ delayMs: number; rendersBetween: number }> };
const renderTimes: number[] = [];

class Page implements Ui {
  readonly store = new Store();
  readonly open = new Set<string>(saved.open ?? []);
  private frame = 0;
  private readonly status = document.getElementById('status')!;
  private readonly statsNode = document.getElementById('ck-stats')!;

  constructor(
    private readonly root: HTMLElement,
    private readonly taskInput: HTMLTextAreaElement,
  ) {}

  post(message: WebviewMessage): void {
    vscode.postMessage(message);
  }

  toggle(id: string, open: boolean): void {
    if (open === this.open.has(id)) return;
    if (open) this.open.add(id);
    else this.open.delete(id);
    this.save();
    this.rerender();
  }

  save(): void {
    vscode.setState({ draft: this.taskInput.value, open: [...this.open].slice(-200) });
  }

  receive(message: HostMessage): void {
    const applied = this.store.apply(message);
    if (applied.kind === 'gap') {
      this.post({ type: 'resync' });
      return;
    }
    if (applied.kind === 'snapshot') stats.snapshots++;
    if (applied.kind === 'delta') stats.deltas++;
    const change = applied.stateChange;
    // Only the changes a listener acts on: work starts, work ends, an error, a compaction starts.
    if (change) {
      const idle = (s: string) => s === 'idle' || s === 'error';
      if (change.to === 'error') this.announce('The agent stopped with an error.');
      else if (change.to === 'idle') this.announce('The agent finished.');
      else if (change.to === 'compacting') this.announce('Compacting the context.');
      else if (idle(change.from)) this.announce('The agent is working.');
    }
    for (const c of applied.newCompactions) this.announce(compactionAnnouncement(c));
    this.rerender();
  }

  /** Writes to the status region; a short pause lets screen readers see a change of text. */
  private announce(text: string): void {
    this.status.textContent = '';
    setTimeout(() => (this.status.textContent = text), 50);
  }

  rerender(): void {
    this.frame ||= requestAnimationFrame(() => {
      this.frame = 0;
      this.renderNow();
    });
  }

  private renderNow(): void {
    const view = this.store.view;
    if (!view) return;
    const started = performance.now();
    const list = this.root.querySelector('.transcript');
    const stick = !list || list.scrollTop + list.clientHeight >= list.scrollHeight - 8;
    const busy = view.state !== 'idle' && view.state !== 'error';
    document.body.dataset.state = view.state;
    render(
      html`${header(this, view)}
        <div id="gauge">${gauge(view.budget)}</div>
        <div class="compact-row">
          <input type="text" id="compact-focus" placeholder="Focus (optional)" aria-label="Compaction focus" data-test="compact-focus">
          <button class="secondary" data-test="compact" title="Summarize older history into a checkpoint now" ?disabled=${busy} @click=${() => this.compact()}><span class="codicon codicon-fold" aria-hidden="true"></span><span>Compact</span></button>
          <button class="icon-button" title="Import transcript…" aria-label="Import transcript…" data-test="import" @click=${() => this.post({ type: 'importTranscript' })}><span class="codicon codicon-cloud-download" aria-hidden="true"></span></button>
        </div>
        ${banners(this, view)}
        <section class="task" aria-labelledby="task-title">
          <h2 id="task-title">Agent</h2>
          <form class="task-form" @submit=${(e: Event) => { e.preventDefault(); this.submit(); }}>
            ${this.taskInput}
            <div class="actions">
              <button type="submit" data-test="run-task" ?disabled=${busy || view.readOnly}><span class="codicon codicon-play" aria-hidden="true"></span><span>Run</span></button>
              <button type="button" class="secondary" data-test="cancel" ?disabled=${!busy} @click=${() => this.post({ type: 'cancel' })}><span class="codicon codicon-debug-stop" aria-hidden="true"></span><span>Cancel</span></button>
            </div>
          </form>
          ${transcript(this, view)}
        </section>
        ${history(this, view.checkpoints)}`,
      this.root,
    );
    const after = this.root.querySelector('.transcript');
    if (after && stick) after.scrollTop = after.scrollHeight;
    const ms = performance.now() - started;
    stats.renders++;
    stats.renderMs.push(Math.round(ms * 100) / 100);
    if (stats.renderMs.length > 500) stats.renderMs.shift();
    renderTimes.push(performance.timeOrigin + performance.now());
    if (renderTimes.length > 50) renderTimes.shift();
    this.statsNode.dataset.json = JSON.stringify(stats);
  }

  private compact(): void {
    const input = this.root.querySelector<HTMLInputElement>('#compact-focus');
    const focus = input?.value.trim();
    this.post({ type: 'compact', focus: focus || undefined });
    if (input) input.value = '';
  }

  submit(): void {
    const text = this.taskInput.value.trim();
    if (!text || this.store.view?.readOnly) return;
    this.post({ type: 'runTask', text });
    this.taskInput.value = '';
    this.save();
  }
}

const root = document.getElementById('app');
if (root) {
  root.replaceChildren();
  // The task box is one element kept across renders, so typing is never disturbed by an update.
  const taskInput = document.createElement('textarea');
  Object.assign(taskInput, { id: 'task', rows: 3, placeholder: 'Describe a task for the agent… (Ctrl+Enter runs it)', value: saved.draft ?? '' });
  taskInput.setAttribute('aria-label', 'Agent task');
  const page = new Page(root, taskInput);
  taskInput.addEventListener('input', () => page.save());
  taskInput.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      page.submit();
    }
  });
  // Capture phase: runs before any handler, to record how long the click waited and whether a render got in first.
  document.addEventListener('click', (event) => {
    const created = performance.timeOrigin + event.timeStamp;
    stats.clicks.push({ delayMs: Math.round(performance.timeOrigin + performance.now() - created), rendersBetween: renderTimes.filter((t) => t > created).length });
    if (stats.clicks.length > 50) stats.clicks.shift();
    document.getElementById('ck-stats')!.dataset.json = JSON.stringify(stats);
  }, true);
  window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
    if (event.data && typeof event.data === 'object' && 'type' in event.data) page.receive(event.data);
  });
  vscode.postMessage({ type: 'ready' });
}
