/**
 * Read-only documents for checkpoints under the `contextkeeper-checkpoint:` scheme:
 *
 * - `contextkeeper-checkpoint:/<id>/checkpoint.md` — the record (trigger, strategy, tokens, model,
 *   dropped messages) followed by the summary;
 * - `contextkeeper-checkpoint:/<id>/replaced.md` — the span the checkpoint replaced, one line a message;
 * - `contextkeeper-checkpoint:/<id>/summary.md` — what stands in its place, the summary whole.
 *
 * The last two feed a diff editor ("what did this summary keep?"), laid out by `compare-layout.ts` so
 * the diff stays cheap on a span of any length.
 */
import * as vscode from 'vscode';
import { DisposableStore } from '../../lifecycle/disposables';
import { notify } from '../notify';
import type { ContextItem } from '../../compaction/types';
import { describeCoverage } from '../../compaction/summary/coverage';
import { escapeHeadings, nestSummary } from './summary-markdown';
import type { CheckpointRecord } from '../../service/records';
import { formatTokens, formatTokensFull } from '../../format/tokens';
import { formatClock, formatDateTime, formatInteger } from '../../format/display';
import { scorecardDetails } from '../../compaction/retention/scorecard';
import { textWithPlaceholders } from '../../compaction/content-text';
import { userTextSpeaker } from '../../compaction/harness-text';
import { isRecordedHarnessText } from '../../compaction/tool-outcomes';
import {
  COMPARE_DIFF_MAX_LINES,
  COMPARE_MESSAGE_CHARS,
  compareLines,
  layOutCompare,
  type CompareDocuments,
} from './compare-layout';

/** The URI scheme of checkpoint documents. */
export const CHECKPOINT_SCHEME = 'contextkeeper-checkpoint';

/** Which view of a checkpoint a document shows. */
export type CheckpointPart = 'checkpoint' | 'replaced' | 'summary';

/**
 * The URI of one part of a checkpoint: `/<id>/<part>.md` (the ending sets the Markdown language mode),
 * with `session=<id>` in the query when `sessionId` names the session the checkpoint belongs to (so
 * the document shows it whatever session is shown later), and `title=<title>` when given, so a tab
 * whose checkpoint is gone can still say which one it showed. The tab shows the label the document
 * is opened with (see {@link checkpointTitle}), never the file name. Earlier versions put the title in
 * the file name (`/cp-3/checkpoint/14.02 auto 11.9k → 3.8k.md`); {@link parseCheckpointUri} reads both.
 */
export function checkpointUri(id: string, part: CheckpointPart, title?: string, sessionId?: string): vscode.Uri {
  const query = [
    ...(sessionId ? [`session=${encodeURIComponent(sessionId)}`] : []),
    ...(title ? [`title=${encodeURIComponent(title)}`] : []),
  ].join('&');
  return vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: `/${encodeURIComponent(id)}/${part}.md`, query });
}

/**
 * The tab title of a checkpoint document: "Checkpoint", local time, trigger and tokens, e.g.
 * "Checkpoint 14:02 · auto · 12k → 3.8k" (time and figures in the display locale). `run` holds the
 * checkpoints of the compaction run that wrote `checkpoint`, oldest first (see `runStepIds`): the
 * figures are the run's, as the sidebar's row shows them (tokens before its first step, after its last
 * step in force), and a step of a run of several is named ("· step 2 of 3"). Without `run`, or with
 * `checkpoint` alone in it, the checkpoint's own figures.
 */
export function checkpointTitle(checkpoint: CheckpointRecord, run: readonly CheckpointRecord[] = [checkpoint]): string {
  const steps = run.some((c) => c.id === checkpoint.id) ? run : [checkpoint];
  // After the run: what its last step in force left (every step restored: the last step's figure).
  const inForce = steps.filter((c) => !c.restored);
  const last = (inForce.length ? inForce : steps).at(-1) ?? checkpoint;
  const time = formatClock(steps[0].time);
  const figures = `${formatTokens(steps[0].tokensBefore)} → ${formatTokens(last.tokensAfter)}`;
  const at = steps.findIndex((c) => c.id === checkpoint.id);
  const step = steps.length > 1 ? ` · step ${at + 1} of ${steps.length}` : '';
  return `Checkpoint ${time} · ${checkpoint.trigger} · ${figures}${step}`;
}

/** The tab title of a checkpoint's compare: its {@link checkpointTitle} (or its id), then "replaced ↔ summary". */
export function compareTitle(id: string, checkpoint?: CheckpointRecord, run?: readonly CheckpointRecord[]): string {
  return `${checkpoint ? checkpointTitle(checkpoint, run) : `Checkpoint ${id}`}: replaced ↔ summary`;
}

/** Parses a checkpoint URI (`sessionId` undefined when the URI names none); undefined when it is not one. */
export function parseCheckpointUri(
  uri: vscode.Uri,
): { id: string; part: CheckpointPart; sessionId?: string } | undefined {
  const match = /^\/([^/]+)\/(checkpoint|replaced|summary)(?:\/[^/]+)?\.md$/.exec(uri.path);
  if (uri.scheme !== CHECKPOINT_SCHEME || !match) return undefined;
  const session = /(?:^|&)session=([^&]+)/.exec(uri.query)?.[1];
  return {
    id: decodeURIComponent(match[1]),
    part: match[2] as CheckpointPart,
    ...(session ? { sessionId: decodeURIComponent(session) } : {}),
  };
}

export { COMPARE_MESSAGE_CHARS } from './compare-layout';

/**
 * The notification when a compare of `lines` lines opens side by side: why there is no diff, and
 * where each message is read whole.
 */
export function largeCompareNotice(lines: number): string {
  return `ContextKeeper: this compare opens side by side, without a diff. At ${formatInteger(lines)} lines it is over the ${formatInteger(COMPARE_DIFF_MAX_LINES)} that VS Code's diff editor computes within its time limit; the replaced messages are on the left, the summary on the right, and the transcript in the ContextKeeper sidebar shows each replaced message whole.`;
}

/**
 * Renders active-context items for the replaced ↔ summary compare, one section per item: a `### role
 * · id` heading (for a user message a harness wrote, the harness's label in place of the role, see
 * `userTextSpeaker`), then each message on one line (white space collapsed, at most
 * {@link COMPARE_MESSAGE_CHARS} characters, the rest counted), each tool call on a line of its own. A
 * summary is the product's own Markdown: it is shown whole, its headings nested under the label. The
 * form is stable (the same items give the same text) and small, so the diff is cheap on any step.
 */
export function renderItems(items: readonly ContextItem[]): string {
  const out: string[] = [];
  for (const item of items) {
    const message = item.message;
    const text = textWithPlaceholders(message.content);
    // A user-role message a harness wrote is labelled as the harness's, as the sidebar labels it.
    const speaker =
      item.kind === 'raw' && message.role === 'user'
        ? userTextSpeaker(text, isRecordedHarnessText(message))
        : undefined;
    const label = item.attachedFile
      ? `${message.role} (file re-attached: ${item.attachedFile})`
      : item.kind === 'raw'
        ? (speaker ?? message.role)
        : `${message.role} (${item.kind})`;
    out.push(`### ${label} · ${item.covers.length > 1 ? `${item.covers.length} messages` : item.id}`, '');
    const summary = item.kind === 'summary' && !item.attachedFile;
    // The message's own Markdown headings would become the document's (its outline lists the "### role" lines).
    if (summary && text.trim()) out.push(nestSummary(text, 3), '');
    else if (text.trim()) out.push(escapeHeadings(oneLine(text)), '');
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) {
        if (call.type === 'function')
          out.push(escapeHeadings(oneLine(`→ \`${call.function.name}\` ${call.function.arguments}`)), '');
      }
    }
  }
  return out.join('\n');
}

/** `text` on one line: white space collapsed, cut at {@link COMPARE_MESSAGE_CHARS} with the rest counted. */
export function oneLine(text: string): string {
  // Collapsed piece by piece: a tool result of a megabyte is neither copied nor collapsed whole to
  // show its first 200 characters (that was most of the compare's build time).
  let end = Math.min(text.length, COMPARE_MESSAGE_CHARS * 2);
  let flat = collapse(text.slice(0, end));
  while (flat.length <= COMPARE_MESSAGE_CHARS && end < text.length) {
    end = Math.min(text.length, end * 4);
    flat = collapse(text.slice(0, end));
  }
  if (end >= text.length && flat.length <= COMPARE_MESSAGE_CHARS) return flat;
  // Never split a surrogate pair: the cut would leave half a character.
  let cut = COMPARE_MESSAGE_CHARS;
  const code = flat.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return `${flat.slice(0, cut)} … (${collapsedLength(text) - cut} more characters)`;
}

/** `text` with each run of white space made one space, trimmed. */
function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The length of {@link collapse}`(text)`, counted without building it (white space as `\s` matches it). */
function collapsedLength(text: string): number {
  let n = 0;
  let space = true;
  for (let i = 0; i < text.length; i++) {
    if (isSpace(text.charCodeAt(i))) {
      if (!space) n++;
      space = true;
    } else {
      n++;
      space = false;
    }
  }
  // A trailing run counted as a space is trimmed.
  return space && n > 0 ? n - 1 : n;
}

/** True for the characters `\s` matches in a JavaScript regular expression. */
function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 160) return false;
  return (
    c === 160 ||
    c === 5760 ||
    (c >= 8192 && c <= 8202) ||
    c === 8232 ||
    c === 8233 ||
    c === 8239 ||
    c === 8287 ||
    c === 12288 ||
    c === 65279
  );
}

/** A name as inline code (a backtick in it would end the span: shown as a quote). */
function codeSpan(name: string): string {
  return `\`${name.replace(/`/g, "'")}\``;
}

/** The Trigger row, in words. */
const TRIGGER_LABELS: Record<CheckpointRecord['trigger'], string> = {
  auto: 'automatic (the context reached the trigger)',
  manual: 'manual (Compact)',
  continue: 'continuing a recording in a new task',
  import: 'recorded by the original agent',
};

/** Renders a checkpoint record with its summary. */
export function renderCheckpoint(checkpoint: CheckpointRecord): string {
  const rows: Array<[string, string]> = [
    ['Time', formatDateTime(checkpoint.time)],
    ['Trigger', TRIGGER_LABELS[checkpoint.trigger]],
    ['Strategy', checkpoint.strategy],
    ['Tokens', `${formatTokensFull(checkpoint.tokensBefore)} → ${formatTokensFull(checkpoint.tokensAfter)}`],
    ['Messages replaced', String(checkpoint.replacedIds.length)],
    ['Summarizer', checkpoint.summarizerModel ?? 'none (no model call)'],
  ];
  if (checkpoint.coverage) rows.push(['Covers', describeCoverage(checkpoint.coverage)]);
  for (const part of checkpoint.coverage && checkpoint.coverage.parts.length > 1 ? checkpoint.coverage.parts : [])
    rows.push([
      `Messages ${part.first}-${part.last}`,
      part.writer === 'model'
        ? `read by ${checkpoint.summarizerModel ?? 'the model'} in ${part.calls} call${part.calls === 1 ? '' : 's'}`
        : `summarised without a model${part.reason === 'call-limit' ? ' because of the call limit (setting contextKeeper.maxSummaryCalls)' : part.reason === 'model-failed' ? ` because the model call failed${part.failure ? `: ${part.failure}` : ''}` : ''}`,
    ]);
  if (checkpoint.usage)
    rows.push([
      'Summarizer usage',
      `${checkpoint.usage.calls} calls, ${checkpoint.usage.promptTokens} in, ${checkpoint.usage.completionTokens} out`,
    ]);
  if (checkpoint.durationMs !== undefined) rows.push(['Duration', `${checkpoint.durationMs} ms`]);
  if (checkpoint.focus) rows.push(['Focus', checkpoint.focus]);
  if (checkpoint.editedByHand)
    rows.push([
      'Summary text',
      `edited by hand before applying (proposed by ${checkpoint.summarizerModel ?? 'the summarizer'})`,
    ]);
  // What the summary kept of the typed requests: the scorecard's figures, the same the list below,
  // the divider and the command line show; the writer's own count only on checkpoints saved without one.
  const card = checkpoint.retention;
  const req = checkpoint.requests;
  if (card && card.requests.total)
    rows.push([
      'Typed requests kept',
      `${card.requests.whole} whole, ${card.requests.shortened} shortened, ${card.requests.leftOut} left out (of ${card.requests.total})`,
    ]);
  else if (!card && req)
    rows.push([
      'Typed requests kept',
      `${req.whole} whole, ${req.shortened} shortened in the middle, ${req.omitted} left out`,
    ]);
  if (req?.missingFromModel)
    rows.push(['Requests the model left out', `${req.missingFromModel}, put back verbatim in the requests section`]);
  const files = checkpoint.attachedFiles ?? [];
  if (files.length)
    rows.push([
      'Files re-attached',
      `${files.length} (${files.reduce((sum, f) => sum + f.tokens, 0)} tokens, counted in the tokens after)`,
    ]);
  // Local time, as every other time the extension shows (the record keeps ISO 8601 UTC).
  if (checkpoint.restored)
    rows.push(['Restored', checkpoint.restoredAt ? formatDateTime(checkpoint.restoredAt) : 'yes']);
  // Current contents of the files touched last, read from the workspace and added after the summary.
  const attached = files.length
    ? ['', '## Files re-attached after the summary', '', ...files.map((f) => `- \`${f.path}\` (${f.tokens} tokens)`)]
    : [];
  // The scorecard: what the written text keeps of the span, by the quality benchmark's rules.
  const kept = card
    ? ['', '## What this compaction kept', '', ...scorecardDetails(card, codeSpan).map((l) => `- ${l}`)]
    : [];
  return [
    `# Checkpoint ${checkpoint.id}`,
    '',
    '| Field | Value |',
    '|---|---|',
    // A cell is one line: a line break in a value (a typed focus) would end the table and start text.
    ...rows.map(([key, value]) => `| ${key} | ${value.replace(/\|/g, '\\|').replace(/\s*\r?\n\s*/g, ' ')} |`),
    // No empty section: a checkpoint that only collapsed or dropped messages has no summary text.
    ...kept,
    ...(checkpoint.summary.trim() ? ['', '## Summary', '', nestSummary(checkpoint.summary)] : []),
    ...attached,
    '',
  ].join('\n');
}

/** What each part of a checkpoint shows, in words, for a tab whose checkpoint cannot be read. */
const PART_NAMES: Record<CheckpointPart, string> = {
  checkpoint: 'the record of checkpoint',
  replaced: 'the replaced messages (left side of the compare) of checkpoint',
  summary: 'what stands in place of the replaced messages (right side of the compare) of checkpoint',
};

/**
 * The text of a checkpoint tab whose checkpoint cannot be read (deleted with its session, or a URI
 * that names none): what the tab showed (the part, the checkpoint id and the title it was opened
 * with, the session) and where to find the checkpoints now, never an empty document.
 */
export function missingCheckpointText(uri: vscode.Uri): string {
  const parsed = parseCheckpointUri(uri);
  if (!parsed)
    return `# Not a checkpoint\n\n${uri.toString()} names no ContextKeeper checkpoint. The ContextKeeper sidebar lists the checkpoints of the shown session.\n`;
  const titled = /(?:^|&)title=([^&]+)/.exec(uri.query)?.[1];
  const title = titled
    ? decodeURIComponent(titled)
    : /\/(?:checkpoint|replaced|summary)\/([^/]+)\.md$/.exec(uri.path)?.[1];
  const what = `${PART_NAMES[parsed.part]} ${parsed.id}${title ? ` (“${title}”)` : ''}`;
  const where = parsed.sessionId
    ? ` of session ${parsed.sessionId}, which no longer holds it: the session or the checkpoint was deleted`
    : ': the shown session does not hold it';
  return `# Checkpoint ${parsed.id} was not found\n\nThis tab showed ${what}${where}. The ContextKeeper sidebar lists the checkpoints of the shown session; close this tab.\n`;
}

/**
 * Looks a checkpoint up by id in session `sessionId` (the shown session when undefined), whether that
 * session is shown or not.
 */
export type CheckpointLookup = (id: string, sessionId?: string) => CheckpointRecord | undefined;

/**
 * The checkpoints of the compaction run that wrote checkpoint `id` in session `sessionId` (the shown
 * session when undefined), oldest first, `id` among them; empty when the checkpoint is not found.
 */
export type CheckpointRunLookup = (id: string, sessionId?: string) => CheckpointRecord[];

/**
 * Serves checkpoint documents, each from the session it belongs to (named in its URI), both as a
 * content provider and as a read-only file system. The file system is what brings kept checkpoint and
 * compare tabs back after a window reload: the workbench persists editors of schemes a file system
 * serves, and drops those only a content provider serves.
 */
export class CheckpointDocumentProvider
  implements vscode.TextDocumentContentProvider, vscode.FileSystemProvider, vscode.Disposable
{
  private readonly store = new DisposableStore();
  private readonly _onDidChange = this.store.add(new vscode.EventEmitter<vscode.Uri>());
  readonly onDidChange = this._onDidChange.event;
  private readonly _onDidChangeFile = this.store.add(new vscode.EventEmitter<vscode.FileChangeEvent[]>());
  readonly onDidChangeFile = this._onDidChangeFile.event;
  /** Bumped on each refresh, so an open editor re-reads its file (milliseconds since the epoch). */
  private mtime = Date.now();
  private readonly open = new Set<string>();
  /** Compares already laid out, by checkpoint record (a record's items never change; see {@link compareOf}). */
  private readonly compares = new WeakMap<CheckpointRecord, CompareDocuments>();

  /**
   * `currentSession` names the shown session, written into the URIs `show` and `showDiff` open;
   * `runOf` gives the run a checkpoint belongs to, for the tab titles (each checkpoint a run of its
   * own when not given).
   */
  constructor(
    private readonly lookup: CheckpointLookup,
    private readonly currentSession: () => string | undefined = () => undefined,
    private readonly runOf: CheckpointRunLookup = (id, sessionId) => {
      const found = lookup(id, sessionId);
      return found ? [found] : [];
    },
  ) {
    // Forget closed documents, so refresh() renders only what is on screen.
    this.store.add(vscode.workspace.onDidCloseTextDocument((doc) => this.open.delete(doc.uri.toString())));
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    this.open.add(uri.toString());
    const parsed = parseCheckpointUri(uri);
    const checkpoint = parsed && this.lookup(parsed.id, parsed.sessionId);
    if (!parsed || !checkpoint) return missingCheckpointText(uri);
    switch (parsed.part) {
      case 'checkpoint':
        return renderCheckpoint(checkpoint);
      case 'replaced':
        return this.compareOf(checkpoint).replaced;
      case 'summary':
        return this.compareOf(checkpoint).summary;
    }
  }

  /**
   * Both documents of a compare, laid out once per checkpoint record: the diff editor asks for its two
   * sides one after the other, and each needs both renders (a 673-message span takes about 0.2 s).
   */
  private compareOf(checkpoint: CheckpointRecord): CompareDocuments {
    let documents = this.compares.get(checkpoint);
    if (!documents) {
      documents = layOutCompare(renderItems(checkpoint.replaced), renderItems(checkpoint.inserted));
      this.compares.set(checkpoint, documents);
    }
    return documents;
  }

  /** Re-renders open documents (after a restore or a session change). */
  refresh(): void {
    this.mtime = Math.max(this.mtime + 1, Date.now());
    for (const uri of this.open) this._onDidChange.fire(vscode.Uri.parse(uri));
    const changed = [...this.open].map((uri) => ({ type: vscode.FileChangeType.Changed, uri: vscode.Uri.parse(uri) }));
    if (changed.length > 0) this._onDidChangeFile.fire(changed);
  }

  /** File system: a checkpoint URI is a file (size in bytes of its UTF-8 text); any other path a folder. */
  stat(uri: vscode.Uri): vscode.FileStat {
    if (!parseCheckpointUri(uri)) return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
    const size = Buffer.byteLength(this.provideTextDocumentContent(uri), 'utf8');
    return {
      type: vscode.FileType.File,
      ctime: 0,
      mtime: this.mtime,
      size,
      permissions: vscode.FilePermission.Readonly,
    };
  }

  /** File system: the document's text as UTF-8 bytes. */
  readFile(uri: vscode.Uri): Uint8Array {
    if (!parseCheckpointUri(uri)) throw vscode.FileSystemError.FileNotFound(uri);
    return Buffer.from(this.provideTextDocumentContent(uri), 'utf8');
  }

  /** File system: documents change only through {@link refresh}, which reports every open one. */
  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  /** File system: folders list nothing (documents are reached by their URIs only). */
  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  /** File system: read-only; throws `NoPermissions`. */
  createDirectory(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  /** File system: read-only; throws `NoPermissions`. */
  writeFile(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  /** File system: read-only; throws `NoPermissions`. */
  delete(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  /** File system: read-only; throws `NoPermissions`. */
  rename(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  /**
   * Opens the checkpoint record, titled by {@link checkpointTitle}. The title is the editor's label
   * (kept with the tab across a window reload), not the file name, so it carries no `.md`.
   */
  async show(id: string): Promise<void> {
    const session = this.currentSession();
    const record = this.lookup(id, session);
    const title = record ? checkpointTitle(record, this.runOf(id, session)) : `Checkpoint ${id}`;
    await vscode.commands.executeCommand(
      'vscode.open',
      checkpointUri(id, 'checkpoint', record && title, session),
      { preview: true },
      title,
    );
  }

  /**
   * Opens a diff between the replaced span and what stands in its place, at the top of both. A compare
   * over {@link COMPARE_DIFF_MAX_LINES} lines opens as two editors side by side instead, without a diff
   * (VS Code would stop computing it after 5 seconds and show nothing useful), and a notification says so.
   */
  async showDiff(id: string): Promise<void> {
    const session = this.currentSession();
    const record = this.lookup(id, session);
    const lines = record ? compareLines(this.compareOf(record)) : 0;
    if (lines > COMPARE_DIFF_MAX_LINES) {
      const replaced = await vscode.workspace.openTextDocument(checkpointUri(id, 'replaced', undefined, session));
      await vscode.window.showTextDocument(replaced, { viewColumn: vscode.ViewColumn.Active, preview: false });
      const summary = await vscode.workspace.openTextDocument(checkpointUri(id, 'summary', undefined, session));
      await vscode.window.showTextDocument(summary, { viewColumn: vscode.ViewColumn.Beside, preview: false });
      void notify('info', largeCompareNotice(lines));
      return;
    }
    await vscode.commands.executeCommand(
      'vscode.diff',
      checkpointUri(id, 'replaced', undefined, session),
      checkpointUri(id, 'summary', undefined, session),
      compareTitle(id, record, record && this.runOf(id, session)),
      // A selection keeps the editor at line 1 (shared by both sides, see compare-layout.ts), every
      // time it opens; without one it scrolls to the first change.
      { preview: true, selection: new vscode.Range(0, 0, 0, 0) },
    );
  }

  dispose(): void {
    this.store.dispose();
    this.open.clear();
  }
}
