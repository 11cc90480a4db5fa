/**
 * A replay asked to keep no checkpoints (the command-line `replay` without `--out`, which writes
 * none) reports the same figures with an empty checkpoint list, and still hands each compaction's
 * checkpoints to `onCompaction`.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { replay, type ReplayReport } from '../../src/replay/replay';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import type { Checkpoint, Entry } from '../../src/compaction/types';

/** `steps` tool steps, each result about `words` words, under one request. */
function session(steps: number, words: number): Entry[] {
  const out: Entry[] = [
    { id: 'u', message: { role: 'user', content: 'Read every log file and tell me what failed.' } },
  ];
  for (let k = 0; k < steps; k++) {
    out.push({
      id: `a${k}`,
      message: {
        role: 'assistant',
        content: `Reading run ${k}.`,
        tool_calls: [
          {
            id: `c${k}`,
            type: 'function',
            function: { name: 'read_file', arguments: JSON.stringify({ path: `logs/run${k}.log` }) },
          },
        ],
      },
    });
    out.push({
      id: `t${k}`,
      message: {
        role: 'tool',
        tool_call_id: `c${k}`,
        content: Array.from({ length: words }, (_, i) => `line${k}x${i}`).join(' '),
      },
    });
  }
  out.push({ id: 'done', message: { role: 'assistant', content: 'Run 3 failed.' } });
  return out;
}

const meter = new TokenMeter({ model: 'gpt-4o' });

async function run(keepCheckpoints: boolean | undefined): Promise<{ report: ReplayReport; given: Checkpoint[] }> {
  const given: Checkpoint[] = [];
  const report = await replay(session(40, 300), meter, new ExtractiveSummarizer((t) => meter.countText(t)), {
    budget: { contextWindow: 8000, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 },
    keepCheckpointItems: false,
    newCheckpointId: (
      (n) => () =>
        `ck-${++n}`
    )(0),
    onCompaction: (cps) => given.push(...cps),
    ...(keepCheckpoints === undefined ? {} : { keepCheckpoints }),
  });
  return { report, given };
}

test('keepCheckpoints false: no checkpoint kept in the report, the same figures, each still given to onCompaction', async () => {
  const kept = await run(undefined);
  const none = await run(false);
  assert.ok(kept.report.compactions >= 2, `compactions: ${kept.report.compactions}`);
  assert.equal(kept.report.checkpoints.length, kept.given.length);
  assert.deepEqual(none.report.checkpoints, []);
  assert.deepEqual(
    none.given.map((c) => [c.id, c.strategy, c.summary]),
    kept.given.map((c) => [c.id, c.strategy, c.summary]),
  );
  const figures = (r: ReplayReport) => {
    const { checkpoints: _, finalContext: __, ...rest } = r;
    return rest;
  };
  assert.deepEqual(figures(none.report), figures(kept.report));
});
