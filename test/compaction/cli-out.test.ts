/** `replay --out` writes the final context in the shape of `compact --out`; the budget flags are read and checked. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const repo = path.resolve(__dirname, '../../..');
const cli = path.join(repo, 'dist/cli.js');
const sample = path.join(repo, 'samples/demo-session.json');
const skip = !fs.existsSync(cli) ? 'needs a built dist/cli.js (npm run build)' : false;

test('replay --out writes the context after the whole replay, in the compact --out shape', { skip }, async (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-replay-out-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const replayOut = path.join(tmp, 'replay.json');
  const compactOut = path.join(tmp, 'compact.json');
  const { stdout } = await exec(process.execPath, [
    cli,
    'replay',
    sample,
    '--window',
    '16000',
    '--json',
    '--out',
    replayOut,
  ]);
  const report = JSON.parse(stdout);
  await exec(process.execPath, [cli, 'compact', sample, '--window', '16000', '--out', compactOut]);
  const doc = JSON.parse(fs.readFileSync(replayOut, 'utf8'));
  const shape = JSON.parse(fs.readFileSync(compactOut, 'utf8'));
  assert.deepEqual(Object.keys(doc).sort(), Object.keys(shape).sort());
  // Counted on the messages as written (secret values masked): `meter` on the file gives the same figure,
  // and with nothing masked it is the replay's own final figure.
  const metered = JSON.parse((await exec(process.execPath, [cli, 'meter', replayOut, '--json'])).stdout) as {
    tokens: number;
  };
  assert.equal(doc.tokensAfter, metered.tokens);
  if (!JSON.stringify(doc.messages).includes('[masked ')) assert.equal(doc.tokensAfter, report.finalTokens);
  assert.ok(report.compactions > 0 && doc.checkpoints.length >= report.compactions);
  assert.equal(
    doc.messages.at(-1).content,
    JSON.parse(fs.readFileSync(sample, 'utf8')).messages.at(-1).content,
    'it ends where the recording ends',
  );
  assert.ok(doc.tokensBefore > doc.tokensAfter, 'the replay compacted what an unmanaged agent would have sent');
});

test('--user-budget and --summary-budget take fractions and change what is kept', { skip }, async () => {
  await assert.rejects(
    exec(process.execPath, [cli, 'compact', sample, '--window', '8000', '--user-budget', '2']),
    /expected a fraction between 0 and 1/,
  );
  const run = async (extra: string[]) =>
    JSON.parse(
      (
        await exec(process.execPath, [cli, 'compact', sample, '--window', '8000', '--json', ...extra]).catch(
          (e: { stdout: string }) => e,
        )
      ).stdout,
    );
  const small = await run(['--summary-budget', '0.05']);
  const large = await run(['--summary-budget', '0.4']);
  const size = (r: { checkpoints: Array<{ summary: string; strategy: string }> }) =>
    r.checkpoints.filter((c) => c.strategy !== 'collapse').reduce((n, c) => n + c.summary.length, 0);
  assert.ok(size(large) >= size(small), `${size(large)} >= ${size(small)}`);
});

test(
  "compact --out keeps the recording's tool schemas: meter on the output counts what compact reported",
  { skip },
  async (t) => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-out-tools-'));
    t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
    const recorded = JSON.parse(fs.readFileSync(sample, 'utf8')) as { messages: unknown[] };
    const tools = ['read_file', 'run_command', 'edit_file'].map((name) => ({
      type: 'function',
      function: {
        name,
        description: `The ${name.replace('_', ' ')} tool of the agent, with a long description so its schema holds tokens.`,
        parameters: {
          type: 'object',
          properties: { path: { type: 'string', description: 'A path relative to the workspace root.' } },
          required: ['path'],
        },
      },
    }));
    const input = path.join(tmp, 'with-tools.json');
    fs.writeFileSync(input, JSON.stringify({ model: 'gpt-4o', tools, messages: recorded.messages }));
    const out = path.join(tmp, 'out.json');
    const report = JSON.parse(
      (await exec(process.execPath, [cli, 'compact', input, '--window', '16000', '--json', '--out', out])).stdout,
    );
    const doc = JSON.parse(fs.readFileSync(out, 'utf8'));
    assert.deepEqual(doc.tools, tools);
    const metered = JSON.parse((await exec(process.execPath, [cli, 'meter', out, '--json'])).stdout);
    assert.equal(metered.tokens, report.tokensAfter);
  },
);
