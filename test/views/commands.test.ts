/**
 * The palette commands over the running extension (typed `vscode` fake, real context service, the
 * demo recording imported): Compact Conversation asks for a focus and Escape compacts nothing; a
 * typed focus reaches the checkpoint; Restore Checkpoint asks a modal confirmation that names what
 * comes back, and only **Restore** restores; Copy Summary puts the summary on the clipboard. A
 * second Compact while one runs or while a summary preview waits starts nothing and says why.
 */
import '../support/vscode-fake/register';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { activate, type ContextKeeperApi } from '../../src/extension';
import { commands, host, resetVscodeFake, Uri, window } from '../support/vscode-fake';
import { fakeExtensionContext } from '../support/vscode-fake/context';
import type { FakeLogChannel } from '../support/vscode-fake/window-parts';
import { until } from '../support/until';
import { formatTokens } from '../../src/format/tokens';
import type { CompactOutcome } from '../../src/service/compaction/outcome';

let storage: string;
let context: vscode.ExtensionContext;
let api: ContextKeeperApi;

before(async () => {
  resetVscodeFake();
  host.setSetting('contextKeeper.contextWindow', 100_000);
  storage = mkdtempSync(path.join(tmpdir(), 'ck-commands-'));
  context = fakeExtensionContext(storage);
  api = activate(context);
  await commands.executeCommand(
    'contextKeeper.importTranscript',
    Uri.file(path.resolve(__dirname, '../../../samples/demo-session.json')),
  );
});
after(() => {
  for (const subscription of context.subscriptions) subscription.dispose();
  rmSync(storage, { recursive: true, force: true });
});

const lastMessage = () => host.messages.at(-1);

test('Compact Conversation: Escape in the focus prompt compacts nothing', async () => {
  let asked: vscode.InputBoxOptions | undefined;
  host.user.input = (options) => ((asked = options), undefined);
  const before = api.getViewState().budget.used;
  assert.equal(await commands.executeCommand('contextKeeper.compactConversation'), undefined);
  assert.equal(asked?.title, 'Compact Conversation');
  assert.equal(api.getViewState().checkpoints.length, 0);
  assert.equal(api.getViewState().budget.used, before);
});

test('Compact Conversation with a typed focus compacts, reports the tokens and records the focus', async () => {
  host.user.input = () => '  the parser fix  ';
  // The gauge shows a labelled estimate until the tokenizer's table has loaded; compare exact counts.
  await until(() => api.getViewState().budget.counting !== true, 'the exact count');
  const before = api.getViewState().budget.used;
  const outcome = await commands.executeCommand<CompactOutcome>('contextKeeper.compactConversation');
  assert.equal(outcome.status.kind, 'applied');
  assert.equal(outcome.tokensBefore, before);
  assert.ok(outcome.tokensAfter < before);
  assert.equal(lastMessage()?.severity, 'information');
  // Each figure once, in the gauge's formatting.
  assert.match(
    lastMessage()?.message ?? '',
    new RegExp(`^ContextKeeper: compacted ${formatTokens(before)} → ${formatTokens(outcome.tokensAfter)} tokens`),
  );
  const checkpoints = api.getViewState().checkpoints;
  assert.ok(checkpoints.length >= 1);
  assert.ok(checkpoints.every((c) => c.trigger === 'manual'));
  assert.ok(
    checkpoints.some((c) => c.focus === 'the parser fix'),
    'the trimmed focus is on the checkpoint',
  );
  assert.ok(host.progress.length === 0, 'the progress notification closed');
  // Each checkpoint is logged at info level with its exact figures and its cause.
  const log = host
    .live('output-channel')
    .map((r) => r.target as FakeLogChannel)
    .find((channel) => channel.lines !== undefined);
  const logged = log?.lines.filter((line) => line.startsWith('[info] Compaction (')) ?? [];
  assert.equal(logged.length, checkpoints.length, logged.join('\n'));
  assert.ok(
    logged.some((line) => line.includes(`${before.toLocaleString('en-US')} → `)),
    `the figures before: ${logged.join('\n')}`,
  );
  assert.ok(logged.every((line) => line.includes('Compact Conversation, with a focus')));
});

test('Restore Checkpoint asks a modal confirmation; dismissing it restores nothing, Restore restores', async () => {
  const [checkpoint] = api.getViewState().checkpoints;
  const compacted = api.getViewState().budget.used;
  host.user.message = () => undefined;
  await commands.executeCommand('contextKeeper.restoreCheckpoint', checkpoint.id);
  const asked = lastMessage()!;
  assert.equal(asked.severity, 'warning');
  assert.equal(asked.modal, true);
  assert.deepEqual(asked.items, ['Restore']);
  assert.match(
    asked.message,
    /^Restore the context to before the manual compaction of .* \([\d.]+[kM]? → [\d.]+[kM]? tokens\)\?$/,
  );
  assert.equal(api.getViewState().budget.used, compacted, 'nothing restored without an answer');

  host.user.message = (shown) => (shown.modal ? 'Restore' : undefined);
  await commands.executeCommand('contextKeeper.restoreCheckpoint', checkpoint.id);
  assert.match(
    lastMessage()?.message ?? '',
    /^ContextKeeper: restored 1 compaction( \(\d+ steps\))?; context [\d.]+[kM]? → [\d.]+[kM]? tokens\.$/,
  );
  assert.ok(api.getViewState().budget.used > compacted, 'the replaced messages came back');
  // Undo Last Restore is offered in the palette (its `when` key) and on the restored checkpoint's row.
  await until(() => host.contextKeys.get('contextKeeper.canUndoRestore') === true, 'the canUndoRestore context key');
  const run = checkpoint.run ?? checkpoint.id;
  assert.ok(api.getViewState().checkpoints.some((c) => (c.run ?? c.id) === run && c.undoRestore === true));
});

test('Copy Summary puts the chosen checkpoint summary on the clipboard', async () => {
  host.user.input = () => '';
  await commands.executeCommand('contextKeeper.compactConversation');
  // A new compaction rewrote the context: the restore can no longer be undone, so the command hides.
  await until(() => host.contextKeys.get('contextKeeper.canUndoRestore') === false, 'canUndoRestore cleared');
  assert.ok(api.getViewState().checkpoints.every((c) => c.undoRestore !== true));
  const newest = api
    .getViewState()
    .checkpoints.filter((c) => !c.restored)
    .at(-1)!;
  host.clipboard = '';
  await commands.executeCommand('contextKeeper.copySummary', newest.id);
  assert.ok(host.clipboard.length > 50, 'the summary text');
  assert.equal(lastMessage()?.message, 'ContextKeeper: summary copied.');
});

test('Compact Conversation clicked again while one runs asks no second summary: it says one is running', async () => {
  // A fresh copy of the recording: the earlier tests compacted the first one.
  await commands.executeCommand(
    'contextKeeper.importTranscript',
    Uri.file(path.resolve(__dirname, '../../../samples/demo-session.json')),
  );
  await until(() => api.getViewState().budget.counting !== true, 'the exact count');
  const before = api.getViewState().checkpoints.length;
  let asked = 0;
  host.user.input = () => (asked++, '');
  const first = commands.executeCommand<CompactOutcome>('contextKeeper.compactConversation');
  const second = await commands.executeCommand('contextKeeper.compactConversation');
  assert.equal(second, undefined);
  assert.match(lastMessage()?.message ?? '', /^ContextKeeper: a compaction is already running\.$/);
  assert.equal((await first).status.kind, 'applied');
  assert.equal(asked, 1, 'one focus prompt');
  const made = api.getViewState().checkpoints.length - before;
  // One compaction run: its checkpoints all carry one run's time.
  assert.ok(made >= 1);
  assert.equal(
    new Set(
      api
        .getViewState()
        .checkpoints.slice(0, made)
        .map((c) => c.time),
    ).size,
    1,
    'one run of checkpoints',
  );
});

test('Compact Conversation while a summary preview waits asks for no second one: it says to apply or discard it first', async () => {
  await commands.executeCommand(
    'contextKeeper.importTranscript',
    Uri.file(path.resolve(__dirname, '../../../samples/demo-session.json')),
  );
  await until(() => api.getViewState().budget.counting !== true, 'the exact count');
  host.setSetting('contextKeeper.previewSummary', true);
  try {
    host.user.input = () => '';
    const previewed = await commands.executeCommand<CompactOutcome>('contextKeeper.compactConversation');
    assert.ok(previewed.preview, 'a preview waits');
    const checkpoints = api.getViewState().checkpoints.length;
    assert.equal(await commands.executeCommand('contextKeeper.compactConversation'), undefined);
    assert.ok(
      host.messages.some((m) =>
        /^ContextKeeper: a summary preview is waiting; apply or discard it first\.$/.test(m.message),
      ),
      host.messages.map((m) => m.message).join('\n'),
    );
    assert.equal(api.getViewState().checkpoints.length, checkpoints, 'nothing compacted');
  } finally {
    host.setSetting('contextKeeper.previewSummary', false);
  }
});

test('Export Transcript proposes the home folder, not the workspace, and offers Open and Reveal after writing', async () => {
  const workspace = mkdtempSync(path.join(tmpdir(), 'ck-export-ws-'));
  const out = mkdtempSync(path.join(tmpdir(), 'ck-export-out-'));
  host.workspaceFolders = [{ uri: Uri.file(workspace), name: 'ws', index: 0 }];
  try {
    for (const [choice, check] of [
      ['Open', () => window.visibleTextEditors[0]?.document.uri.fsPath === path.join(out, 'Open.json')],
      [
        'Reveal',
        () =>
          host.executed.some(
            (e) => e.id === 'revealFileInOS' && (e.args[0] as vscode.Uri).fsPath === path.join(out, 'Reveal.json'),
          ),
      ],
    ] as const) {
      let proposed: vscode.Uri | undefined;
      host.user.saveDialog = (options) => (
        (proposed = options?.defaultUri),
        Uri.file(path.join(out, `${choice}.json`))
      );
      host.user.message = (shown) => (shown.message.includes('exported') ? choice : undefined);
      await commands.executeCommand('contextKeeper.exportTranscript');
      assert.ok(proposed, 'a location is proposed');
      assert.equal(path.dirname(proposed.fsPath), homedir(), 'in the home folder');
      assert.ok(!proposed.fsPath.startsWith(workspace), 'outside the workspace');
      const written = JSON.parse(readFileSync(path.join(out, `${choice}.json`), 'utf8')) as { format: string };
      assert.equal(written.format, 'context-keeper/transcript');
      assert.deepEqual(lastMessage()?.items, ['Open', 'Reveal']);
      assert.ok(lastMessage()?.message.includes(path.join(out, `${choice}.json`)), 'the notification names the file');
      await until(check, `${choice} after the export`);
    }
  } finally {
    host.workspaceFolders = undefined;
    host.user.saveDialog = () => undefined;
    host.user.message = () => undefined;
    rmSync(workspace, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  }
});
