/**
 * The session list over real context services stored in a temp folder: "Continue in a new task"
 * forks an imported, compacted recording into a working session that starts from the compacted
 * context with its checkpoints; imports and forks leave no unlisted session folder; renaming the
 * shown session shows the new name at once; an open checkpoint document keeps its checkpoint whatever
 * session is shown.
 */
import '../support/vscode-fake/register';
import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Entry } from '../../src/compaction/types';
import { stall, text } from '../../src/demo/modelserver/replies';
import { Commands } from '../../src/views/commands/command-ids';
import { sessionCommands } from '../../src/views/commands/session-commands';
import { until } from '../support/until';
import { KeyStore } from '../../src/secrets/key-store';
import { Settings } from '../../src/settings/settings';
import {
  CHECKPOINT_SCHEME,
  CheckpointDocumentProvider,
  parseCheckpointUri,
} from '../../src/views/documents/checkpoint-documents';
import { checkpointLookup } from '../../src/views/documents/checkpoint-lookup';
import { SessionController } from '../../src/views/session-controller';
import { taskTitle } from '../../src/views/session-list';
import { filler, serviceFixture, type ServiceFixture } from '../service/fixtures';
import { host, resetVscodeFake, window, workspace, type Uri } from '../support/vscode-fake';
import { FakeMemento, secretStorage } from '../support/vscode-fake/context';
import { FakeLogChannel } from '../support/vscode-fake/window-parts';

let fx: ServiceFixture;
let controller: SessionController;
let settings: Settings;
let keys: KeyStore;

beforeEach(async () => {
  resetVscodeFake();
  fx = await serviceFixture(() => text('ok'), { window: 200_000 });
  settings = new Settings();
  keys = new KeyStore(secretStorage);
  let first = true;
  // The first open is the fixture's service; later ones open (or create) sessions in its storage.
  const factory = async (input: { sessionId: string | undefined }) => {
    if (first && !input.sessionId) {
      first = false;
      return fx.service;
    }
    return fx.reopen({ sessionId: input.sessionId });
  };
  controller = new SessionController(factory, settings, keys, new FakeMemento(), new FakeLogChannel('test'));
  await controller.ensure();
});

afterEach(async () => {
  controller.dispose();
  keys.dispose();
  settings.dispose();
  await fx.cleanup();
});

/** A recorded conversation of `turns` user/assistant turns behind a system prompt. */
function recording(turns: number): Entry[] {
  const out: Entry['message'][] = [{ role: 'system', content: 'You are a recorded agent.' }];
  for (let t = 0; t < turns; t++)
    out.push(
      { role: 'user', content: `Step ${t}: ${filler(5, `u${t}`)}` },
      { role: 'assistant', content: `Done ${t}: ${filler(5, `a${t}`)}` },
    );
  return out.map((message, i) => ({ id: `m${i}`, message }));
}

test('Continue in a new task starts from the compacted context, with checkpoints and every raw entry', async () => {
  const entries = recording(60);
  await controller.importTranscript({ source: 'test: recording', entries }, 'recording.jsonl', 'gpt-4o');
  const imported = controller.current!;
  assert.equal(controller.readOnly, true);
  assert.equal((await imported.compactNow()).status.kind, 'applied');
  const compacted = imported.exportTranscript().messages;
  const checkpoints = imported.getCheckpoints().map((c) => c.id);
  const used = imported.getBudget().used;
  assert.ok(compacted.length < entries.length);

  await controller.continueInNewTask();
  const fork = controller.current!;
  assert.notEqual(fork.sessionId, imported.sessionId);
  assert.equal(controller.readOnly, false);
  assert.deepEqual(fork.exportTranscript().messages, compacted, 'the working session sends the compacted context');
  assert.equal(fork.getBudget().used, used);
  assert.deepEqual(
    fork.getCheckpoints().map((c) => c.id),
    checkpoints,
  );
  assert.equal(fork.getTranscript().entries.length, entries.length, 'the raw transcript is kept');
  await fork.restoreCheckpoint(checkpoints[0]);
  assert.ok(
    fork.exportTranscript().messages.length > compacted.length,
    'the replaced messages can be brought back in the fork',
  );

  const listed = controller.sessions
    .all()
    .map((s) => s.id)
    .sort();
  assert.deepEqual(
    readdirSync(fx.storageDir).sort(),
    listed,
    'every session folder is in the list (no empty leftovers)',
  );
});

test('a task continued from a recording without a system message gets the agent system prompt, counted, and reads "Continued from"', async () => {
  const fresh = controller.current!.getBudget().breakdown.system;
  assert.ok(fresh > 0, 'a fresh session counts its system prompt');
  const entries = recording(4).slice(1);
  await controller.importTranscript({ source: 'test: recording', entries }, 'no-system.jsonl', 'gpt-4o');
  assert.equal(controller.current!.getBudget().breakdown.system, 0, 'the recording itself has none');

  await controller.continueInNewTask();
  const fork = controller.current!;
  const messages = fork.exportTranscript().messages;
  assert.deepEqual(
    messages[0],
    { role: 'system', content: 'You are a test agent.' },
    'the agent system prompt leads the context',
  );
  assert.deepEqual(
    messages.slice(1),
    entries.map((e) => e.message),
    'the recording follows unchanged',
  );
  assert.equal(fork.getBudget().breakdown.system, fresh, 'counted as in a fresh session');
  assert.equal(fork.getTranscript().entries.length, entries.length + 1, 'the prompt is a raw entry of the new session');
  await fork.whenSaved();
  const stored = JSON.parse(readFileSync(path.join(fork.sessionDir!, 'state.json'), 'utf8')) as { source: string };
  assert.equal(stored.source, 'Continued from no-system.jsonl');

  await controller.continueInNewTask();
  assert.equal(
    controller.current!.exportTranscript().messages.filter((m) => m.role === 'system').length,
    1,
    'a second fork adds no second prompt',
  );
});

test('renaming the shown session shows the new name in the list and the header at once', async () => {
  const id = controller.current!.sessionId;
  let changes = 0;
  const sub = controller.onDidChange(() => changes++);
  await controller.renameSession(id, 'Parser refactor');
  sub.dispose();
  assert.ok(changes > 0, 'the views are told to redraw');
  const state = controller.viewState();
  assert.equal(state.sessions.find((s) => s.id === id)?.label, 'Parser refactor');
  assert.match(state.source, /Parser refactor/);
});

test('a new session is named by its first task, not by a date; a later task or a given name is kept', async () => {
  const id = controller.current!.sessionId;
  const label = () => controller.viewState().sessions.find((s) => s.id === id)?.label;
  assert.equal(label(), 'New session');
  await controller.current!.runTask('\n  Fix the   flaky parser test in src/parse.ts\nIt fails on CRLF input.');
  await until(() => label() !== 'New session', 'the name from the task');
  assert.equal(label(), 'Fix the flaky parser test in src/parse.ts');
  assert.match(controller.viewState().source, /Fix the flaky parser test/);
  await controller.current!.runTask('Now the lexer');
  assert.equal(label(), 'Fix the flaky parser test in src/parse.ts', 'the second task does not rename it');

  await controller.startNewSession();
  const second = controller.current!.sessionId;
  await controller.renameSession(second, 'Lexer work');
  await controller.current!.runTask('Something else entirely');
  assert.equal(controller.viewState().sessions.find((s) => s.id === second)?.label, 'Lexer work');
});

test('a task title is the first line with text, cut at white space with an ellipsis', () => {
  assert.equal(taskTitle('  one   two\nthree'), 'one two');
  const long = 'Refactor the configuration loader so that every setting is validated before activation finishes';
  const title = taskTitle(long);
  assert.ok(title.length <= 60, title);
  assert.ok(title.endsWith('…'));
  assert.ok(long.startsWith(title.slice(0, -1)), 'a prefix of the task');
  assert.equal(long[title.length - 1], ' ', 'cut at white space');
  assert.equal(taskTitle('\n  \n'), '');
});

test('an open checkpoint document keeps showing its checkpoint after a switch, an import and a new session', async () => {
  await controller.importTranscript({ source: 'test: recording', entries: recording(60) }, 'recording.jsonl', 'gpt-4o');
  const owner = controller.current!.sessionId;
  assert.equal((await controller.current!.compactNow()).status.kind, 'applied');
  const id = controller.current!.getCheckpoints()[0].id;
  const provider = new CheckpointDocumentProvider(
    checkpointLookup(controller, fx.storageDir),
    () => controller.current?.sessionId,
  );
  const registration = workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, provider);
  try {
    await provider.show(id);
    const uri = window.visibleTextEditors[0].document.uri;
    assert.equal(parseCheckpointUri(uri)?.sessionId, owner, 'the document names the session it belongs to');
    const shown = provider.provideTextDocumentContent(uri);
    assert.match(shown, new RegExp(`^# Checkpoint ${id}`));

    await controller.startNewSession();
    assert.notEqual(controller.current!.sessionId, owner);
    assert.equal(provider.provideTextDocumentContent(uri), shown, 'after a new session');
    await controller.importTranscript({ source: 'test: other', entries: recording(3) }, 'other.jsonl');
    assert.equal(provider.provideTextDocumentContent(uri), shown, 'after another import');
    await controller.switchTo(owner);
    assert.equal(provider.provideTextDocumentContent(uri), shown, 'back in its own session');
  } finally {
    registration.dispose();
    provider.dispose();
  }
});

test('deleting the shown session while a task runs asks first (modal), and Cancel Task and Delete stops the task, then deletes the session', async () => {
  resetVscodeFake();
  const slow = await serviceFixture(() => stall(), { window: 200_000 });
  let first = true;
  const factory = async (input: { sessionId: string | undefined }) => {
    if (first) {
      first = false;
      return slow.service;
    }
    return slow.reopen({ sessionId: input.sessionId });
  };
  const busy = new SessionController(factory, settings, keys, new FakeMemento(), new FakeLogChannel('test'));
  try {
    await busy.ensure();
    const id = slow.service.sessionId;
    // When the task ends, its session is marked as being deleted: the task's own end says nothing then.
    let markedAtEnd: boolean | undefined;
    const task = slow.service.runTask('do it').then((outcome) => ((markedAtEnd = busy.deleting.has(id)), outcome));
    await until(() => busy.state() === 'streaming', 'the task to stream');
    const folder = slow.service.sessionDir!;
    assert.ok(busy.sessions.get(id), 'the shown session is listed');
    const remove = sessionCommands(busy, new FakeLogChannel('test'))[Commands.deleteSession];

    // Dismissed: nothing changes, the task goes on.
    host.user.message = () => undefined;
    await remove(id as never);
    assert.equal(host.messages.length, 1, 'one question, no delete confirmation after it');
    assert.ok(host.messages[0].modal, 'modal: seen even with notifications silenced');
    assert.match(host.messages[0].message, /agent is working in/);
    assert.deepEqual(host.messages[0].items, ['Cancel Task and Delete']);
    assert.ok(busy.sessions.get(id), 'the session is kept');
    assert.equal(slow.service.taskRunning, true, 'the task goes on');
    assert.notEqual(busy.state(), 'idle');

    // Answered: the task is cancelled, then the session goes, without a second question.
    host.user.message = (shown) =>
      shown.items.includes('Cancel Task and Delete')
        ? 'Cancel Task and Delete'
        : shown.items.length
          ? assert.fail(`asked again: ${shown.message}`)
          : undefined;
    await remove(id as never);
    assert.equal((await task).status, 'cancelled');
    assert.equal(markedAtEnd, true, 'the cancelled task saw its session marked for deletion');
    assert.equal(busy.deleting.size, 0, 'the mark is gone once deleted');
    assert.equal(busy.sessions.get(id), undefined, 'the session is deleted');
    assert.match(
      host.messages.at(-1)?.message ?? '',
      /^ContextKeeper: the task was cancelled and the session “.*” deleted\.$/,
      'says what happened',
    );
    assert.ok(!existsSync(folder), 'its folder is deleted');
    assert.notEqual(busy.current?.sessionId, id, 'another session is shown');
    assert.equal(busy.state(), 'idle');
  } finally {
    busy.dispose();
    await slow.cleanup();
  }
});

test('switching sessions while a task runs is a warning that offers Cancel Task, not an error', async () => {
  resetVscodeFake();
  const slow = await serviceFixture(() => stall(), { window: 200_000 });
  const busy = new SessionController(
    async () => slow.service,
    settings,
    keys,
    new FakeMemento(),
    new FakeLogChannel('test'),
  );
  try {
    await busy.ensure();
    const other = 'another-session';
    const shown = busy.current!.sessionId;
    const abort = new AbortController();
    const task = busy.current!.runTask('do it', abort.signal).catch(() => undefined);
    await until(() => busy.state() !== 'idle', 'the task to start');
    host.user.message = (shown) => (shown.items.includes('Cancel Task') ? 'Cancel Task' : undefined);
    const log = new FakeLogChannel('test');
    await sessionCommands(busy, log)[Commands.switchSession](other as never);
    assert.equal(host.messages.length, 1, 'one notice');
    assert.equal(host.messages[0].severity, 'warning');
    assert.match(host.messages[0].message, /agent is working .*cancel the task or wait .*switching/);
    assert.deepEqual(host.messages[0].items, ['Cancel Task']);
    assert.equal(busy.current!.sessionId, shown, 'still the same session');
    await until(() => host.executed.some((c) => c.id === Commands.cancel), 'Cancel Task to run the cancel command');
    assert.ok(
      log.lines.some((l) => l.startsWith('[warn]') && /Switch Session refused/.test(l)),
      log.lines.join('\n'),
    );
    assert.ok(!log.lines.some((l) => l.startsWith('[error]')), 'nothing logged as an error');
    abort.abort();
    await task;
  } finally {
    busy.dispose();
    await slow.cleanup();
  }
});

test('two imports of the same recording get labels that tell them apart', async () => {
  await controller.importTranscript({ source: 'test: log', entries: recording(2) }, 'log.jsonl (codex)');
  await controller.importTranscript({ source: 'test: log', entries: recording(2) }, 'log.jsonl (codex)');
  await controller.importTranscript({ source: 'test: log', entries: recording(2) }, 'log.jsonl (codex)');
  const labels = controller.sessions
    .all()
    .filter((s) => s.kind === 'imported')
    .map((s) => s.label)
    .sort();
  assert.deepEqual(labels, ['log.jsonl (codex)', 'log.jsonl (codex) (2)', 'log.jsonl (codex) (3)']);
  // A rename may give a label another session has: the user chose it.
  const [first] = controller.sessions.all();
  await controller.renameSession(first.id, 'log.jsonl (codex)');
  assert.equal(controller.sessions.get(first.id)?.label, 'log.jsonl (codex)');
});

test('switching sessions while a summary preview waits asks first; Discard Preview discards it, then switches', async () => {
  // A working session with history, and a second session to switch to.
  await controller.importTranscript({ source: 'test: recording', entries: recording(40) }, 'recording.jsonl', 'gpt-4o');
  await controller.continueInNewTask();
  const working = controller.current!;
  const other = controller.sessions.all().find((s) => s.id !== working.sessionId)!.id;
  const previewed = await working.compactNow({ preview: true });
  assert.ok(previewed.preview && working.getPreview(), 'a preview waits');
  const switchTo = sessionCommands(controller, new FakeLogChannel('test'))[Commands.switchSession];

  // Dismissed: nothing changes.
  host.user.message = () => undefined;
  await switchTo(other as never);
  assert.match(
    host.messages.at(-1)?.message ?? '',
    /a summary preview is waiting in this session: apply or discard it before switching sessions/,
  );
  assert.deepEqual(host.messages.at(-1)?.items, ['Discard Preview']);
  assert.equal(controller.current!.sessionId, working.sessionId, 'still the same session');
  assert.ok(working.getPreview(), 'the preview still waits');

  // Discard Preview: the preview goes through its own command, then the switch happens.
  host.user.message = (shown) => (shown.items.includes('Discard Preview') ? 'Discard Preview' : undefined);
  await switchTo(other as never);
  assert.ok(
    host.executed.some((c) => c.id === Commands.discardPreview),
    'the discard command ran',
  );
  await until(() => controller.current?.sessionId === other, 'the switch');
});

test('the compare of a recording compaction shows the replaced messages on its left, in its own session, after a switch and after a reload', async () => {
  resetVscodeFake();
  await controller.importTranscript({ source: 'test: recording', entries: recording(60) }, 'recording.jsonl', 'gpt-4o');
  const owner = controller.current!.sessionId;
  assert.equal((await controller.current!.compactNow()).status.kind, 'applied');
  const summary = controller.current!.getCheckpoints().find((c) => c.inserted.some((i) => i.kind === 'summary'));
  assert.ok(summary, 'a summary was written');
  const provider = new CheckpointDocumentProvider(
    checkpointLookup(controller, fx.storageDir),
    () => controller.current?.sessionId,
  );
  const registration = workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, provider);
  try {
    await provider.showDiff(summary.id);
    const diff = host.executed.find((e) => e.id === 'vscode.diff')!;
    const [left, right] = diff.args as [Uri, Uri];
    const replacedText = () => provider.provideTextDocumentContent(left);
    const firstReplaced = summary.replaced[0];
    const heading = `### ${firstReplaced.message.role} · ${firstReplaced.id}`;
    assert.ok(
      replacedText().includes(heading),
      `the left side names the replaced messages:\n${replacedText().slice(0, 400)}`,
    );
    assert.ok(replacedText().split('\n').length > summary.replaced.length, 'one section a replaced message');
    assert.match(provider.provideTextDocumentContent(right), /SUMMARY|summary/i);
    const shown = replacedText();
    await controller.startNewSession();
    assert.equal(replacedText(), shown, 'read from the session folder after a switch');
    await controller.switchTo(owner);
    assert.equal(replacedText(), shown, 'after the session reloads');
  } finally {
    registration.dispose();
    provider.dispose();
  }
});
