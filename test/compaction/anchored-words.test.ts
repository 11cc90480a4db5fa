/**
 * The anchored figures name the tool schemas and the tokens that prime the reply apart, each as the
 * meter's breakdown has them: a recording without tool schemas never shows "tool schemas", and the
 * priming tokens read "reply start", the word the command line's `meter` prints for them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TokenMeter, replyStartTokens } from '../../src/compaction/meter/meter';
import { anchoredBreakdown } from '../../src/compaction/plan/anchored';
import { describeAnchored } from '../../src/compaction/outcome-text';
import { itemsFromEntries } from '../../src/compaction/context';
import { importTranscriptTextSync } from '../../src/transcripts';
import type { ToolSchema } from '../../src/compaction/types';
import { WRITERS, type Step } from '../support/recordings';
import { quarterCounter } from '../support/generate';

const meter = new TokenMeter({ counter: quarterCounter });
const steps: Step[] = [
  { user: 'Why does the build fail?' },
  { tool: 'bash', command: 'npm run build', output: 'error TS2304: Cannot find name x', ok: false },
  { say: 'A missing import.' },
  { user: 'Fix it.' },
];
const schema: ToolSchema = {
  type: 'function',
  function: { name: 'search', description: 'Searches the code.', parameters: { type: 'object', properties: {} } },
};

for (const format of ['cline', 'codex'] as const) {
  test(`${format}: without tool schemas, the anchored figures name reply start and no tool schemas`, () => {
    const { write, file } = WRITERS[format];
    const items = itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
    const anchored = anchoredBreakdown(items, meter, [], 1);
    const m = meter.measure(items, []);
    assert.equal(anchored.tools, 0);
    assert.equal(anchored.replyStart, replyStartTokens(m));
    assert.ok(anchored.replyStart > 0);
    const words = describeAnchored(anchored);
    assert.doesNotMatch(words, /tool schemas/);
    assert.match(words, new RegExp(`reply start ${anchored.replyStart}`));
  });

  test(`${format}: with tool schemas, they are counted as the meter's tools category, apart from reply start`, () => {
    const { write, file } = WRITERS[format];
    const items = itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
    const anchored = anchoredBreakdown(items, meter, [schema], 1);
    const m = meter.measure(items, [schema]);
    assert.equal(anchored.tools, m.breakdown.tools);
    assert.equal(anchored.replyStart, replyStartTokens(m));
    assert.match(describeAnchored(anchored), new RegExp(`tool schemas ${m.breakdown.tools}`));
  });
}
