/**
 * `replay` reports what is true of the requests an agent would send: `fits` only when every request
 * sent and the context at the end fit the budget (a recording ending on a request is compacted before
 * that pending call, as any call is), and an automatic compaction that cannot reach its target while
 * the request still fits is a warning with the figures, not a failure. Recordings in two formats,
 * written in test/support/recordings.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { replayCommand, type BudgetOptions } from '../../src/cli/commands';
import { WRITERS, type Step } from '../support/recordings';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-replay-fit-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);
const WINDOW = 8000;
const budget: BudgetOptions = { window: WINDOW, at: 0.8, to: 0.5, keepSteps: 1, summarizer: 'extractive' };

interface ReplayJson {
  fits: boolean;
  peakTokens: number;
  finalTokens: number;
  finalCompacted: boolean;
  finalHolders?: unknown;
  failedCompactions: number;
  errors: string[];
  compactionWarnings: string[];
}

/** Runs `replay` on `steps` written in `format`; returns its output and the exit code it set (put back after). */
async function run(
  format: keyof typeof WRITERS,
  steps: Step[],
  json: boolean,
): Promise<{ text: string; code: typeof process.exitCode }> {
  const { write, file } = WRITERS[format];
  const dir = fs.mkdtempSync(path.join(tmp, `${format}-`));
  const input = path.join(dir, file);
  fs.writeFileSync(input, write(steps));
  const lines: string[] = [];
  const saved = process.exitCode;
  try {
    process.exitCode = undefined;
    await replayCommand(
      input,
      { ...budget, json },
      (l) => lines.push(l),
      () => undefined,
    );
    return { text: lines.join('\n'), code: process.exitCode };
  } finally {
    process.exitCode = saved;
  }
}

/** Finished turns whose tool outputs fill the window, then `last`: a request no call answered yet. */
const endingOnRequest = (last: string): Step[] => [
  { user: 'read the fetch client and explain its retries' },
  { tool: 'read', path: 'src/net/client.ts', output: filler(500) },
  { say: `The client retries three times. ${filler(60)}` },
  { user: 'now list the tests of the client' },
  { tool: 'bash', command: 'ls test/net', output: filler(500), exit: 0 },
  { say: `There are twelve tests. ${filler(60)}` },
  { user: last },
];

for (const format of ['cline', 'openai-chat'] as const) {
  test(`${format}: a recording ending on a request is compacted before that pending call, and fits only if the end fits`, async () => {
    // The older turns and this request together are over the window: the end must be compacted.
    const { text, code } = await run(format, endingOnRequest(`add a retry budget to the client ${filler(1300)}`), true);
    const r = JSON.parse(text) as ReplayJson;
    assert.equal(r.finalCompacted, true, 'the pending request was compacted first');
    assert.ok(r.finalTokens <= WINDOW, `the end holds ${r.finalTokens} tokens`);
    assert.equal(r.fits, true);
    assert.equal(code, undefined);
  });

  test(`${format}: a context at the end over the window makes fits false, says so and exits with 1`, async () => {
    // Every request sent fits; the agent's last reply, recorded after the last call, is over the window.
    const steps: Step[] = [...endingOnRequest('add a retry budget to the client'), { say: `Done. ${filler(1700)}` }];
    const r = JSON.parse((await run(format, steps, true)).text) as ReplayJson;
    assert.ok(r.peakTokens <= WINDOW, `every request sent fit (${r.peakTokens})`);
    assert.ok(r.finalTokens > WINDOW, `${r.finalTokens}`);
    assert.equal(r.fits, false);
    assert.ok(r.finalHolders, 'what holds the end is named');
    const { text, code } = await run(format, steps, false);
    assert.equal(code, 1);
    assert.match(
      text,
      /does not fit: the context at the end of the recording holds [\d,]+ tokens, over the budget of 8,000; /,
    );
  });
}

for (const format of ['cline', 'openai-chat'] as const) {
  test(`${format}: a compaction that cannot reach its target while the request fits is a warning, not a failure`, async () => {
    // The newest step alone holds more than the trigger (6,400) and less than the window: an
    // automatic compaction cannot get below the trigger, and the request is sent as it is.
    const steps: Step[] = [
      { user: 'read the fetch client and explain its retries' },
      { tool: 'read', path: 'src/net/client.ts', output: filler(100) },
      { say: 'The client retries three times.' },
      { user: 'now run the tests of the client' },
      { tool: 'bash', command: 'npm test -- test/net', output: filler(1320), exit: 0 },
      { say: 'Twelve tests pass.' },
    ];
    const r = JSON.parse((await run(format, steps, true)).text) as ReplayJson;
    assert.equal(r.failedCompactions, 0);
    assert.deepEqual(r.errors, []);
    assert.equal(r.compactionWarnings.length, 1, r.compactionWarnings.join('\n'));
    assert.match(
      r.compactionWarnings[0],
      /^call \d+: cannot get below 6,400 tokens: at best [\d,]+.*; the request was sent as it was \([\d,]+ tokens, within the budget of 8,000\)$/,
    );
    assert.equal(r.fits, true);
    const { text, code } = await run(format, steps, false);
    assert.equal(code, undefined, 'not a failure');
    assert.match(text, /^warning: call \d+: cannot get below 6,400 tokens/m);
    assert.doesNotMatch(text, /^error:/m);
  });
}
