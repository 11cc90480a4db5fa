/** `context-keeper models` against loopback servers: the documented JSON and the human lines. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { fakeServer, ollamaRoutes, silentRoutes, vllmRoutes, type Routes } from './fake-servers';

const repo = path.resolve(__dirname, '../../..');
const cli = path.join(repo, 'dist/cli.js');
const run = promisify(execFile);
const skip = fs.existsSync(cli) ? false : 'needs a built dist/cli.js (npm run build)';

async function models(routes: Routes, args: string[]): Promise<{ stdout: string; code: number }> {
  const server = await fakeServer(routes);
  try {
    const { stdout } = await run(process.execPath, [cli, 'models', '--base-url', `${server.url}/v1`, ...args], {
      env: { PATH: process.env.PATH },
    });
    return { stdout, code: 0 };
  } catch (error) {
    const e = error as { stdout: string; code: number };
    return { stdout: e.stdout, code: e.code };
  } finally {
    await server.close();
  }
}

test('models --json: {id, window, trainedWindow, source} per model; null window with a reason', { skip }, async () => {
  const { stdout, code } = await models(ollamaRoutes(), ['--json']);
  assert.equal(code, 0);
  const rows = JSON.parse(stdout) as Array<Record<string, unknown>>;
  const byId = new Map(rows.map((r) => [r.id, r]));
  assert.deepEqual(
    { ...byId.get('qwen2.5-coder:7b'), reason: undefined },
    { id: 'qwen2.5-coder:7b', window: 4096, trainedWindow: 32768, source: 'server', reason: undefined },
  );
  const mistral = byId.get('mistral:latest');
  assert.equal(mistral?.window, null);
  assert.equal(typeof mistral?.reason, 'string');
  for (const r of rows)
    assert.deepEqual(
      Object.keys(r).filter((k) => k !== 'reason'),
      ['id', 'window', 'trainedWindow', 'source'],
    );
});

test(
  'models --json on a silent server: table figures, source "table"; --window gives source "flag"',
  { skip },
  async () => {
    const silent = JSON.parse((await models(silentRoutes(), ['--json'])).stdout) as Array<Record<string, unknown>>;
    assert.deepEqual(
      silent.find((r) => r.id === 'gpt-4o-mini'),
      { id: 'gpt-4o-mini', window: 128000, trainedWindow: 128000, source: 'table' },
    );
    const flagged = JSON.parse((await models(vllmRoutes(), ['--json', '--window', '64k'])).stdout) as Array<
      Record<string, unknown>
    >;
    assert.equal(flagged[0].window, 64000);
    assert.equal(flagged[0].source, 'flag');
    assert.match(String(flagged[0].reason), /larger than the 16384 tokens the server reports/);
  },
);

test('models prints one line per model naming the server kind', { skip }, async () => {
  const { stdout } = await models(vllmRoutes(), []);
  assert.match(stdout, /vLLM, 1 model/);
  assert.match(stdout, /Qwen\/Qwen2\.5-Coder-7B-Instruct\s+16,384 tokens\s+\(server\)/);
});

test('models on an endpoint that answers nothing exits 1', { skip }, async () => {
  const { code, stdout } = await models({}, ['--json']);
  assert.equal(code, 1);
  assert.deepEqual(JSON.parse(stdout), []);
});

test(
  'models --model with a name neither the endpoint nor the model table knows exits 2 naming it',
  { skip },
  async () => {
    const server = await fakeServer(vllmRoutes());
    try {
      const failed = await run(process.execPath, [cli, 'models', '--base-url', `${server.url}/v1`, '--model', 'nope'], {
        env: { PATH: process.env.PATH },
      }).then(
        () => undefined,
        (error: { code: number; stderr: string; stdout: string }) => error,
      );
      assert.ok(failed, 'an unknown model is an error');
      assert.equal(failed.code, 2);
      assert.match(
        failed.stderr,
        /unknown model "nope": http:\/\/127\.0\.0\.1:\d+\/v1 does not list it and the model table has no entry for it/,
      );
      assert.equal(failed.stdout, '');
    } finally {
      await server.close();
    }
    // What the endpoint lists is known even when no table has it; what the table knows is known even when the endpoint is silent.
    const listed = await models(vllmRoutes(), ['--model', 'Qwen/Qwen2.5-Coder-7B-Instruct', '--json']);
    assert.equal(listed.code, 0);
    assert.equal((JSON.parse(listed.stdout) as Array<{ window: number }>)[0].window, 16384);
    const fromTable = await models(silentRoutes(), ['--model', 'gpt-4o-mini', '--json']);
    assert.equal(fromTable.code, 0);
    assert.deepEqual((JSON.parse(fromTable.stdout) as Array<{ source: string }>)[0].source, 'table');
    const ollama = await models(ollamaRoutes(), ['--model', 'mistral', '--json']);
    assert.equal(ollama.code, 0, 'an Ollama tag without ":latest" is the listed model');
  },
);

test('models --model on an endpoint that answers nothing names the model and the silence', { skip }, async () => {
  const server = await fakeServer({});
  try {
    await assert.rejects(
      run(process.execPath, [cli, 'models', '--base-url', `${server.url}/v1`, '--model', 'my-finetune'], {
        env: { PATH: process.env.PATH },
      }),
      (error: { code: number; stderr: string }) => {
        assert.equal(error.code, 2);
        assert.match(error.stderr, /unknown model "my-finetune": .* answered with no model list/);
        return true;
      },
    );
  } finally {
    await server.close();
  }
});
