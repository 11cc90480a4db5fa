/**
 * Transcript templates: keyed lines (lit-html `repeat`), so a delta re-renders only the lines that
 * changed and leaves focus, scroll position and opened tool results alone. Each line names its
 * speaker for screen readers; lines a compaction replaced are dimmed and say so.
 */
import { html, nothing } from 'lit-html';
import type { TemplateResult } from 'lit-html';
import { guard } from 'lit-html/directives/guard.js';
import { repeat } from 'lit-html/directives/repeat.js';
import type {
  CompactionDetailView,
  CompactionView,
  TranscriptItemView,
  ViewState,
  WebviewMessage,
} from './shared/protocol.js';
import type { Store } from './shared/view-store.js';
import { EDITED_BY_HAND, heldLabel, pinLabel, pinOffered } from './shared/item-labels.js';
import { localTime } from './format.js';
import { foldTitle, lineLook } from './shared/line-look.js';
import { formatTokens } from '../format/tokens.js';
import { formatInteger } from '../format/display.js';
import { compactionHeadline } from './shared/compaction-headline.js';

/** What the templates need from the page: posting, and the webview-local open/closed state. */
export interface Ui {
  post(message: WebviewMessage): void;
  store: Store;
  /** Opened tool results and compaction dividers, by id. */
  open: Set<string>;
  toggle(id: string, open: boolean): void;
  rerender(): void;
}

const SPEAKER: Record<TranscriptItemView['kind'], string> = {
  user: 'You',
  assistant: 'Agent',
  'tool-call': 'Tool call',
  'tool-result': 'Tool result',
};

function moreButton(ui: Ui, item: TranscriptItemView): TemplateResult | typeof nothing {
  if (item.fullLength === undefined || ui.store.fullTexts.has(item.id)) return nothing;
  return html`<button
    class="link"
    tabindex="-1"
    data-test="show-all"
    @click=${() => ui.post({ type: 'expandItem', id: item.id })}
  >
    Show all ${formatInteger(item.fullLength)} characters
  </button>`;
}

function pinButton(ui: Ui, item: TranscriptItemView, readOnly: boolean): TemplateResult | typeof nothing {
  if (!pinOffered(item, readOnly)) return nothing;
  const label = pinLabel(item.kind, item.pinned === true);
  const hint = item.pinned ? 'Unpin: may be compacted again' : 'Pin: never summarize this message';
  return html`<button
    class="icon-button pin"
    tabindex="-1"
    title=${hint}
    aria-label=${label}
    aria-pressed=${item.pinned ? 'true' : 'false'}
    data-test="pin"
    @click=${() => ui.post({ type: 'togglePin', entryId: item.entryId })}
  >
    <span class="codicon codicon-${item.pinned ? 'pinned' : 'pin'}" aria-hidden="true"></span>
  </button>`;
}

/** The state of a line a compaction replaced, where a live line has its pin button. */
function heldBadge(item: TranscriptItemView): TemplateResult {
  const held = heldLabel(item.compactedAs);
  return html`<span class="badge held-badge" title=${held.hint} data-test="held-badge">${held.text}</span>`;
}

function body(ui: Ui, item: TranscriptItemView): TemplateResult {
  const full = ui.store.fullTexts.get(item.id);
  switch (item.kind) {
    case 'user':
      if (lineLook(item).folded) {
        const opened = ui.open.has(item.id);
        return html`<details
          class="harness-text"
          data-test="harness-text"
          .open=${opened}
          @toggle=${(e: Event) => ui.toggle(item.id, (e.currentTarget as HTMLDetailsElement).open)}
        >
          <summary tabindex="-1">${foldTitle(item.text)}</summary>
          ${
            opened
              ? html`<div class="text">${full ?? item.text}</div>
                  ${moreButton(ui, item)}`
              : nothing
          }
        </details>`;
      }
      return html`<div class="text">${full ?? item.text}</div>
        ${moreButton(ui, item)}`;
    case 'assistant':
      return html`<div class="text">${full ?? item.text}</div>
        ${moreButton(ui, item)}`;
    case 'tool-call':
      return html`<code>${item.name}</code><span class="args">${full ?? item.argumentsPreview}</span>`;
    case 'tool-result': {
      const opened = ui.open.has(item.id);
      return html`<details
        class="tool-result"
        data-test="tool-result"
        .open=${opened}
        @toggle=${(e: Event) => ui.toggle(item.id, (e.currentTarget as HTMLDetailsElement).open)}
      >
        <summary tabindex="-1">
          <span class="codicon codicon-${item.ok ? 'pass' : 'error'}" aria-hidden="true"></span> ${item.name} ·
          ${formatInteger(item.size)} chars
        </summary>
        ${
          opened
            ? html`<pre>${full ?? item.preview}</pre>
                ${moreButton(ui, item)}`
            : nothing
        }
      </details>`;
    }
  }
}

function line(ui: Ui, item: TranscriptItemView, readOnly: boolean): TemplateResult {
  const interrupted = item.kind === 'assistant' && item.interrupted === true;
  const look = lineLook(item);
  return html`<li
    class=${['turn', ...look.classes].join(' ')}
    data-id=${item.id}
    data-row=${item.id}
    tabindex="-1"
    data-test="item"
  >
    <span class="codicon codicon-${look.icon}" aria-hidden="true"></span>
    <span class="sr-only"
      >${item.kind === 'user' && item.speaker ? item.speaker : SPEAKER[item.kind]}${interrupted ? ' (interrupted)' : ''}${item.compactedBy ? ` (${heldLabel(item.compactedAs).text} by a compaction)` : ''}${item.pinned ? ' (pinned)' : ''}:</span
    >
    <div class="line-body">${body(ui, item)}</div>
    ${pinButton(ui, item, readOnly)}
    ${
      item.pinned || item.time || item.compactedBy || interrupted
        ? html`<div class="line-meta">
            ${interrupted ? html`<span class="badge interrupted-badge" title="Cancelled while the agent replied: the reply stops where it was cut off" data-test="interrupted-badge">interrupted</span>` : nothing}
            ${item.pinned ? html`<span class="badge pin-badge" data-test="pinned-badge">pinned</span>` : nothing}
            ${item.compactedBy && item.kind !== 'tool-call' ? heldBadge(item) : nothing}
            ${item.time ? html`<time class="line-time" datetime=${item.time}>${localTime(item.time)}</time>` : nothing}
          </div>`
        : nothing
    }
  </li>`;
}

function divider(ui: Ui, c: CompactionView): TemplateResult {
  const opened = ui.open.has(`c:${c.id}`);
  const detail = ui.store.details.get(c.id);
  return html`<li
    class="divider divider-${c.trigger}${c.restored ? ' restored' : ''}"
    data-test="compaction-divider"
    data-id=${c.id}
    data-row=${`c:${c.id}`}
    tabindex="-1"
    data-trigger=${c.trigger}
    data-before=${c.tokensBefore}
    data-after=${c.tokensAfter}
  >
    <details
      .open=${opened}
      @toggle=${(e: Event) => {
        const now = (e.currentTarget as HTMLDetailsElement).open;
        ui.toggle(`c:${c.id}`, now);
        if (now && !ui.store.details.has(c.id)) ui.post({ type: 'compactionDetail', id: c.id });
      }}
    >
      <summary tabindex="-1">
        <span class="codicon codicon-fold" aria-hidden="true"></span>
        <span class="headline" data-test="divider-text">${compactionHeadline(c)}</span>
        <time datetime=${c.time}>${localTime(c.time)}</time
        >${c.restored ? html` <span class="badge">restored</span>` : nothing}${
          c.editedByHand
            ? html` <span
                class="badge"
                data-test="divider-edited"
                title="The summary was edited by hand in the preview before it was applied"
                >${EDITED_BY_HAND}</span
              >`
            : nothing
        }
        ${
          c.retention
            ? html`<span class="retention-line" data-test="divider-retention" title=${c.retention.details.join('\n')}
                >${c.retention.line}</span
              >`
            : nothing
        }
      </summary>
      ${
        opened
          ? detail
            ? html`<div class="divider-body">
                ${c.focus ? html`<p class="meta">Focus: ${c.focus}</p>` : nothing}
                ${
                  c.retention
                    ? html`<h3>What this compaction kept</h3>
                        <ul class="retention-details" data-test="divider-retention-details">
                          ${c.retention.details.map((l) => html`<li>${l}</li>`)}
                        </ul>`
                    : nothing
                }
                <h3>Summary</h3>
                <pre class="summary-text" data-test="divider-summary">${detail.summary}</pre>
                ${
                  c.attachedFiles?.length
                    ? html`<h3>Files re-attached after the summary (${c.attachedFiles.length})</h3>
                        <ul class="replaced" data-test="divider-attached">
                          ${c.attachedFiles.map((f) => html`<li><span class="codicon codicon-file" aria-hidden="true"></span> <span class="path">${f.path}</span> <span class="meta">${f.tokens} tokens, current contents</span></li>`)}
                        </ul>`
                    : nothing
                }
                <h3>Replaced (${c.messagesReplaced})</h3>
                <ul class="replaced" data-test="divider-replaced">
                  ${detail.replaced.map((r) => html`<li><span class="role">${r.role}</span>${r.tool ? html` <code>${r.tool}</code>` : nothing}${r.path ? html` <span class="path">${r.path}</span>` : nothing} <span class="meta">${r.preview}</span></li>`)}
                  ${detail.more > 0 ? html`<li class="meta">… and ${detail.more} more</li>` : nothing}
                </ul>
                ${dividerActions(ui, c, detail.opens)}
              </div>`
            : html`<p class="meta">Loading…</p>`
          : nothing
      }
    </details>
  </li>`;
}

/** A divider's buttons: one Open per checkpoint of its run (labels from the host), then Restore. */
function dividerActions(ui: Ui, c: CompactionView, opens: CompactionDetailView['opens']): TemplateResult {
  return html`<div class="actions">
    ${opens.map(
      (open) =>
        html`<button
          class="secondary"
          tabindex="-1"
          data-test="divider-open"
          @click=${() => ui.post({ type: 'openCheckpoint', id: open.id })}
        >
          <span class="codicon codicon-go-to-file" aria-hidden="true"></span> ${open.label}
        </button>`,
    )}
    ${c.restored || c.trigger === 'import' ? nothing : html`<button class="secondary" tabindex="-1" data-test="divider-restore" @click=${() => ui.post({ type: 'restoreCheckpoint', id: c.id })}><span class="codicon codicon-discard" aria-hidden="true"></span> Restore</button>`}
  </div>`;
}
/**
 * One row, rebuilt only when what it shows changed (lit-html `guard` compares the inputs by
 * identity): while a reply streams, a delta re-renders the streaming line and skips the rest.
 */
function row(
  ui: Ui,
  r: { key: string; item?: TranscriptItemView; compaction?: CompactionView },
  readOnly: boolean,
): unknown {
  if (r.compaction) {
    const c = r.compaction;
    return guard([c, ui.open.has(r.key), ui.store.details.get(c.id)], () => divider(ui, c));
  }
  const item = r.item!;
  return guard([item, ui.open.has(item.id), ui.store.fullTexts.get(item.id), readOnly], () => line(ui, item, readOnly));
}

/** The transcript list: the window of lines with the dividers at their places. */
export function transcript(ui: Ui, view: ViewState): TemplateResult {
  const after = new Map<string, CompactionView[]>();
  const leading: CompactionView[] = [];
  const shown = new Set(view.transcript.map((i) => i.id));
  for (const c of view.compactions) {
    if (c.afterId && shown.has(c.afterId)) after.set(c.afterId, [...(after.get(c.afterId) ?? []), c]);
    else if (!c.afterId || view.earlier === 0) leading.push(c);
  }
  type Row = { key: string; item?: TranscriptItemView; compaction?: CompactionView };
  const rows: Row[] = leading.map((c) => ({ key: `c:${c.id}`, compaction: c }));
  for (const item of view.transcript) {
    rows.push({ key: item.id, item });
    for (const c of after.get(item.id) ?? []) rows.push({ key: `c:${c.id}`, compaction: c });
  }
  return html` ${view.earlier > 0 ? html`<button class="link earlier" data-test="load-earlier" @click=${() => ui.post({ type: 'loadEarlier' })}>Show earlier messages (${formatInteger(view.earlier)} not shown)</button>` : nothing}
    <p id="transcript-keys" class="sr-only">
      Up and Down arrows move between messages, Home and End to the first and last, Enter to a message's buttons, Escape
      back.
    </p>
    <ol class="transcript" aria-label="Agent transcript" aria-describedby="transcript-keys">
      ${rows.length === 0 ? html`<li class="empty">No messages yet.</li>` : nothing}
      ${repeat(
        rows,
        (r) => r.key,
        (r) => row(ui, r, view.readOnly),
      )}
    </ol>`;
}

/**
 * The text a screen reader hears when a compaction happens, with the context's tokens now (the
 * gauge's figure, which may differ from the compaction's own result once messages follow it) when
 * known.
 */
export function compactionAnnouncement(c: CompactionView, usedTokens: number | undefined): string {
  const what = `${compactionHeadline(c)}.`;
  return usedTokens === undefined ? what : `${what} ${formatTokens(usedTokens)} tokens now.`;
}

/**
 * The status line's sentence for a checkpoint restored (`undone` false: the replaced messages are
 * back) or a restore undone (the summary back), with the context's tokens now when known.
 */
export function restoreAnnouncement(undone: boolean, usedTokens: number | undefined): string {
  const what = undone
    ? 'Restore undone: the summary is back in the context.'
    : 'Checkpoint restored: the replaced messages are back in the context.';
  return usedTokens === undefined ? what : `${what} ${formatTokens(usedTokens)} tokens now.`;
}
