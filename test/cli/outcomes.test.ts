/**
 * `compact` prints and reports the core's typed outcome: `--json` carries `status` as the core returned
 * it, and the text line is rendered from it (applied, nothing eligible, a summarizer that rejects the key).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { start } from '../../src/demo/modelserver/wire';
import { describeCompaction } from '../../src/compaction/outcome-text';

const repo = path.resolve(__dirname, '../../..');
const cli = path.join(repo, 'dist/cli.js');
const sample = path.join(repo, 'samples/demo-session.json');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-cli-outcomes-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const skip = fs.existsSync(cli) ? false : 'needs a built dist/cli.js (npm run build)';

function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cli, ...args],
      { timeout: 60_000, env: { ...process.env, ...env } },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

test('compact --json: an applied compaction reports its status with the figures', { skip }, async () => {
  const r = await run(['compact', sample, '--window', '16000', '--json']);
  const report = JSON.parse(r.stdout);
  assert.equal(report.status.kind, 'applied');
  assert.equal(report.status.tokensBefore, report.tokensBefore);
  assert.equal(report.status.tokensAfter, report.tokensAfter);
  assert.equal(report.status.checkpoints, report.checkpoints.length);
});

test(
  'compact: a system prompt over the window does not fit, reported as data and as the sentence rendered from it',
  { skip },
  async () => {
    const file = path.join(tmp, 'paste.json');
    // A system prompt larger than the window: it is never summarised or clipped.
    const rules = Array.from({ length: 2000 }, (_, k) => `rule ${k}: keep the build green`).join('\n');
    fs.writeFileSync(
      file,
      JSON.stringify({
        messages: [
          { role: 'system', content: rules },
          { role: 'user', content: 'go on' },
        ],
      }),
    );
    const json = JSON.parse((await run(['compact', file, '--window', '8000', '--json'])).stdout);
    assert.equal(json.applied, false);
    assert.equal(json.status.kind, 'does-not-fit');
    assert.equal(json.status.limitTokens, json.inputBudget);
    assert.ok(json.status.anchored.system > json.inputBudget, JSON.stringify(json.status));
    const text = await run(['compact', file, '--window', '8000']);
    assert.ok(text.stdout.includes(`nothing changed: ${describeCompaction(json.status)}`), text.stdout);
  },
);

test(
  'compact --summarizer openai: a rejected key is a summarizer failure of kind auth, with its HTTP status',
  { skip },
  async (t) => {
    const server = await start({
      responder: () => ({
        type: 'status',
        status: 401,
        message: 'Incorrect API key provided',
        code: 'invalid_api_key',
      }),
    });
    t.after(() => server.close());
    const args = [
      'compact',
      sample,
      '--window',
      '4000',
      '--summarizer',
      'openai',
      '--base-url',
      server.url,
      '--summary-model',
      'loopback-model',
      '--summary-window',
      '32000',
    ];
    const json = await run([...args, '--json'], { OPENAI_API_KEY: 'sk-test-outcomes-000000' });
    assert.equal(json.code, 1);
    const report = JSON.parse(json.stdout);
    assert.equal(report.status.kind, 'summarizer-failed');
    assert.equal(report.status.failure, 'auth');
    assert.equal(report.status.status, 401);
    assert.match(report.status.message, /HTTP 401/);
    const text = await run(args, { OPENAI_API_KEY: 'sk-test-outcomes-000000' });
    assert.match(
      text.stdout,
      /nothing changed: compaction failed, the context is unchanged: the summarizer rejected the API key \(.*HTTP 401/,
    );
    assert.ok(
      !text.stdout.includes('sk-test-outcomes-000000') && !text.stderr.includes('sk-test-outcomes-000000'),
      'the key is never printed',
    );
  },
);

test(
  'compact --extractive-fallback: a failing model leaves summaries written without a model, each line saying so and why',
  { skip },
  async (t) => {
    const server = await start({ responder: () => ({ type: 'status', status: 500, message: 'scripted outage' }) });
    t.after(() => server.close());
    const args = [
      'compact',
      sample,
      '--window',
      '4000',
      '--summarizer',
      'openai',
      '--base-url',
      server.url,
      '--summary-model',
      'loopback-model',
      '--extractive-fallback',
    ];
    const text = await run(args, { OPENAI_API_KEY: 'sk-test-outcomes-000000' });
    assert.equal(text.code, 0, text.stderr);
    const lines = text.stdout.split('\n').filter((l) => l.includes(' extractive (manual)'));
    assert.ok(lines.length > 0, text.stdout);
    for (const line of lines)
      assert.match(
        line,
        /; messages (\d+)-(\d+); \d+ summarised without a model because the model call failed: .*HTTP 500.*scripted outage(; \d+ model calls?)?$/,
      );
    // The failed call is counted: it was made, though its reply could not be used.
    assert.match(lines[0], /; [1-9]\d* model calls?$/);
    const json = JSON.parse((await run([...args, '--json'], { OPENAI_API_KEY: 'sk-test-outcomes-000000' })).stdout);
    const [first] = json.checkpoints.filter((c: { strategy: string }) => c.strategy === 'extractive');
    assert.equal(first.summarizerModel, 'extractive (fallback: http)');
    assert.equal(first.coverage.withoutModel, first.replacedIds.length);
    assert.equal(first.coverage.parts[0].reason, 'model-failed');
    // Without the flag the model's failure leaves the conversation as it was.
    const strict = await run(args.slice(0, -1), { OPENAI_API_KEY: 'sk-test-outcomes-000000' });
    assert.equal(strict.code, 1);
    assert.match(strict.stdout, /nothing changed: compaction failed/);
  },
);
