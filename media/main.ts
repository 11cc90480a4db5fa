/**
 * Sidebar webview script (bundled by esbuild to dist/webview.js). Vanilla DOM, no framework.
 *
 * Protocol (see src/views/protocol.ts): posts `ready` once, then renders each complete `snapshot` the
 * host sends. All text from the host is inserted with `textContent`, never as HTML. The only local
 * state is the task draft, kept with `setState` so it survives the view being hidden and rebuilt.
 */
import type {
  ApprovalView,
  BudgetView,
  CheckpointView,
  HostMessage,
  PreviewView,
  TranscriptItemView,
  ViewState,
  WebviewMessage,
} from '../src/views/protocol';

interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): { draft?: string } | undefined;
  setState(state: { draft?: string }): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const post = (message: WebviewMessage): void => vscode.postMessage(message);

/** Creates an element with attributes and children; strings become text nodes. */
function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | undefined> = {},
  ...children: Array<Node | string | undefined | false>
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined) continue;
    // Styles go through the CSSOM: the CSP allows no inline style attributes.
    if (name === 'style') {
      for (const declaration of value.split(';')) {
        const [property, ...rest] = declaration.split(':');
        if (property && rest.length) element.style.setProperty(property.trim(), rest.join(':').trim());
      }
    } else element.setAttribute(name, value);
  }
  for (const child of children) if (child !== undefined && child !== false) element.append(child);
  return element;
}

/** A codicon glyph, hidden from screen readers. */
function icon(name: string, extra = ''): HTMLElement {
  return h('span', { class: `codicon codicon-${name} ${extra}`.trim(), 'aria-hidden': 'true' });
}

/** A button that posts `message` when clicked. */
function button(label: string, codicon: string, message: WebviewMessage, options: { title?: string; secondary?: boolean; test?: string } = {}): HTMLButtonElement {
  const element = h('button', { class: options.secondary ? 'secondary' : undefined, title: options.title ?? label, 'data-test': options.test }, icon(codicon), h('span', {}, label));
  element.addEventListener('click', () => post(message));
  return element;
}

/** An icon-only button, labelled for screen readers. */
function iconButton(label: string, codicon: string, message: WebviewMessage, test?: string): HTMLButtonElement {
  const element = h('button', { class: 'icon-button', title: label, 'aria-label': label, 'data-test': test }, icon(codicon));
  element.addEventListener('click', () => post(message));
  return element;
}

function tokens(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

function percent(part: number, whole: number): string {
  return `${whole > 0 ? Math.max(0, Math.min(100, (part / whole) * 100)).toFixed(2) : '0'}%`;
}

const SEGMENTS: Array<[keyof BudgetView['breakdown'], string]> = [
  ['system', 'System'],
  ['tools', 'Tool schemas'],
  ['history', 'History'],
  ['summaries', 'Summaries'],
  ['currentTask', 'Current task'],
];

function renderGauge(budget: BudgetView): HTMLElement {
  const bar = h('div', {
    class: 'gauge-bar',
    role: 'meter',
    'aria-label': 'Context budget',
    'aria-valuemin': '0',
    'aria-valuemax': String(budget.window),
    'aria-valuenow': String(budget.used),
    'aria-valuetext': `${budget.used} of ${budget.inputBudget} prompt tokens`,
  });
  for (const [key, label] of SEGMENTS) {
    const value = budget.breakdown[key];
    if (value > 0) bar.append(h('div', { class: `segment segment-${key}`, style: `width:${percent(value, budget.window)}`, title: `${label}: ${value} tokens` }));
  }
  bar.append(
    h('div', { class: 'reserved', style: `width:${percent(budget.reserved, budget.window)}`, title: `Reserved for the reply: ${budget.reserved} tokens` }),
    h('div', { class: 'mark mark-at', style: `left:${percent(budget.compactAt, budget.window)}`, title: `Compacts at ${budget.compactAt} tokens (${Math.round(budget.compactAtFraction * 100)}%)` }),
    h('div', { class: 'mark mark-to', style: `left:${percent(budget.compactTo, budget.window)}`, title: `Compacts down to ${budget.compactTo} tokens (${Math.round(budget.compactToFraction * 100)}%)` }),
  );
  const over = budget.used >= budget.compactAt;
  const legend = h('ul', { class: 'legend' });
  for (const [key, label] of SEGMENTS) {
    legend.append(h('li', {}, h('span', { class: `swatch segment-${key}`, 'aria-hidden': 'true' }), h('span', { class: 'legend-label' }, label), h('span', { class: 'legend-value', 'data-test': `breakdown-${key}` }, tokens(budget.breakdown[key]))));
  }
  return h(
    'section',
    { class: `gauge${over ? ' over' : ''}`, 'aria-labelledby': 'gauge-title' },
    h('div', { class: 'gauge-head' },
      h('h2', { id: 'gauge-title' }, 'Budget'),
      h('span', { class: `badge ${budget.exact ? 'exact' : 'estimated'}`, 'data-test': 'gauge-accuracy', title: budget.exact ? 'Anchored on the provider-reported prompt tokens' : 'Counted locally; exact after the next model reply' }, budget.exact ? 'exact' : 'estimated'),
    ),
    h('div', { class: 'gauge-numbers' },
      h('span', { class: 'used', 'data-test': 'gauge-used', 'data-tokens': String(budget.used) }, tokens(budget.used)),
      h('span', { class: 'of' }, ` / ${tokens(budget.inputBudget)} prompt · ${tokens(budget.window)} window`),
      h('span', { class: 'model', 'data-test': 'gauge-model' }, budget.model),
    ),
    bar,
    h('div', { class: 'gauge-marks' }, `compact at ${tokens(budget.compactAt)} → ${tokens(budget.compactTo)}${budget.autoCompact ? '' : ' (auto off)'} · ${tokens(budget.reserved)} reserved for reply`),
    legend,
    budget.used > budget.inputBudget
      ? h('p', { class: 'warning', 'data-test': 'over-budget' }, icon('warning'), ` ${tokens(budget.used - budget.inputBudget)} over the prompt budget: compact before the next request.`)
      : undefined,
    ...budget.warnings.map((warning) => h('p', { class: 'warning' }, icon('warning'), ` ${warning}`)),
  );
}

function renderPreview(preview: PreviewView): HTMLElement {
  return h('section', { class: 'card preview', 'data-test': 'preview' },
    h('h2', {}, icon('eye'), ' Proposed summary'),
    h('p', { class: 'meta' }, `${preview.messagesReplaced} messages, ${tokens(preview.tokensBefore)} → ${tokens(preview.tokensAfter)} tokens`),
    h('pre', { class: 'summary-text' }, preview.summary),
    h('div', { class: 'actions' }, button('Apply', 'check', { type: 'applyPreview' }), button('Discard', 'close', { type: 'discardPreview' }, { secondary: true })),
  );
}

function renderApproval(approval: ApprovalView): HTMLElement {
  return h('div', { class: 'card approval', 'data-test': 'approval' },
    h('div', { class: 'approval-title' }, icon(approval.kind === 'edit' ? 'edit' : 'terminal'), ` ${approval.title}`),
    h('pre', { class: 'approval-detail' }, approval.detail),
    h('div', { class: 'actions' },
      button('Allow', 'check', { type: 'approve', requestId: approval.requestId, approved: true }, { test: 'approve' }),
      button('Deny', 'close', { type: 'approve', requestId: approval.requestId, approved: false }, { secondary: true, test: 'deny' }),
    ),
  );
}

function renderTranscriptItem(item: TranscriptItemView): HTMLElement {
  switch (item.kind) {
    case 'user':
      return h('li', { class: 'turn user' }, icon('account'), h('div', { class: 'text' }, item.text));
    case 'assistant':
      return h('li', { class: `turn assistant${item.streaming ? ' streaming' : ''}` }, icon('hubot'), h('div', { class: 'text' }, item.text));
    case 'tool-call':
      return h('li', { class: 'turn tool-call' }, icon(item.running ? 'loading' : 'tools', item.running ? 'codicon-modifier-spin' : ''), h('code', {}, item.name), h('span', { class: 'args' }, ` ${item.argumentsPreview}`));
    case 'tool-result': {
      const details = h('details', { class: 'tool-result' },
        h('summary', {}, icon(item.ok ? 'pass' : 'error'), ` ${item.name} · ${item.size} chars`),
        h('pre', {}, item.preview),
      );
      return h('li', { class: `turn result ${item.ok ? 'ok' : 'failed'}` }, details);
    }
  }
}

function renderCheckpoint(checkpoint: CheckpointView): HTMLElement {
  const time = new Date(checkpoint.time);
  const facts = [
    `${checkpoint.messagesReplaced} messages`,
    checkpoint.summarizerModel ?? 'no model',
    checkpoint.dropped > 0 ? `${checkpoint.dropped} dropped` : undefined,
  ].filter((fact): fact is string => fact !== undefined);
  return h('li', { class: `checkpoint${checkpoint.restored ? ' restored' : ''}`, 'data-test': 'checkpoint', 'data-id': checkpoint.id, 'data-trigger': checkpoint.trigger, 'data-before': String(checkpoint.tokensBefore), 'data-after': String(checkpoint.tokensAfter) },
    h('div', { class: 'checkpoint-head' },
      h('span', { class: `badge trigger-${checkpoint.trigger}` }, checkpoint.trigger),
      h('span', { class: 'strategy' }, checkpoint.strategy),
      h('time', { datetime: checkpoint.time, title: time.toLocaleString() }, time.toLocaleTimeString()),
    ),
    h('div', { class: 'checkpoint-tokens', 'data-test': 'checkpoint-tokens' }, `${tokens(checkpoint.tokensBefore)} → ${tokens(checkpoint.tokensAfter)} tokens`),
    h('div', { class: 'checkpoint-facts' }, facts.join(' · ')),
    checkpoint.focus ? h('div', { class: 'checkpoint-focus' }, icon('target'), ` ${checkpoint.focus}`) : undefined,
    checkpoint.restored ? h('div', { class: 'checkpoint-restored' }, icon('history'), ' restored') : undefined,
    h('div', { class: 'actions' },
      iconButton('Open checkpoint', 'go-to-file', { type: 'openCheckpoint', id: checkpoint.id }, 'open-checkpoint'),
      iconButton('Compare replaced messages with the summary', 'diff', { type: 'diffCheckpoint', id: checkpoint.id }, 'diff-checkpoint'),
      checkpoint.restored ? undefined : iconButton('Restore: put the replaced messages back', 'discard', { type: 'restoreCheckpoint', id: checkpoint.id }, 'restore-checkpoint'),
      iconButton('Copy summary', 'copy', { type: 'copySummary', id: checkpoint.id }, 'copy-summary'),
    ),
  );
}

/** Static parts built once; dynamic parts re-rendered from each snapshot. */
class SidebarView {
  private readonly header = h('header', { class: 'header' });
  private readonly gauge = h('div', { id: 'gauge' });
  private readonly banners = h('div', { class: 'banners' });
  private readonly taskInput = h('textarea', { id: 'task', rows: '3', placeholder: 'Describe a task for the agent…', 'aria-label': 'Agent task' });
  private readonly runButton = h('button', { type: 'submit', 'data-test': 'run-task' }, icon('play'), h('span', {}, 'Run'));
  private readonly cancelButton = button('Cancel', 'debug-stop', { type: 'cancel' }, { secondary: true, test: 'cancel' });
  private readonly transcript = h('ol', { class: 'transcript', 'aria-label': 'Agent transcript' });
  private readonly checkpoints = h('ol', { class: 'checkpoints', 'aria-label': 'Checkpoints, newest first' });
  private readonly checkpointCount = h('span', { class: 'count' });

  constructor(root: HTMLElement) {
    const form = h('form', { class: 'task-form' }, this.taskInput, h('div', { class: 'actions' }, this.runButton, this.cancelButton));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.submit();
    });
    this.taskInput.value = vscode.getState()?.draft ?? '';
    this.taskInput.addEventListener('input', () => vscode.setState({ draft: this.taskInput.value }));
    this.taskInput.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        this.submit();
      }
    });
    const compactFocus = h('input', { type: 'text', placeholder: 'Focus (optional)', 'aria-label': 'Compaction focus', 'data-test': 'compact-focus' });
    const compactButton = h('button', { class: 'secondary', 'data-test': 'compact', title: 'Summarize older history into a checkpoint now' }, icon('fold'), h('span', {}, 'Compact'));
    compactButton.addEventListener('click', () => {
      const focus = compactFocus.value.trim();
      post({ type: 'compact', focus: focus || undefined });
      compactFocus.value = '';
    });
    root.replaceChildren(
      this.header,
      this.gauge,
      h('div', { class: 'compact-row' }, compactFocus, compactButton, iconButton('Import transcript…', 'cloud-download', { type: 'importTranscript' }, 'import')),
      this.banners,
      h('section', { class: 'task', 'aria-labelledby': 'task-title' }, h('h2', { id: 'task-title' }, 'Agent'), form, this.transcript),
      h('section', { class: 'history', 'aria-labelledby': 'history-title' }, h('h2', { id: 'history-title' }, 'Checkpoints ', this.checkpointCount), this.checkpoints),
    );
  }

  private submit(): void {
    const text = this.taskInput.value.trim();
    if (!text) return;
    post({ type: 'runTask', text });
    this.taskInput.value = '';
    vscode.setState({ draft: '' });
  }

  render(state: ViewState): void {
    document.body.dataset.state = state.state;
    const busy = state.state !== 'idle' && state.state !== 'error';
    this.header.replaceChildren(
      h('span', { class: `state state-${state.state}`, 'data-test': 'state' }, icon(busy ? 'loading' : state.state === 'error' ? 'error' : 'circle-large-outline', busy ? 'codicon-modifier-spin' : ''), state.state),
      h('span', { class: 'source', 'data-test': 'source', title: state.source }, state.source),
      state.hasApiKey ? h('span', { class: 'key', title: 'API key stored' }, icon('key')) : iconButton('Set API key', 'key', { type: 'setApiKey' }, 'set-key'),
    );
    this.gauge.replaceChildren(renderGauge(state.budget));
    this.banners.replaceChildren(
      ...(state.error ? [h('div', { class: 'card error', role: 'alert' }, icon('error'), ` ${state.error}`)] : []),
      ...(state.preview ? [renderPreview(state.preview)] : []),
      ...state.approvals.map(renderApproval),
    );
    this.runButton.disabled = busy;
    this.cancelButton.disabled = !busy;
    const stick = this.transcript.scrollTop + this.transcript.clientHeight >= this.transcript.scrollHeight - 8;
    this.transcript.replaceChildren(...(state.transcript.length ? state.transcript.map(renderTranscriptItem) : [h('li', { class: 'empty' }, 'No messages yet.')]));
    if (stick) this.transcript.scrollTop = this.transcript.scrollHeight;
    this.checkpointCount.textContent = `(${state.checkpoints.length})`;
    this.checkpoints.replaceChildren(...(state.checkpoints.length ? state.checkpoints.map(renderCheckpoint) : [h('li', { class: 'empty' }, 'No checkpoints yet. Compaction writes one each time it rewrites the context.')]));
  }
}

const root = document.getElementById('app');
if (root) {
  const view = new SidebarView(root);
  window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
    if (event.data?.type === 'snapshot') view.render(event.data.state);
  });
  post({ type: 'ready' });
}
