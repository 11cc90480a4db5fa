/**
 * Identifiers an earlier summary kept survive the summary that replaces it, and the back-fill
 * allowance grows with the notes' budget only when the typed requests are all kept whole.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A, S, U, chars, items } from '../support/conversation';
import { quarterCounter } from '../support/generate';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import {
  BACKFILL_REFERENCE_TOKENS,
  IDENTIFIER_BACKFILL_CHARS,
  backfillChars,
  compact,
} from '../../src/compaction/rewrite/compactor';
import { CARRIED_HEADING, carryIdentifiers } from '../../src/compaction/summary/identifiers/carry-identifiers';
import type { ContextItem } from '../../src/compaction/types';
import { describeCompaction } from '../../src/compaction/outcome-text';

const meter = new TokenMeter({ counter: quarterCounter });

function earlierSummary(text: string): ContextItem {
  return {
    id: 'ck-1~s',
    kind: 'summary',
    message: { role: 'user', content: `[Summary of 12 earlier messages]\n\n${text}` },
    covers: ['m1', 'm2'],
    checkpointId: 'ck-1',
  };
}

test('carryIdentifiers appends what an earlier summary kept and the new text lacks, within the allowance', () => {
  const earlier = earlierSummary(
    'Notes.\n\n## Identifiers from tool-call arguments\n- src/legacy/loader_v1.py\n- tests/test_loader_v1.py\n- https://example.org/spec/loader',
  );
  const raw = items([U('continue')])[0];
  const out = carryIdentifiers('New notes mention tests/test_loader_v1.py.', [earlier, raw], 400);
  assert.ok(out.includes(CARRIED_HEADING), out);
  assert.ok(out.includes('- src/legacy/loader_v1.py'), out);
  assert.ok(out.includes('- https://example.org/spec/loader'), out);
  assert.equal(out.split('tests/test_loader_v1.py').length - 1, 1, 'an identifier the text holds is not repeated');
  assert.ok(out.length - 'New notes mention tests/test_loader_v1.py.'.length <= 400);
});

test('carryIdentifiers leaves the text unchanged without an earlier summary or without room', () => {
  const raw = items([U('see src/legacy/loader_v1.py')]);
  assert.equal(carryIdentifiers('notes', raw, 1000), 'notes');
  const earlier = earlierSummary('- src/legacy/loader_v1.py');
  assert.equal(carryIdentifiers('notes', [earlier], 10), 'notes');
});

test('a chained compaction keeps the identifiers of the summary it folds', async () => {
  const paths = Array.from({ length: 40 }, (_, k) => `src/module_${k}/part_${k}.py`);
  const earlier = earlierSummary(
    `${chars(3000, 9)}\n\n## Identifiers from tool-call arguments\n${paths.map((p) => `- ${p}`).join('\n')}`,
  );
  const msgs = [S('agent')];
  for (let k = 0; k < 8; k++) msgs.push(U(`turn ${k} ${chars(600, k)}`), A(`reply ${k} ${chars(600, k + 3)}`));
  msgs.push(U('latest request'));
  const [system, ...rest] = items(msgs);
  const context = [system, earlier, ...rest];
  const r = await compact({
    items: context,
    meter,
    summarizer: new ExtractiveSummarizer((t) => meter.countText(t)),
    options: {
      budget: { contextWindow: 8000, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 },
      trigger: 'manual',
      force: true,
      all: true,
    },
  });
  assert.equal(r.status.kind, 'applied', describeCompaction(r.status));
  assert.ok(!r.context.includes(earlier), 'the earlier summary was folded');
  const text = r.context.map((i) => (typeof i.message.content === 'string' ? i.message.content : '')).join('\n');
  const kept = paths.filter((p) => text.includes(p));
  assert.ok(kept.length >= 30, `paths of the earlier summary kept: ${kept.length} of ${paths.length}`);
});

test('the back-fill allowance grows with the notes budget only when the requests are whole', () => {
  assert.equal(backfillChars(BACKFILL_REFERENCE_TOKENS, true), IDENTIFIER_BACKFILL_CHARS);
  assert.equal(backfillChars(1000, true), IDENTIFIER_BACKFILL_CHARS);
  assert.equal(backfillChars(4 * BACKFILL_REFERENCE_TOKENS, true), 4 * IDENTIFIER_BACKFILL_CHARS);
  assert.equal(backfillChars(4 * BACKFILL_REFERENCE_TOKENS, false), IDENTIFIER_BACKFILL_CHARS);
});
