/**
 * Decisions about a failed model call come from typed data: the failure kind of the `openai`
 * client's real errors (over a loopback server) and of the agent's task outcome, never from the
 * error's words; and a long notification is a short toast whose "Show Details" opens the whole text.
 */
import '../support/vscode-fake/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import type { LogOutputChannel } from 'vscode';
import { modelFailureOf } from '../../src/summarizers/openai-errors';
import { SummarizerError } from '../../src/compaction/types';
import { notify } from '../../src/views/notify';
import { host, resetVscodeFake } from '../support/vscode-fake';
import { fakeServer } from '../models/fake-servers';

async function failureFrom(status: number, message: string): Promise<ReturnType<typeof modelFailureOf>> {
  const server = await fakeServer({ 'POST /v1/chat/completions': () => ({ status, json: { error: { message } } }) });
  try {
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'k', maxRetries: 0 });
    const error = await client.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    return modelFailureOf(error);
  } finally {
    await server.close();
  }
}

test("the openai client's errors are typed by status, whatever their text says", async () => {
  assert.deepEqual(await failureFrom(401, 'no'), { kind: 'auth', status: 401 });
  assert.deepEqual(await failureFrom(403, 'forbidden'), { kind: 'auth', status: 403 });
  // A server error that talks of a key and of 401 is a server error.
  assert.deepEqual(await failureFrom(500, 'invalid api key cache (401 from auth backend)'), {
    kind: 'server',
    status: 500,
  });
  assert.deepEqual(await failureFrom(404, 'no such model'), { kind: 'model-not-found', status: 404 });
  assert.deepEqual(await failureFrom(400, 'bad'), { kind: 'rejected', status: 400 });
  // Nothing listening: a connection error.
  const refused = await new OpenAI({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'k', maxRetries: 0 }).chat.completions
    .create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  assert.deepEqual(modelFailureOf(refused), { kind: 'network' });
  assert.deepEqual(modelFailureOf(new SummarizerError('rejected', 'http', { status: 401 })), {
    kind: 'auth',
    status: 401,
  });
  assert.deepEqual(modelFailureOf(new Error('401 unauthorized key')), { kind: 'unknown' });
});

test('a long notification shows a short message; Show Details opens the whole text in a dialog', async () => {
  resetVscodeFake();
  const long =
    'ContextKeeper: nothing to compact: all that is left is the leading system messages, the latest user message and the recent agent steps kept verbatim.';
  host.user.message = (shown) => (shown.modal ? undefined : 'Show Details');
  await notify('warning', long, ['Open Settings']);
  const [toast, dialog] = host.messages;
  assert.equal(
    toast.message,
    'ContextKeeper: nothing to compact: all that is left is the leading system messages, the…',
  );
  assert.deepEqual(toast.items, ['Open Settings', 'Show Details']);
  assert.equal(dialog.modal, true);
  assert.equal(dialog.detail, long);
  assert.deepEqual(dialog.items, ['Open Settings']);
  // A short one is shown as it is, without a details button.
  host.user.message = () => 'Open Settings';
  assert.equal(await notify('info', 'ContextKeeper: compacted 12k → 3.8k tokens.', ['Open Settings']), 'Open Settings');
  assert.deepEqual(host.messages.at(-1)?.items, ['Open Settings']);
});

test('an error toast shows the model id whole and keeps the reason', async () => {
  resetVscodeFake();
  const text =
    'ContextKeeper: the agent stopped: model "qwen2.5-coder:7b" not found, try pulling it (endpoint http://127.0.0.1:11434/v1)';
  host.user.message = () => undefined;
  await notify('error', text, ['Show Log']);
  assert.equal(host.messages.length, 1);
  assert.equal(host.messages[0].message, text);
});

test('a long notification whose caller offers its own Show Details shows that one button only, and returns it', async () => {
  resetVscodeFake();
  // The successful Test Connection verdict: long, with "Show Details" (the log) as its action.
  const long =
    'ContextKeeper: connection to http://127.0.0.1:8080/v1 works. Model m: 32k tokens, reported by the server; the server serves 14 other models with windows from 8k to 200k tokens.';
  host.user.message = () => 'Show Details';
  assert.equal(await notify('info', long, ['Show Details']), 'Show Details');
  assert.equal(host.messages.length, 1, 'no dialog opened');
  assert.deepEqual(host.messages[0].items, ['Show Details']);
  assert.ok(!host.messages[0].modal, 'a toast, not a modal');
});

test('a long failed Test Connection toast shows its own buttons only; Show Log holds the whole text', async () => {
  resetVscodeFake();
  const long =
    'ContextKeeper: connection problem with http://127.0.0.1:8080/v1: A test request to gpt-4o-mini failed: the endpoint does not know model "gpt-4o-mini" (or has no chat route).';
  const logged: string[] = [];
  const log = { info: (line: string) => logged.push(line) } as unknown as LogOutputChannel;
  host.user.message = () => 'Show Log';
  assert.equal(await notify('warning', long, ['Choose Endpoint', 'Set API Key', 'Show Log'], log), 'Show Log');
  assert.equal(host.messages.length, 1, 'no dialog opened');
  assert.deepEqual(
    host.messages[0].items,
    ['Choose Endpoint', 'Set API Key', 'Show Log'],
    'one set of buttons, no generic Show Details',
  );
  assert.ok(host.messages[0].message.length < long.length);
  assert.deepEqual(logged, [long], 'the whole text is in the log');
});
