/**
 * The extension's HTTP worker policy (typed `vscode` fake): plain HTTP to this machine goes through
 * the worker, anything else stays on the extension host's `fetch` (where VS Code adds proxy and
 * certificate support) unless `http.fetchAdditionalSupport` is off; the agent's client from the
 * model source streams through the worker; disposing the extension's registration stops it.
 */
import '../support/vscode-fake/register';
import { beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { configureHttpWorker, editorRunsOffThread } from '../../src/composition/http-worker';
import { openModelSource } from '../../src/composition/model-source';
import { sharedFetchWorker } from '../../src/models/worker-fetch';
import { readSettings } from '../../src/settings/settings';
import { chunked, scripted } from '../../src/demo/modelserver/replies';
import { start } from '../../src/demo/modelserver/wire';
import { host, resetVscodeFake, workspace } from '../support/vscode-fake';
import { FakeLogChannel } from '../support/vscode-fake/window-parts';

beforeEach(() => resetVscodeFake());

test('plain HTTP to this machine runs off the host; HTTPS and remote endpoints stay unless the editor adds nothing to fetch', () => {
  const off = (url: string) => editorRunsOffThread(new URL(url));
  assert.equal(off('http://127.0.0.1:11434/v1/chat/completions'), true);
  assert.equal(off('http://localhost:8080/v1/chat/completions'), true);
  assert.equal(off('http://[::1]:8080/v1/chat/completions'), true);
  assert.equal(off('https://127.0.0.1:8443/v1/chat/completions'), false, 'TLS may need the system certificates');
  assert.equal(off('https://api.openai.com/v1/chat/completions'), false);
  assert.equal(off('http://models.internal.example:8000/v1/chat/completions'), false, 'a proxy may apply');
  host.setSetting('http.fetchAdditionalSupport', false);
  assert.equal(off('https://api.openai.com/v1/chat/completions'), true);
});

test("the agent's client for a local endpoint streams through the HTTP worker, and the extension's dispose stops it", async (t) => {
  const server = await start({ responder: scripted([chunked(['through ', 'the ', 'worker'])]), models: ['local'] });
  t.after(() => server.close());
  host.setSetting('contextKeeper.baseUrl', server.url);
  host.setSetting('contextKeeper.model', 'local');
  const log = new FakeLogChannel('ContextKeeper');
  const registration = configureHttpWorker(log);
  t.after(() => registration.dispose());
  const settings = readSettings(workspace.getConfiguration('contextKeeper'));
  const source = await openModelSource(settings, undefined, log, (text) => text.length);
  const stream = await source.client.chat.completions.create({
    model: 'local',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
  });
  let text = '';
  for await (const c of stream) text += c.choices[0]?.delta?.content ?? '';
  assert.equal(text, 'through the worker');
  assert.equal(sharedFetchWorker().running, true);
  registration.dispose();
  assert.equal(sharedFetchWorker().running, false);
});
