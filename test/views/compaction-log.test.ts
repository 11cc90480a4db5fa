/**
 * The log line of a compaction: exact figures, what it did and why it ran.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ContextItem } from '../../src/compaction/types';
import { compactionLogLine } from '../../src/views/compaction-log';

const summary: ContextItem = { id: 's', kind: 'summary', message: { role: 'user', content: 'x' }, covers: ['e1'] };

test('an automatic summary is logged with its exact figures, the summarizer and the cause', () => {
  const line = compactionLogLine({
    trigger: 'auto',
    strategy: 'summary',
    tokensBefore: 169_012,
    tokensAfter: 6_604,
    inserted: [summary],
    replacedIds: ['e1', 'e2', 'e3'],
    summarizerModel: 'qwen2.5-coder:7b',
    durationMs: 1_240,
    attachedFiles: [{ path: 'src/app.ts', tokens: 812 }],
  });
  assert.equal(
    line,
    'Compaction (summary, automatic: the context reached the compaction trigger): 169,012 → 6,604 tokens (-162,408); 1 summary; summarizer qwen2.5-coder:7b, 1.2 s; 3 entries replaced; re-attached src/app.ts (812 tokens).',
  );
});

test('a recorded cause wins over the trigger; a manual one says so', () => {
  const base = {
    strategy: 'clip' as const,
    tokensBefore: 20_000,
    tokensAfter: 12_000,
    inserted: [],
    replacedIds: ['e1'],
  };
  assert.match(
    compactionLogLine({ ...base, trigger: 'auto', cause: 'the provider refused an oversized request' }),
    /^Compaction \(clip, the provider refused an oversized request\): 20,000 → 12,000 tokens \(-8,000\); 1 entry replaced\./,
  );
  assert.match(compactionLogLine({ ...base, trigger: 'manual' }), /^Compaction \(clip, Compact Conversation\)/);
});
