/**
 * A task that fails at the model (an HTTP 400 from a loopback server) over the running extension:
 * the sidebar's view state keeps the failure with its reason and endpoint until the next change, the
 * notification says the same, and the log has it. The state is `error` with Retry, which sends the
 * same task again (continuing from the request already there, never a second copy); once it ran, the notification's Retry is spent and does nothing.
 */
import '../support/vscode-fake/register';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ContextKeeperApi } from '../../src/extension';
import { start, type ModelServer } from '../../src/demo/modelserver/wire';
import { commands, host } from '../support/vscode-fake';
import { activateWithModel, type ExtensionWithModel } from '../support/vscode-fake/extension-with-model';
import { until } from '../support/until';
import { failedTaskLine } from '../../src/webview/shared/item-labels';

let server: ModelServer;
let extension: ExtensionWithModel;
let api: ContextKeeperApi;

/** While true the model refuses every request; then it answers with text. */
let failing = true;
/** The last user message of each request the model received. */
const asked: string[] = [];
/** How many user messages each request held. */
const userCounts: number[] = [];

before(async () => {
  server = await start({
    responder: (body) => {
      const users = ((body.messages ?? []) as Array<{ role?: string; content?: unknown }>).filter(
        (m) => m.role === 'user',
      );
      asked.push(String(users.at(-1)?.content ?? ''));
      userCounts.push(users.length);
      return failing
        ? { type: 'status', status: 400, message: 'scripted failure: the request is malformed' }
        : { content: 'Fixed the parser.' };
    },
  });
  extension = activateWithModel(server, 'ck-task-failure-');
  api = extension.api;
});
after(() => extension.close());

test('a task refused by the model leaves its reason and endpoint in the sidebar, the notification and the log', async () => {
  await commands.executeCommand('contextKeeper.newAgentTask', 'Fix the parser');
  await until(() => host.messages.some((m) => m.severity === 'error'), 'the error notification');
  const shown = host.messages.find((m) => m.severity === 'error')!;
  assert.match(shown.message, /the agent stopped: .*scripted failure/);
  // The sidebar's banner: after the task's last state change, still there.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const error = api.getViewState().error;
  assert.ok(error, `the sidebar shows the failure (state ${api.getViewState().state})`);
  assert.match(error.message, /scripted failure/);
  assert.equal(error.endpoint, server.url);
});

test('a failed task shows the error state with Retry, which sends the same task again', async () => {
  const view = api.getViewState();
  assert.equal(view.state, 'error', 'not idle after a failed task');
  assert.equal(view.error?.retryTask, 'Fix the parser');
  const notice = host.messages.find((m) => m.severity === 'error')!;
  assert.equal(notice.items[0], 'Retry');
  failing = false;
  const before = asked.length;
  await commands.executeCommand('contextKeeper.retryTask');
  await until(() => api.getViewState().state === 'idle', 'the retried task to end');
  assert.equal(asked[before], 'Fix the parser', 'the same task was sent again');
  assert.equal(userCounts[before], 1, 'the retry continues from the request already sent, not a second copy of it');
  assert.equal(
    api.getViewState().transcript.filter((item) => item.kind === 'user').length,
    1,
    'the transcript shows the request once',
  );
  assert.equal(api.getViewState().error, undefined, 'the error is gone once the task ran');
  assert.ok(
    api.getViewState().transcript.some((t) => /Fixed the parser/.test(JSON.stringify(t))),
    'the answer is in the transcript',
  );
  // Spent: nothing is resent, and it says so instead of failing.
  const shown = host.messages.length;
  await commands.executeCommand('contextKeeper.retryTask');
  assert.equal(asked.length, before + 1);
  assert.match(host.messages.at(-1)?.message ?? '', /nothing to retry/);
  assert.equal(host.messages.length, shown + 1);
});

test("the error toast's Retry pressed after the task was retried says so and sends nothing; the task is named once", async () => {
  // The toast stays on screen while the sidebar's Retry runs: its answer comes later.
  let press: (choice: string | undefined) => void = () => undefined;
  const pressed = new Promise<string | undefined>((resolve) => (press = resolve));
  const show = host.show.bind(host);
  host.show = (severity, message, rest) => {
    const answer = show(severity, message, rest);
    return (severity === 'error' ? pressed : answer) as ReturnType<typeof show>;
  };
  try {
    failing = true;
    await commands.executeCommand('contextKeeper.newAgentTask', 'Task: quick check of the parser');
    await until(() => api.getViewState().state === 'error', 'the error state');
    const retryTask = api.getViewState().error?.retryTask ?? '';
    assert.equal(failedTaskLine(retryTask), 'Task: quick check of the parser', 'not "Task: Task: …"');
    assert.equal(failedTaskLine('quick check'), 'Task: quick check');
    failing = false;
    await commands.executeCommand('contextKeeper.retryTask');
    await until(() => api.getViewState().state === 'idle', 'the retried task to end');
    const sent = asked.length;
    press('Retry');
    await until(() => /already retried/.test(host.messages.at(-1)?.message ?? ''), 'the answer of the spent Retry');
    assert.equal(asked.length, sent, 'nothing was sent again');
  } finally {
    host.show = show;
  }
});
