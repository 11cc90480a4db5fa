/** "Test connection" against loopback servers: what it lists, what it warns about, the tiny request. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testConnection } from '../../src/models/test-connection';
import { chatCompletionsUrl, withApiPath } from '../../src/models/http';
import { fakeServer, ollamaRoutes, vllmRoutes } from './fake-servers';

const completion = {
  id: 'c1',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'OK' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 14, completion_tokens: 1, total_tokens: 15 },
};

test('lists the models with their windows, says the served window is below the trained one, and checks a request', async (t) => {
  const requests: unknown[] = [];
  const server = await fakeServer({
    ...ollamaRoutes(),
    'POST /v1/chat/completions': (body) => (requests.push(body), { json: completion }),
  });
  t.after(() => server.close());
  const result = await testConnection({ baseUrl: `${server.url}/v1`, model: 'qwen2.5-coder:7b' });
  const text = result.lines.join('\n');
  assert.equal(result.ok, true);
  assert.match(text, /: Ollama, 3 models/);
  assert.match(text, /qwen2\.5-coder:7b: 4,096 tokens \(served\), trained 32,768/);
  assert.match(text, /mistral:latest: window unknown/);
  assert.match(text, /Model qwen2\.5-coder:7b: 4,096 tokens, reported by the server/);
  assert.match(text, /warning: .*OLLAMA_CONTEXT_LENGTH/);
  assert.match(text, /answered in \d+ ms \(14 prompt tokens\)/);
  assert.equal((requests[0] as { model: string }).model, 'qwen2.5-coder:7b');
});

test('a setting above the served window is reported; a refused request says why', async (t) => {
  const server = await fakeServer({
    ...vllmRoutes(),
    'POST /v1/chat/completions': () => ({ status: 401, json: { error: { message: 'bad key' } } }),
  });
  t.after(() => server.close());
  const result = await testConnection({
    baseUrl: server.url,
    model: 'Qwen/Qwen2.5-Coder-7B-Instruct',
    contextWindow: 32768,
    apiKey: 'k',
  });
  const text = result.lines.join('\n');
  assert.equal(result.ok, false);
  assert.match(text, /32,768 tokens, from settings/);
  assert.match(text, /larger than the 16,384 tokens the server reports/);
  assert.match(text, /failed: the API key was rejected/);
  assert.deepEqual(result.failure, { kind: 'auth', status: 401 });
});

test("the failure is typed from the status, whatever the server's text says; the model line is given apart", async (t) => {
  // A server error whose text talks about a "key": no key problem.
  const server = await fakeServer({
    ...vllmRoutes(),
    'POST /v1/chat/completions': () => ({
      status: 500,
      json: { error: { message: 'cache key lookup failed (401 auth backend)' } },
    }),
  });
  t.after(() => server.close());
  const result = await testConnection({ baseUrl: server.url, model: 'Qwen/Qwen2.5-Coder-7B-Instruct', apiKey: 'k' });
  assert.equal(result.ok, false);
  assert.deepEqual(result.failure, { kind: 'server', status: 500 });
  assert.match(result.modelLine, /^Model Qwen\/Qwen2\.5-Coder-7B-Instruct: /);
  assert.ok(result.lines.includes(result.modelLine));
});

test('the test calls the URL tasks call: a bare server address gets /v1 for both, a path without /v1 is taken as given', async (t) => {
  assert.equal(withApiPath('http://127.0.0.1:11434'), 'http://127.0.0.1:11434/v1');
  assert.equal(withApiPath(' http://127.0.0.1:11434/ '), 'http://127.0.0.1:11434/v1');
  assert.equal(withApiPath('http://127.0.0.1:11434/v1'), 'http://127.0.0.1:11434/v1');
  const gemini = 'https://generativelanguage.googleapis.com/v1beta/openai/';
  assert.equal(withApiPath(gemini), gemini, 'a path of its own is kept');
  assert.equal(chatCompletionsUrl(gemini), 'https://generativelanguage.googleapis.com/v1beta/openai/chat/completions');
  const hits: string[] = [];
  const server = await fakeServer({
    ...ollamaRoutes(),
    'POST /v1/chat/completions': () => (hits.push('/v1'), { json: completion }),
    'POST /proxy/v1/chat/completions': () => (hits.push('/proxy/v1'), { json: completion }),
  });
  t.after(() => server.close());
  // Bare address: the test and tasks both call /v1/chat/completions, which answers.
  const bare = await testConnection({ baseUrl: server.url, model: 'qwen2.5-coder:7b' });
  assert.equal(bare.ok, true);
  assert.equal(chatCompletionsUrl(withApiPath(server.url)), `${server.url}/v1/chat/completions`);
  // A path without /v1: tasks call /proxy/chat/completions, which is not served, so the test fails too.
  const proxied = await testConnection({ baseUrl: `${server.url}/proxy`, model: 'qwen2.5-coder:7b' });
  assert.equal(proxied.ok, false, 'a test passes only where tasks would reach the model');
  assert.match(
    proxied.reason ?? '',
    /no chat route at .*\/proxy\/chat\/completions; the API may live at .*\/proxy\/v1/,
  );
  assert.deepEqual(hits, ['/v1']);
});
