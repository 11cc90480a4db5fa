/**
 * Cancelling the agent while its reply streams, as the user does it (New Agent Task from the sidebar,
 * then Cancel), over the running extension against a loopback model: the reply so far is kept with
 * the cancel marker in its text (as the agent stores it), its transcript line is flagged interrupted,
 * and a short notice confirms the cancel. A complete reply is not flagged.
 */
import '../support/vscode-fake/register';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CANCELLED_REPLY_MARKER } from '../../src/agent/cancelled-reply';
import type { ContextKeeperApi } from '../../src/extension';
import { chunked, text } from '../../src/demo/modelserver/replies';
import { start, type ModelServer } from '../../src/demo/modelserver/wire';
import { itemsForEntry } from '../../src/views/sidebar/transcript-items';
import { commands, host } from '../support/vscode-fake';
import { activateWithModel, type ExtensionWithModel } from '../support/vscode-fake/extension-with-model';
import { until } from '../support/until';

let server: ModelServer;
let extension: ExtensionWithModel;
let api: ContextKeeperApi;
let calls = 0;

before(async () => {
  // First task: a slow reply that is cancelled; second task: a quick complete one.
  server = await start({
    responder: () =>
      ++calls === 1
        ? chunked(
            Array.from({ length: 200 }, (_, i) => `word${i} `),
            20,
          )
        : text('All done.'),
  });
  extension = activateWithModel(server, 'ck-cancelled-reply-');
  api = extension.api;
});
after(() => extension.close());

const assistantLines = () => api.getViewState().transcript.filter((item) => item.kind === 'assistant');

test('a reply cancelled while it streams is kept, flagged interrupted, and the cancel is confirmed', async () => {
  const task = commands.executeCommand('contextKeeper.newAgentTask', 'Write a long essay');
  await until(
    () => assistantLines().some((item) => item.kind === 'assistant' && item.text.includes('word3 ')),
    'streamed text',
  );
  await commands.executeCommand('contextKeeper.cancel');
  await task;
  const [line] = assistantLines();
  assert.ok(line?.kind === 'assistant');
  assert.equal(line.interrupted, true, 'the line is flagged interrupted');
  assert.equal(line.streaming, undefined, 'the streaming line became the stored one');
  assert.ok(line.text.endsWith(CANCELLED_REPLY_MARKER), 'the stored text carries the marker the model reads too');
  assert.ok(!line.text.includes('word199'), 'the reply was cut short');
  const confirm = host.messages.find((m) => /task cancelled/.test(m.message));
  assert.equal(confirm?.severity, 'information');
  assert.ok(!host.messages.some((m) => m.severity === 'error'), 'no error notice');
});

test('a complete reply is not flagged; the flag comes from the marker at the end of the text, even past the cap', async () => {
  await commands.executeCommand('contextKeeper.newAgentTask', 'Say done');
  const lines = assistantLines();
  assert.equal(lines.length, 2);
  const done = lines[1];
  assert.ok(done.kind === 'assistant' && done.text === 'All done.' && done.interrupted === undefined);
  const long = `${'x'.repeat(50_000)}${CANCELLED_REPLY_MARKER}`;
  const [item] = itemsForEntry({ id: 'a9', message: { role: 'assistant', content: long } }, new Map(), {
    running: new Set(),
    outcomes: new Map(),
  });
  assert.ok(item.kind === 'assistant' && item.fullLength === long.length && item.interrupted === true);
  const [quoted] = itemsForEntry(
    {
      id: 'a10',
      message: { role: 'assistant', content: `The marker reads "${CANCELLED_REPLY_MARKER.trim()}", then more.` },
    },
    new Map(),
    { running: new Set(), outcomes: new Map() },
  );
  assert.ok(
    quoted.kind === 'assistant' && quoted.interrupted === undefined,
    'quoting the marker mid-text is not an interruption',
  );
});
