/**
 * Templates of the sidebar's fixed panels: header with the session list, the budget gauge, banners
 * (error with its fixes, summary preview, approvals) and the checkpoint history.
 */
import { html, nothing } from 'lit-html';
import type { TemplateResult } from 'lit-html';
import type {
  ApprovalView,
  BudgetView,
  CheckpointView,
  ErrorView,
  PreviewView,
  SessionView,
  ViewState,
  WebviewMessage,
} from './shared/protocol.js';
import { cssProps } from './css-props.js';
import { localTime } from './format.js';
import { formatTokens, formatTokensFull } from '../format/tokens.js';
import { formatDateTime } from '../format/display.js';
import { EDITED_BY_HAND, failedTaskLine, READ_ONLY_NOTICE } from './shared/item-labels.js';
import { checkpointCountTitle, groupCheckpointRuns, type CheckpointRunView } from './shared/checkpoint-runs.js';
import type { AgentGaugeView } from './shared/agent-gauge.js';
import {
  gaugeGeometry,
  overBudgetAdvice,
  recordedPromptNote,
  windowOriginNote,
  type GaugeGeometry,
  triggerLevel,
} from './shared/gauge-geometry.js';
import type { Ui } from './transcript.js';
import { plural } from '../format/tokens.js';

const icon = (name: string, extra = '') =>
  html`<span class="codicon codicon-${name} ${extra}" aria-hidden="true"></span>`;

/** An icon button; `roving` ones (inside a roving row) are out of the Tab order, reached by Enter/Right. */
function iconButton(
  ui: Ui,
  label: string,
  codicon: string,
  message: WebviewMessage,
  test?: string,
  roving = false,
): TemplateResult {
  return html`<button
    class="icon-button"
    tabindex=${roving ? '-1' : nothing}
    title=${label}
    aria-label=${label}
    data-test=${test ?? nothing}
    @click=${() => ui.post(message)}
  >
    ${icon(codicon)}
  </button>`;
}

function button(
  ui: Ui,
  label: string,
  codicon: string,
  message: WebviewMessage,
  options: { secondary?: boolean; test?: string; disabled?: boolean } = {},
): TemplateResult {
  return html`<button
    class=${options.secondary ? 'secondary' : ''}
    data-test=${options.test ?? nothing}
    ?disabled=${options.disabled ?? false}
    @click=${() => ui.post(message)}
  >
    ${icon(codicon)}<span>${label}</span>
  </button>`;
}

/** A session's whole name as its hover text says it ("Imported recording: …" for an import). */
function sessionName(s: SessionView): string {
  return s.kind === 'imported' ? `Imported recording: ${s.label}` : s.label;
}

/** State, source, session switcher and key. */
export function header(ui: Ui, view: ViewState): TemplateResult {
  const busy = view.state !== 'idle' && view.state !== 'error';
  const shown = view.sessions.find((s) => s.id === view.sessionId);
  // The select shows the session's whole name on hover and takes the header's first row whole;
  // state and buttons wrap below it when the sidebar is narrow.
  return html`<header class="header">
      <label class="sr-only" for="session-select">Session</label>
      <select
        id="session-select"
        class="session-select"
        data-test="session-select"
        title=${shown ? sessionName(shown) : view.source}
        ?disabled=${busy}
        @change=${(e: Event) => {
          const select = e.currentTarget as HTMLSelectElement;
          ui.post({ type: 'switchSession', id: select.value });
          // The list shows the session in view until the switch is made: a refused switch (a preview
          // is waiting) leaves nothing to re-render, so the choice would otherwise stay on screen.
          select.value = view.sessionId ?? '';
        }}
      >
        ${view.sessions.length === 0 ? html`<option value="" selected>${view.source}</option>` : nothing}
        ${view.sessions.map((s) => html`<option value=${s.id} title=${sessionName(s)} .selected=${s.id === view.sessionId}>${s.kind === 'imported' ? '⤓ ' : ''}${s.label}</option>`)}
      </select>
      <span class="state state-${view.state}" data-test="state"
        >${icon(busy ? 'loading' : view.state === 'error' ? 'error' : 'circle-large-outline', busy ? 'codicon-modifier-spin' : '')}${view.state}</span
      >
      ${iconButton(ui, 'New Session', 'add', { type: 'newSession' }, 'new-session')}
      ${view.sessionId ? iconButton(ui, 'Rename Session', 'edit', { type: 'renameSession', id: view.sessionId }, 'rename-session') : nothing}
      ${view.sessionId ? iconButton(ui, 'Delete Session', 'trash', { type: 'deleteSession', id: view.sessionId }, 'delete-session') : nothing}
      ${view.hasApiKey ? html`<span class="key" title="API key stored">${icon('key')}</span>` : iconButton(ui, 'Set API Key', 'key', { type: 'setApiKey' }, 'set-key')}
    </header>
    <div class="source" data-test="source" title=${view.source}>${view.source}</div>`;
}

const SEGMENTS: Array<[keyof BudgetView['breakdown'], string]> = [
  ['system', 'System'],
  ['instructions', 'Project instructions'],
  ['tools', 'Tool schemas'],
  ['history', 'History'],
  ['summaries', 'Summaries'],
  ['currentTask', 'Current task'],
  ['harness', 'Harness (environment)'],
  ['unrecorded', 'Not in the recording'],
];

/** What a category holds, where its name alone does not say it (the segment's and legend row's tooltip). */
const SEGMENT_NOTES: Partial<Record<keyof BudgetView['breakdown'], string>> = {
  harness:
    "Text the agent's harness or editor added to the current task's messages (environment details, system reminders, open files): sent with the task, not typed by the user",
  unrecorded:
    "The provider's reported prompt tokens minus what the session file's messages count to: the agent's system prompt, tool schemas and anything else it sent without recording it",
};

/** The categories a gauge shows: a watched agent's unaccounted part only where it is measured. */
const segmentsOf = (budget: BudgetView) => SEGMENTS.filter(([key]) => budget.breakdown[key] !== undefined);

/** A mark's CSS `left`: at `left`, but never past the bar's right edge (a mark `width` px wide stays visible). */
const markLeft = (left: string, width: number) => `min(${left}, calc(100% - ${width}px))`;

/** The mark where the context stood before the latest compaction run, on the bar's scale. */
function peakMarkOf(budget: BudgetView, geometry: GaugeGeometry): TemplateResult | typeof nothing {
  if (!budget.peak || !geometry.peak) return nothing;
  const beyond = budget.peak.tokens > budget.window;
  return html`<div
    class="mark mark-peak${beyond ? ' beyond' : ''}"
    data-test="gauge-peak"
    data-tokens=${budget.peak.tokens}
    data-css=${cssProps({ left: markLeft(geometry.peak, 3) })}
    title="Peaked at ${formatTokens(budget.peak.tokens)} tokens${beyond ? ' (beyond the window)' : ''} before the compaction at ${localTime(budget.peak.time)}"
  ></div>`;
}

/**
 * The budget gauge with its compaction marks and the peak before the latest compaction. Over the
 * prompt budget the bar's scale widens to the context (see gauge-geometry.ts): the overflow is its
 * own hatched segment, the window's end a mark, and an "over budget" label says by how much. `own`, for
 * the sidebar's gauge, lets the warning offer a restore when Compact has nothing left to replace.
 */
export function gauge(budget: BudgetView, agent?: AgentGaugeView, own?: OwnGauge): TemplateResult {
  const g = gaugeGeometry(budget);
  const over = budget.used >= budget.compactAt;
  return html`<section class="gauge${over ? ' over' : ''}${g.over ? ' over-budget' : ''}" aria-labelledby="gauge-title">
    <div class="gauge-head">
      <h2 id="gauge-title">${agent ? agent.agent : 'Budget'}</h2>
      ${
        budget.counting
          ? html`<span
              class="badge estimated"
              data-test="gauge-accuracy"
              title="About 4 characters a token while the tokenizer loads; the exact count follows in a moment"
              >≈ ${formatTokens(budget.used)} (estimate)</span
            >`
          : html`<span
              class="badge ${budget.exact ? 'exact' : 'estimated'}"
              data-test="gauge-accuracy"
              title=${budget.usedSource ?? (budget.exact ? 'Anchored on the provider-reported prompt tokens' : 'Counted locally; exact after the next model reply')}
              >${budget.exact ? (budget.cachedAdded ? 'exact (with cached)' : 'exact') : 'estimated'}</span
            >`
      }
    </div>
    <div class="gauge-numbers">
      <span class="used" data-test="gauge-used" data-tokens=${budget.used}>${formatTokens(budget.used)}</span>
      <span class="of">
        / ${formatTokens(budget.inputBudget)} prompt ·
        <span
          data-test="gauge-window"
          title=${budget.windowSource ? `Context window: ${budget.windowSource}` : 'Context window'}
          >${formatTokens(budget.window)} window${windowOriginNote(budget.windowSource)}</span
        ></span
      >
      ${g.over ? html`<span class="badge over-label" data-test="over-label">${icon('warning')} over budget · ${g.usedPercent}%</span>` : nothing}
      <span class="model" data-test="gauge-model">${budget.model}</span>
    </div>
    <div
      class="gauge-bar"
      role="meter"
      aria-label="Context budget"
      aria-valuemin="0"
      aria-valuemax=${budget.inputBudget}
      aria-valuenow=${budget.used}
      aria-valuetext="${budget.used} of ${budget.inputBudget} prompt tokens${g.over ? `, ${g.overTokens} over budget` : ''}${budget.peak ? `, peaked at ${budget.peak.tokens} before the last compaction` : ''}"
    >
      ${segmentsOf(budget).map(([key, label]) => ((budget.breakdown[key] ?? 0) > 0 ? html`<div class="segment segment-${key}" data-css=${cssProps({ width: g.segments[key] ?? '0%' })} title="${label}: ${budget.breakdown[key]} tokens${SEGMENT_NOTES[key] ? `. ${SEGMENT_NOTES[key]}` : ''}"></div>` : nothing))}
      <div
        class="reserved"
        data-css=${cssProps({ left: g.reserved.left, width: g.reserved.width })}
        title="Reserved for the reply: ${budget.reserved} tokens"
      ></div>
      ${g.overflow ? html`<div class="overflow" data-test="gauge-overflow" data-css=${cssProps({ left: g.overflow.left, width: g.overflow.width })} title="${g.overTokens} tokens over the prompt budget"></div>` : nothing}
      ${g.windowEnd ? html`<div class="mark mark-window" data-test="gauge-window-end" data-css=${cssProps({ left: markLeft(g.windowEnd, 2) })} title="End of the ${budget.window}-token window"></div>` : nothing}
      <div
        class="mark mark-at"
        data-test="gauge-mark-at"
        data-css=${cssProps({ left: markLeft(g.at, 2) })}
        title="Compacts at ${budget.compactAt} tokens: ${triggerLevel(budget.compactAt, budget.compactAtFraction, budget.inputBudget, budget.window)}"
      ></div>
      ${
        agent && !budget.compactTo
          ? nothing
          : html`<div
              class="mark mark-to"
              data-test="gauge-mark-to"
              data-css=${cssProps({ left: markLeft(g.to, 2) })}
              title="Compacts down to ${budget.compactTo} tokens (${Math.round(budget.compactToFraction * 100)}%)"
            ></div>`
      }
      ${peakMarkOf(budget, g)}
    </div>
    ${agent ? agentMarks(agent) : ownMarks(budget, g)} ${recordedNoteOf(budget)}
    ${budget.peak ? html`<div class="gauge-peak-text" data-test="peak-text"><span class="key-peak" aria-hidden="true"></span> peaked at ${formatTokens(budget.peak.tokens)} before the compaction at ${localTime(budget.peak.time)}</div>` : nothing}
    <ul class="legend">
      ${segmentsOf(budget).map(([key, label]) => html`<li title=${SEGMENT_NOTES[key] ?? nothing}><span class="swatch segment-${key}" aria-hidden="true"></span><span class="legend-label">${label}</span><span class="legend-value" data-test="breakdown-${key}">${formatTokens(budget.breakdown[key] ?? 0)}</span></li>`)}${g.over ? html`<li><span class="swatch overflow" aria-hidden="true"></span><span class="legend-label">Over budget</span><span class="legend-value">${formatTokens(g.overTokens)}</span></li>` : nothing}
    </ul>
    ${g.over ? overBudgetWarning(budget, g, own) : nothing}
    ${budget.warnings.map((warning) => html`<p class="warning">${icon('warning')} ${warning}</p>`)}
  </section>`;
}

/** The sidebar's own gauge: its actions post through `ui`; `checkpoints` name the runs it may restore. */
interface OwnGauge {
  ui: Ui;
  checkpoints: readonly CheckpointView[];
}

/**
 * The over-budget warning: it asks for a compaction only when Compact can run, and otherwise offers
 * the way out (see overBudgetAdvice), a Restore button for the newest compaction in the sidebar.
 */
function overBudgetWarning(budget: BudgetView, g: GaugeGeometry, own: OwnGauge | undefined): TemplateResult {
  // A watched agent's gauge has no Compact of ours: its warning names only the excess.
  const advice = own
    ? overBudgetAdvice(g.overTokens, budget.compactBlocked, groupCheckpointRuns(own.checkpoints))
    : overBudgetAdvice(g.overTokens, undefined, []);
  return html`<p class="warning" data-test="over-budget">${icon('warning')} ${advice.text}</p>
    ${own && advice.restoreRunId ? html`<div class="actions">${button(own.ui, 'Restore the Latest Compaction', 'discard', { type: 'restoreCheckpoint', id: advice.restoreRunId }, { secondary: true, test: 'over-budget-restore' })}</div>` : nothing}`;
}

/** The legend of ContextKeeper's own marks: where it compacts, down to what, the reply reserve. */
function ownMarks(budget: BudgetView, g: GaugeGeometry): TemplateResult {
  return html`<div class="gauge-marks">
    <span class="key-at" aria-hidden="true"></span>
    <span
      data-test="gauge-trigger"
      title=${triggerLevel(budget.compactAt, budget.compactAtFraction, budget.inputBudget, budget.window)}
      >compact at
      ${formatTokens(budget.compactAt)}${budget.inputBudget < budget.window ? ` (${Math.round((budget.compactAt / budget.window) * 100)}% of the window)` : ''}</span
    >
    <span class="key-to" aria-hidden="true"></span> down to
    ${formatTokens(budget.compactTo)}${budget.autoCompact ? '' : ' (auto off)'} · ${formatTokens(budget.reserved)}
    reserved for reply${g.windowEnd ? html` <span class="key-window" aria-hidden="true"></span> window ends` : nothing}
  </div>`;
}

/** A watched agent's marks: where it compacts itself and the distance to it, then its last compaction. */
function agentMarks(agent: AgentGaugeView): TemplateResult {
  const c = agent.lastCompaction;
  return html`<div class="gauge-marks" data-test="agent-compacts-at">
      ${
        agent.compactsAt
          ? html`<span class="key-at" aria-hidden="true"></span>
              <span title=${agent.compactsAt.source}
                >${agent.agent} compacts at about ${formatTokens(agent.compactsAt.tokens)} ·
                <strong data-test="agent-to-go" data-tokens=${agent.compactsAt.toGo}
                  >${agent.compactsAt.toGo > 0 ? `${formatTokens(agent.compactsAt.toGo)} to go` : 'due now'}</strong
                ></span
              >`
          : html`Where ${agent.agent} compacts is not recorded.`
      }
    </div>
    <p class="gauge-recorded" data-test="agent-basis">${icon('info')} ${agent.basis}</p>
    ${
      c
        ? html`<p
            class="gauge-recorded"
            data-test="agent-last-compaction"
            data-before=${c.before ?? ''}
            data-after=${c.after ?? ''}
          >
            ${icon('fold')} ${plural(agent.compactions, 'compaction', 'compactions')}; the last went from
            ${c.before !== undefined ? formatTokens(c.before) : '?'} to
            ${c.after !== undefined ? formatTokens(c.after) : '…'}
            (${c.source === 'recorded' ? `the agent's own figures${c.trigger ? `, ${c.trigger}` : ''}` : 'counted from the file'})
          </p>`
        : nothing
    }`;
}

/** The provider's figure for an imported recording, under the gauge's numbers (see recordedPromptNote). */
function recordedNoteOf(budget: BudgetView): TemplateResult | typeof nothing {
  const note = recordedPromptNote(budget);
  return note
    ? html`<p class="gauge-recorded" data-test="gauge-recorded" data-tokens=${budget.recordedPromptTokens ?? 0}>
        ${icon('info')} ${note}
      </p>`
    : nothing;
}

const FIXES: Record<ErrorView['actions'][number], [string, string, WebviewMessage]> = {
  setApiKey: ['Set API Key', 'key', { type: 'setApiKey' }],
  openSettings: ['Open Settings', 'settings-gear', { type: 'openSettings' }],
  showLog: ['Show Log', 'output', { type: 'showLog' }],
  testConnection: ['Test Connection', 'plug', { type: 'testConnection' }],
};

function errorCard(ui: Ui, error: ErrorView): TemplateResult {
  return html`<div class="card error" role="alert" data-test="error">
    ${icon('error')} ${error.message}
    ${error.endpoint ? html`<div class="meta" data-test="error-endpoint">Endpoint: ${error.endpoint}</div>` : nothing}
    ${error.retryTask !== undefined ? html`<div class="meta" data-test="error-task">${failedTaskLine(error.retryTask)}</div>` : nothing}
    <div class="actions">
      ${error.retryTask !== undefined ? button(ui, 'Retry', 'debug-restart', { type: 'retryTask' }, { test: 'retry' }) : nothing}
      ${error.actions.map((a) => button(ui, FIXES[a][0], FIXES[a][1], FIXES[a][2], { secondary: true, test: `fix-${a}` }))}
    </div>
  </div>`;
}

/** The texts of the preview card's summary boxes around `target`, in order. */
function previewTexts(target: EventTarget | null): string[] {
  const boxes = [...((target as HTMLElement).closest('.preview')?.querySelectorAll('textarea') ?? [])];
  return boxes.map((b) => b.value);
}

/**
 * Rows for a summary box where CSS `field-sizing` is not supported: its lines, long ones counted as
 * wrapped at about 60 characters, from 8 up to 40 (the box scrolls beyond).
 */
export function summaryRows(text: string): number {
  const lines = text.split('\n').reduce((sum, line) => sum + Math.max(1, Math.ceil(line.length / 60)), 0);
  return Math.min(40, Math.max(8, lines));
}

/**
 * Why Apply is disabled for the summary texts `texts` (one per box, in order): the first that is
 * empty or whitespace only, named; '' when every summary has text.
 */
export function emptySummaryNote(texts: readonly string[]): string {
  const k = texts.findIndex((t) => t.trim() === '');
  if (k < 0) return '';
  const which = texts.length === 1 ? 'The summary' : `Summary ${k + 1} of ${texts.length}`;
  return `${which} is empty: an empty summary would lose every message it replaces. Write a summary, or Discard.`;
}

function previewCard(ui: Ui, preview: PreviewView): TemplateResult {
  const count = preview.summaries.length;
  // A summary emptied in its box would lose the messages it replaces: Apply is disabled, and says why,
  // until it holds text again (the extension refuses such an Apply too).
  const refuse = (target: EventTarget | null, texts: readonly string[]) => {
    const card = (target as HTMLElement).closest('.preview');
    const button = card?.querySelector<HTMLButtonElement>('[data-test="apply-preview"]');
    const reason = card?.querySelector<HTMLElement>('[data-test="preview-refusal"]');
    const text = emptySummaryNote(texts);
    if (button) button.disabled = text !== '';
    if (reason) {
      reason.textContent = text;
      reason.hidden = text === '';
    }
  };
  // Every edit is reported as it is typed, not after a pause: an Apply pressed elsewhere (the
  // editor's title bar, the palette) writes these texts, and the read-only review document mirrors them.
  const edit = (e: Event) => {
    const texts = previewTexts(e.currentTarget);
    refuse(e.currentTarget, texts);
    if (texts.length === count) ui.post({ type: 'editPreview', summaries: texts });
  };
  // The texts shown, edited or not: an earlier edit reported to the extension never outlives them.
  const apply = (e: Event) => {
    const texts = previewTexts(e.currentTarget);
    ui.post({ type: 'applyPreview', summaries: texts.length === count ? texts : undefined });
  };
  const refusal = emptySummaryNote(preview.summaries.map((s) => s.summary));
  return html`<section class="card preview" data-test="preview">
    <h2>${icon('eye')} Proposed ${count === 1 ? 'summary' : `compaction: ${count} summaries`}</h2>
    <p class="meta" data-test="preview-meta">
      Replaces ${plural(preview.messagesReplaced, 'message', 'messages')}: ${formatTokens(preview.tokensBefore)} →
      ${formatTokens(preview.tokensAfter)} tokens. Apply writes
      ${count === 1 ? 'this summary' : `these ${count} summaries, in this order`} as shown here, each after its first
      line; edit ${count === 1 ? 'it' : 'them'} if needed.
    </p>
    ${
      preview.steps.length
        ? html`<ul class="meta" data-test="preview-steps">
            ${preview.steps.map((s) => html`<li>${s}</li>`)}
          </ul>`
        : nothing
    }
    ${preview.summaries.map(
      (s, k) =>
        html`<label class="meta" data-test="preview-label">Summary ${k + 1} of ${count}: ${s.label}</label>
          <p class="meta summary-header" data-test="preview-header" title="Written before the summary; not editable">
            ${s.header}
          </p>
          <textarea
            class="summary-edit"
            data-test="preview-text"
            aria-label=${`Proposed summary ${k + 1} of ${count} (editable)`}
            rows=${summaryRows(s.summary)}
            .value=${s.summary}
            @input=${edit}
          ></textarea>`,
    )}
    <p class="meta refusal" role="alert" data-test="preview-refusal" ?hidden=${!refusal} .textContent=${refusal}></p>
    <div class="actions">
      <button data-test="apply-preview" ?disabled=${refusal !== ''} @click=${apply}>
        ${icon('check')}<span>Apply</span>
      </button>
      ${button(ui, 'Discard', 'close', { type: 'discardPreview' }, { secondary: true, test: 'discard-preview' })}
    </div>
  </section>`;
}

function approvalCard(ui: Ui, approval: ApprovalView): TemplateResult {
  return html`<div class="card approval" data-test="approval" data-request=${approval.requestId}>
    <div class="approval-title">${icon(approval.kind === 'edit' ? 'edit' : 'terminal')} ${approval.title}</div>
    <pre class="approval-detail">${approval.detail}</pre>
    <div class="actions">
      ${button(ui, 'Allow', 'check', { type: 'approve', requestId: approval.requestId, approved: true }, { test: 'approve' })}
      ${button(ui, 'Deny', 'close', { type: 'approve', requestId: approval.requestId, approved: false }, { secondary: true, test: 'deny' })}
    </div>
  </div>`;
}

/**
 * The pending approvals, drawn after the transcript beside the tool call that waits for them: the
 * transcript follows its newest line, so the question is where the reader already looks.
 */
export function approvals(ui: Ui, view: ViewState): TemplateResult {
  return html`${view.approvals.map((a) => approvalCard(ui, a))}`;
}

/** Error and preview cards; a read-only note for imported recordings. */
export function banners(ui: Ui, view: ViewState): TemplateResult {
  return html`<div class="banners">
    ${view.error ? errorCard(ui, view.error) : nothing}
    ${
      view.readOnly
        ? html`<div class="card info" data-test="read-only">
            ${icon('lock')} ${READ_ONLY_NOTICE}
            <div class="actions">
              ${button(ui, 'Continue in a new task', 'debug-continue', { type: 'continueInNewTask' }, { test: 'continue-in-new-task' })}
            </div>
          </div>`
        : nothing
    }
    ${view.preview ? previewCard(ui, view.preview) : nothing}
  </div>`;
}

/**
 * One step of a run: what it did with its exact token figures (the run's head rounds them, and two
 * runs can round alike), and the buttons to inspect it (document, diff, summary).
 */
function checkpointStep(ui: Ui, checkpoint: CheckpointView, single: boolean): TemplateResult {
  // The summarizer is named unless the strategy already says it (the extractive one).
  const summarizer =
    checkpoint.summarizerModel === checkpoint.strategy ? undefined : (checkpoint.summarizerModel ?? 'no model');
  const exact = `${formatTokensFull(checkpoint.tokensBefore)} → ${formatTokensFull(checkpoint.tokensAfter)} tokens`;
  const facts = [
    single ? exact : undefined,
    plural(checkpoint.messagesReplaced, 'message', 'messages'),
    summarizer,
    checkpoint.editedByHand ? EDITED_BY_HAND : undefined,
    checkpoint.withoutModel > 0 ? checkpoint.coverage : undefined,
  ]
    .filter(Boolean)
    .join(' · ');
  return html`<div
    class="checkpoint-step${checkpoint.restored ? ' restored' : ''}"
    data-test="checkpoint-step"
    data-id=${checkpoint.id}
    data-trigger=${checkpoint.trigger}
    data-before=${checkpoint.tokensBefore}
    data-after=${checkpoint.tokensAfter}
  >
    ${
      single
        ? nothing // the run's head already names the strategy and the tokens
        : html`<div class="checkpoint-head">
            <span class="strategy">${checkpoint.strategy}</span>
            <span class="step-tokens" data-test="step-tokens">${exact}</span>
          </div>`
    }
    <div class="checkpoint-facts">${facts}</div>
    <div class="actions">
      ${iconButton(ui, `Open checkpoint (${checkpoint.strategy})`, 'go-to-file', { type: 'openCheckpoint', id: checkpoint.id }, 'open-checkpoint', true)}
      ${iconButton(ui, 'Compare replaced messages with the summary', 'diff', { type: 'diffCheckpoint', id: checkpoint.id }, 'diff-checkpoint', true)}
      ${iconButton(ui, 'Copy summary', 'copy', { type: 'copySummary', id: checkpoint.id }, 'copy-summary', true)}
    </div>
  </div>`;
}

/**
 * One compaction run: its trigger, time and token change, one Restore (to before the run: restoring
 * its first checkpoint undoes the later ones built on it) and its steps, each inspectable.
 */
function checkpointRow(ui: Ui, run: CheckpointRunView): TemplateResult {
  const first = run.steps[0];
  const focus = run.steps.find((step) => step.focus)?.focus;
  const stepCount = run.steps.length > 1 ? `, ${run.steps.length} steps` : '';
  return html`<li
    class="checkpoint${run.restored ? ' restored' : ''}"
    data-test="checkpoint"
    data-id=${run.id}
    data-row=${`cp:${run.id}`}
    data-steps=${run.steps.length}
    tabindex="-1"
    aria-label="${run.trigger} compaction${stepCount}, ${run.tokensBefore} to ${run.tokensAfter} tokens${run.restored ? ', restored' : ''}${run.steps.some((step) => step.editedByHand) ? `, summary ${EDITED_BY_HAND}` : ''}"
    data-trigger=${run.trigger}
    data-before=${run.tokensBefore}
    data-after=${run.tokensAfter}
  >
    <div class="checkpoint-head">
      <span class="badge trigger-${run.trigger}">${run.trigger}</span>
      <span class="strategy">${run.steps.length > 1 ? `${run.steps.length} steps` : first.strategy}</span>
      <time datetime=${run.time} title=${formatDateTime(run.time)}>${localTime(run.time)}</time>
    </div>
    <div
      class="checkpoint-tokens"
      data-test="checkpoint-tokens"
      title="${formatTokensFull(run.tokensBefore)} → ${formatTokensFull(run.tokensAfter)} tokens"
    >
      ${formatTokens(run.tokensBefore)} → ${formatTokens(run.tokensAfter)} tokens
    </div>
    ${focus ? html`<div class="checkpoint-focus">${icon('target')} ${focus}</div>` : nothing}
    ${run.steps.some((step) => step.editedByHand) ? html`<div class="checkpoint-edited" data-test="checkpoint-edited">${icon('edit')} summary ${EDITED_BY_HAND}</div>` : nothing}
    ${run.restored ? html`<div class="checkpoint-restored">${icon('history')} restored</div>` : nothing}
    ${run.steps.map((step) => checkpointStep(ui, step, run.steps.length === 1))}
    <div class="actions">
      ${run.restored ? nothing : iconButton(ui, run.steps.length > 1 ? 'Restore: put back what this compaction replaced (all its steps)' : 'Restore: put the replaced messages back', 'discard', { type: 'restoreCheckpoint', id: run.id }, 'restore-checkpoint', true)}
      ${run.undoRestore ? iconButton(ui, 'Undo the restore: the compacted context comes back', 'redo', { type: 'undoRestore' }, 'undo-restore', true) : nothing}
    </div>
  </li>`;
}

/** The checkpoint history, newest first. */
export function history(ui: Ui, checkpoints: CheckpointView[]): TemplateResult {
  const runs = groupCheckpointRuns(checkpoints);
  return html`<section class="history" aria-labelledby="history-title">
    <h2 id="history-title">
      Checkpoints
      <span class="count" title=${checkpointCountTitle(checkpoints.length, runs.length)}>(${runs.length})</span>
    </h2>
    <ol
      class="checkpoints"
      aria-label="Checkpoints, newest first: Up and Down move, Enter or Right reaches the buttons, Left and Right move between them, Escape comes back"
    >
      ${runs.length ? runs.map((run) => checkpointRow(ui, run)) : html`<li class="empty">No checkpoints yet. Compaction writes one each time it rewrites the context.</li>`}
    </ol>
  </section>`;
}
