/**
 * What the user types into the sidebar is never lost without a word: a pasted log of 150,000
 * characters is a task like any other; a task over the cap, or a second task while one runs, is
 * refused by the page before it clears the box (`taskRefusal`), and by the host with a toast that
 * says why and the text sent back into the box.
 */
import '../support/vscode-fake/register';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { start, type ModelServer } from '../../src/demo/modelserver/wire';
import { commands, host } from '../support/vscode-fake';
import { activateWithModel, type ExtensionWithModel } from '../support/vscode-fake/extension-with-model';
import { until } from '../support/until';
import { MAX_FOCUS_CHARS, MAX_TASK_CHARS, focusRefusal, taskRefusal } from '../../src/webview/shared/input-limits';
import { parseWebviewMessage, refusedInput } from '../../src/webview/shared/protocol';

test('a pasted log of 150,000 characters is a valid task; only a task over the cap is refused', () => {
  const log = 'npm ERR! at Module._compile\n'.repeat(6_000);
  assert.ok(log.length > 150_000);
  assert.deepEqual(parseWebviewMessage({ type: 'runTask', text: log }), { type: 'runTask', text: log });
  assert.equal(taskRefusal(log, false), undefined);
  assert.ok(MAX_TASK_CHARS >= 2_000_000, 'a cap of several MB');
  const huge = 'x'.repeat(MAX_TASK_CHARS + 1);
  assert.equal(parseWebviewMessage({ type: 'runTask', text: huge }), undefined);
  assert.match(taskRefusal(huge, false) ?? '', /at most .* are taken.*stays in the box/);
  const refused = refusedInput({ type: 'runTask', text: huge });
  assert.equal(refused?.task, huge, 'the host gets the text to put back');
  assert.match(refused?.reason ?? '', /characters; at most/);
});

test('a second task while one runs stays in the box; the focus over its cap stays in its field', () => {
  assert.match(taskRefusal('fix the tests', true) ?? '', /A task is running: this one stays in the box/);
  assert.equal(focusRefusal('the migration'), undefined);
  assert.match(focusRefusal('x'.repeat(MAX_FOCUS_CHARS + 1)) ?? '', /at most/);
  assert.ok(refusedInput({ type: 'compact', focus: 'x'.repeat(MAX_FOCUS_CHARS + 1) }));
  assert.ok(refusedInput({ type: 'editPreview', summaries: ['x'.repeat(1_000_001)] }));
  assert.equal(refusedInput({ type: 'openCheckpoint' }), undefined, 'no user text: nothing to say');
});

let server: ModelServer;
let extension: ExtensionWithModel;
// The model's reply waits until the test releases it. The release may come before the request
// reaches the server (the task counts as running from its start): then the reply is not held.
let released = false;
let resume: () => void = () => undefined;
const release = () => {
  released = true;
  resume();
};

before(async () => {
  server = await start({
    responder: async () => {
      if (!released) await new Promise<void>((resolve) => (resume = resolve));
      return { content: 'Done.' };
    },
  });
  extension = activateWithModel(server, 'ck-task-box-');
});
after(async () => {
  release();
  await extension.close();
});

test('a second task sent while one runs goes back into the box with a toast saying why', async () => {
  const sidebar = host.live('webview-view').find((view) => view.id === 'contextKeeper.sidebar')?.target as {
    restoreTask(text: string): void;
  };
  const restored: string[] = [];
  sidebar.restoreTask = (text) => void restored.push(text);
  const first = commands.executeCommand('contextKeeper.newAgentTask', 'Fix the parser');
  await until(() => extension.api.getViewState().state !== 'idle', 'the first task to start');
  await commands.executeCommand('contextKeeper.newAgentTask', 'Then update the docs');
  assert.deepEqual(restored, ['Then update the docs']);
  const notice = host.messages.find((m) => /already running/.test(m.message));
  assert.match(notice?.message ?? '', /kept in the task box/);
  release();
  await first;
  const users = extension.api.getViewState().transcript.filter((item) => item.kind === 'user');
  assert.equal(users.length, 1, 'only the first task was taken');
});
