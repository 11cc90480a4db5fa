/**
 * A replay whose context keeps refilling past the trigger right after each compaction: the guard
 * pauses automatic compaction, and the report says so as a notice, not as an error (nothing
 * failed); a replay with no such pause has neither.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { replay } from '../../src/replay/replay';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import type { Entry } from '../../src/compaction/types';

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
        content: null,
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
const summarizer = new ExtractiveSummarizer((t) => meter.countText(t));

test('a replay that keeps refilling past the trigger reports the pause as a notice, with no error', async () => {
  // Each step adds about 40% of the window: after every compaction the next result crosses the trigger again.
  const report = await replay(session(12, 600), meter, summarizer, {
    budget: { contextWindow: 4000, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 },
  });
  assert.ok(report.compactions >= 3, `compactions: ${report.compactions}`);
  assert.equal(report.failedCompactions, 0);
  assert.deepEqual(report.errors, []);
  assert.equal(report.notices.length, 1, JSON.stringify(report.notices));
  assert.match(
    report.notices[0],
    /^automatic compaction was paused \(it refilled past the trigger \d+ times\); requests over the input budget were still compacted$/,
  );
});

test('a replay with room to spare has no notice and no error', async () => {
  const report = await replay(session(4, 50), meter, summarizer, {
    budget: { contextWindow: 128_000, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 },
  });
  assert.equal(report.compactions, 0);
  assert.deepEqual(report.notices, []);
  assert.deepEqual(report.errors, []);
});

test('the replay reports the largest context it compacted beside the peak it sent', async () => {
  const budget = { contextWindow: 4000, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 };
  const report = await replay(session(12, 600), meter, summarizer, { budget });
  assert.ok(report.compactions > 0);
  // Compaction runs before the call that would cross the trigger, so that context is never sent:
  // the peak alone would read as if the trigger had never been reached.
  assert.ok(report.largestCompactedTokens >= 0.8 * 4000, `largest compacted ${report.largestCompactedTokens}`);
  assert.ok(
    report.largestCompactedTokens > report.peakTokens,
    `${report.largestCompactedTokens} vs ${report.peakTokens}`,
  );
  const calm = await replay(session(2, 20), meter, summarizer, { budget });
  assert.equal(calm.compactions, 0);
  assert.equal(calm.largestCompactedTokens, 0);
});
