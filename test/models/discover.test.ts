/** Window discovery against loopback servers speaking each endpoint kind's documented routes. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { discoverEndpoint } from '../../src/models/discover';
import { describeWindow, replyReserve, resolveWindow, WarnOnce } from '../../src/models/resolve';
import { editorModelWindow, sessionWindow } from '../../src/models/session';
import {
  fakeServer,
  llamaCppRoutes,
  lmStudioRoutes,
  ollamaRoutes,
  openRouterRoutes,
  silentRoutes,
  vllmRoutes,
  type Routes,
} from './fake-servers';

async function withServer<T>(routes: Routes, body: (url: string, log: string[]) => Promise<T>): Promise<T> {
  const server = await fakeServer(routes);
  try {
    return await body(server.url, server.log);
  } finally {
    await server.close();
  }
}

test('Ollama: the running context wins over the trained one, and the gap is said with how to raise it', () =>
  withServer(ollamaRoutes(), async (url, log) => {
    const report = await discoverEndpoint(`${url}/v1`);
    assert.equal(report.kind, 'ollama');
    const qwen = report.models.find((m) => m.id === 'qwen2.5-coder:7b');
    assert.deepEqual(
      { window: qwen?.window, trained: qwen?.trainedWindow, source: qwen?.source },
      { window: 4096, trained: 32768, source: 'server' },
    );
    assert.match(qwen?.reason ?? '', /served with 4,096 of the model's 32,768 tokens.*OLLAMA_CONTEXT_LENGTH/);
    const llama = report.models.find((m) => m.id === 'llama3.1:8b');
    assert.deepEqual(
      { window: llama?.window, trained: llama?.trainedWindow },
      { window: 16384, trained: 131072 },
      'num_ctx of the Modelfile is the served window',
    );
    const mistral = report.models.find((m) => m.id === 'mistral:latest');
    assert.equal(mistral?.window, null, 'not loaded and nothing configured: unknown');
    assert.match(mistral?.reason ?? '', /not loaded and no num_ctx/);
    assert.equal(mistral?.trainedWindow, 32768);
    assert.ok(log.includes('POST /api/show') && log.includes('GET /api/ps'));

    const session = resolveWindow('qwen2.5-coder:7b', await discoverEndpoint(url, { model: 'qwen2.5-coder:7b' }));
    assert.equal(session.window, 4096);
    assert.equal(describeWindow(session), '4,096 tokens, reported by the server');
    assert.match(session.warnings.join('\n'), /4,096 of the model's 32,768/);
  }));

test('Ollama: a model named without its tag is found under :latest', () =>
  withServer(ollamaRoutes(), async (url) => {
    const report = await discoverEndpoint(url, { model: 'mistral' });
    assert.equal(report.models.length, 1);
    assert.equal(report.models[0].trainedWindow, 32768);
    const session = resolveWindow('mistral', report);
    assert.equal(session.source, 'table', 'unknown served window: the table stands in, with a warning');
    assert.match(session.warnings.join('\n'), /not loaded/);
  }));

test('llama.cpp: /props n_ctx per slot is the window; n_ctx_train from /v1/models is the trained one', () =>
  withServer(llamaCppRoutes(), async (url) => {
    const report = await discoverEndpoint(url);
    assert.equal(report.kind, 'llama.cpp');
    assert.equal(report.models.length, 1);
    const [m] = report.models;
    assert.deepEqual(
      { window: m.window, trained: m.trainedWindow, source: m.source },
      { window: 4096, trained: 32768, source: 'server' },
    );
    assert.match(m.reason ?? '', /-c/);
  }));

test('vLLM: max_model_len from the models list', () =>
  withServer(vllmRoutes(), async (url) => {
    const report = await discoverEndpoint(`${url}/v1/`);
    assert.equal(report.kind, 'vllm');
    assert.deepEqual(
      report.models.map((m) => [m.id, m.window, m.source]),
      [['Qwen/Qwen2.5-Coder-7B-Instruct', 16384, 'server']],
    );
    assert.equal(report.models[0].trainedWindow, null, 'vLLM does not report the trained window');
    assert.equal(report.models[0].maxOutput, 8192, 'the output limit comes from the table');
  }));

test('LM Studio: loaded_context_length when loaded, null with a reason when not; embeddings left out', () =>
  withServer(lmStudioRoutes(), async (url) => {
    const report = await discoverEndpoint(`${url}/v1`);
    assert.equal(report.kind, 'lmstudio');
    assert.deepEqual(
      report.models.map((m) => [m.id, m.window, m.trainedWindow]),
      [
        ['qwen2.5-7b-instruct', 8192, 131072],
        ['meta-llama-3.1-8b-instruct', null, 131072],
      ],
    );
    assert.match(report.models[0].reason ?? '', /loaded with 8,192 of the model's 131,072/);
    assert.match(report.models[1].reason ?? '', /not loaded/);
  }));

test("OpenRouter-style list: the top provider's context and completion limit", () =>
  withServer(openRouterRoutes(), async (url) => {
    const report = await discoverEndpoint(`${url}/api/v1`);
    assert.equal(report.kind, 'openrouter');
    const llama = report.models.find((m) => m.id === 'meta-llama/llama-3.1-8b-instruct');
    assert.deepEqual(
      { w: llama?.window, t: llama?.trainedWindow, out: llama?.maxOutput },
      { w: 16384, t: 131072, out: 8192 },
    );
    const mini = report.models.find((m) => m.id === 'openai/gpt-4o-mini');
    assert.deepEqual({ w: mini?.window, out: mini?.maxOutput }, { w: 128000, out: 16384 });
    assert.equal(
      replyReserve(32_000, resolveWindow('meta-llama/llama-3.1-8b-instruct', report)),
      8192,
      'the reserve follows the output limit',
    );
  }));

test('a server that reports nothing: table windows where known, null with a reason otherwise', () =>
  withServer(silentRoutes(), async (url) => {
    const report = await discoverEndpoint(url);
    assert.equal(report.kind, 'openai-compatible');
    const mini = report.models.find((m) => m.id === 'gpt-4o-mini');
    assert.deepEqual({ w: mini?.window, s: mini?.source, out: mini?.maxOutput }, { w: 128000, s: 'table', out: 16384 });
    const house = report.models.find((m) => m.id === 'house-model-v2');
    assert.equal(house?.window, null);
    assert.match(house?.reason ?? '', /reports no window/);
    const session = resolveWindow('house-model-v2', await discoverEndpoint(url, { model: 'house-model-v2' }));
    assert.equal(session.source, 'fallback');
    assert.match(describeWindow(session), /assumed/);
    assert.match(session.warnings[0], /contextKeeper\.contextWindow/);
  }));

test('an unreachable endpoint: kind unknown, notes, the table for the session', async () => {
  const server = await fakeServer({});
  const url = server.url;
  await server.close();
  const report = await discoverEndpoint(url, { model: 'gpt-4o', timeoutMs: 1000 });
  assert.equal(report.kind, 'unknown');
  assert.ok(report.notes.length > 0);
  const session = resolveWindow('gpt-4o', report);
  assert.deepEqual({ w: session.window, s: session.source }, { w: 128000, s: 'table' });
  assert.equal(describeWindow(session), '128,000 tokens, from the model table');
});

test('a setting always wins; above the served window it is warned about once', () =>
  withServer(vllmRoutes(), async (url) => {
    const report = await discoverEndpoint(url, { model: 'Qwen/Qwen2.5-Coder-7B-Instruct' });
    const session = resolveWindow('Qwen/Qwen2.5-Coder-7B-Instruct', report, 65536);
    assert.deepEqual(
      { w: session.window, s: session.source, served: session.serverWindow },
      { w: 65536, s: 'flag', served: 16384 },
    );
    assert.equal(describeWindow(session), '65,536 tokens, from settings');
    assert.equal(session.warnings.length, 1);
    assert.match(session.warnings[0], /65,536 tokens\) is larger than the 16,384 tokens the server reports/);
    const once = new WarnOnce();
    assert.equal(once.filter(session.warnings).length, 1);
    assert.equal(
      once.filter(resolveWindow('Qwen/Qwen2.5-Coder-7B-Instruct', report, 65536).warnings).length,
      0,
      'a rebuild does not warn again',
    );
    assert.deepEqual(
      resolveWindow('Qwen/Qwen2.5-Coder-7B-Instruct', report, 8000).warnings,
      [],
      'a setting below the served window is not warned about',
    );
  }));

test('a session window: from the server for a local endpoint, from the table for the OpenAI API (nothing asked)', async () => {
  await withServer(llamaCppRoutes(), async (url) => {
    const w = await sessionWindow({ baseUrl: url, model: 'qwen2.5-coder-7b-instruct-q4_k_m.gguf' });
    assert.deepEqual([w.window, w.source, w.trainedWindow], [4096, 'server', 32768]);
  });
  let asked = false;
  const w = await sessionWindow({
    baseUrl: '',
    model: 'gpt-4.1',
    fetch: async () => ((asked = true), Promise.reject(new Error('no network'))),
  });
  assert.equal(asked, false);
  assert.deepEqual([w.window, w.source, w.maxOutput], [1047576, 'table', 32768]);
});

test("an editor model's window is its maxInputTokens; a larger setting wins with a warning", () => {
  const chat = { id: 'copilot-gpt-4o', family: 'gpt-4o', maxInputTokens: 63_836 };
  const w = editorModelWindow(chat);
  assert.deepEqual([w.window, w.source, w.maxOutput, w.inputOnly], [63_836, 'server', 16384, true]);
  assert.equal(describeWindow(w), '63,836 tokens, reported by VS Code');
  const s = editorModelWindow(chat, 100_000);
  assert.deepEqual([s.window, s.source], [100_000, 'flag']);
  assert.match(s.warnings[0], /larger than the 63,836 input tokens VS Code reports/);
});
