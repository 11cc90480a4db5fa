/**
 * The largest shared recording compacted by the CLI with a model summarizer at a 16k summary window:
 * the span needs many more calls than the limit allows, and every replaced message is still covered
 * (the oldest part without a model, said in the checkpoint and the summary). The model is a scripted
 * loopback server speaking the OpenAI wire protocol, streamed. Prints the calls and the time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { start } from '../../src/demo/modelserver/wire';
import { sharedTranscriptsDir } from '../support/shared';
import { requestText } from '../summarizer/fixtures';

const repo = path.resolve(__dirname, '../../..');
const cli = path.join(repo, 'dist/cli.js');
const dir = sharedTranscriptsDir();
const file = dir && path.join(dir, 'cline/marine-response.api_conversation_history.json');
const skip = !fs.existsSync(cli)
  ? 'needs a built dist/cli.js (npm run build)'
  : !file || !fs.existsSync(file)
    ? 'needs the shared recordings'
    : false;

const NOTES = [
  '## Objective',
  'Continue the marine response work the user asked for.',
  '## Work completed',
  'The agent read and edited the project files listed in the ledger.',
  '## Unresolved and next step',
  'Continue from the latest request.',
].join('\n');

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cli, ...args],
      { timeout: 600_000, maxBuffer: 64 << 20, env: { ...process.env, OPENAI_API_KEY: 'sk-loopback-000000' } },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test(
  'the largest recording at a 16k summary window: every replaced message covered, within the call limit',
  { skip },
  async (t) => {
    const server = await start({ responder: () => ({ content: NOTES, chunks: NOTES.match(/[\s\S]{1,40}/g) ?? [] }) });
    t.after(() => server.close());
    const started = Date.now();
    const r = await run([
      'compact',
      file!,
      '--window',
      '16000',
      '--summarizer',
      'openai',
      '--base-url',
      server.url,
      '--summary-model',
      'loopback-model',
      '--summary-window',
      '16000',
      '--max-summary-calls',
      '4',
      '--json',
    ]);
    const seconds = (Date.now() - started) / 1000;
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.equal(report.status.kind, 'applied', JSON.stringify(report.status));
    const summaries = report.checkpoints.filter(
      (c: { strategy: string }) => c.strategy === 'summary' || c.strategy === 'extractive',
    );
    assert.ok(summaries.length > 0);
    let withoutModel = 0;
    for (const c of summaries) {
      assert.equal('dropped' in c, false);
      // The parts tile messages 1..n: every replaced message is covered by the summary.
      assert.equal(c.coverage.messages, c.replacedIds.length);
      let next = 1;
      for (const part of c.coverage.parts) {
        assert.equal(part.first, next);
        next = part.last + 1;
      }
      assert.equal(next, c.coverage.messages + 1);
      assert.ok(c.usage.calls <= 4, `${c.usage.calls} calls for one summary`);
      withoutModel += c.coverage.withoutModel;
      if (c.coverage.withoutModel > 0) assert.match(c.summary, /summarised without a model \(extracted notes\)/);
    }
    assert.ok(withoutModel > 0, 'the span is larger than four calls can read');
    const first = requestText(server.requests[0]);
    assert.match(
      first,
      /Messages 1-\d+ are more than the call limit lets you read/,
      'the model is told what it misses',
    );
    const covered = summaries.reduce((n: number, c: { replacedIds: string[] }) => n + c.replacedIds.length, 0);
    // The figures for the record (one line, read by people, not asserted).
    console.log(
      `largest recording, 16k summary window: ${report.tokensBefore} → ${report.tokensAfter} tokens; ${covered} messages covered by ${summaries.length} summar${summaries.length === 1 ? 'y' : 'ies'} (${summaries.map((c: { coverage: { text: string } }) => c.coverage.text).join(' | ')}); ${server.requests.length} model calls; ${seconds.toFixed(1)} s`,
    );
  },
);
