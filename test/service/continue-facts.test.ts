/**
 * Continue in a New Task reports what its compaction measured and did (`outcome.continued`), and the
 * reason computed from it is the true one: a summary edited by hand is blamed for filling the target
 * only when it does; when what is never summarised (the latest request) alone fills it, that is named instead.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeOutcome } from '../../src/service/compaction/outcome';
import { whyEditsSummarised, neverSummarised } from '../../src/service/compaction/continue-facts';
import { continueNotice } from '../../src/views/notices';
import { continuedAtSmallerWindow } from './continued-recording';

test('an edited summary larger than the target by itself is named as what filled it', async (t) => {
  const fx = await continuedAtSmallerWindow(t, {
    recorded: 128_000,
    count: 240,
    lastWords: 200,
    window: 32_000,
    prompt: 3_000,
  });
  const outcome = await fx.service.compactNow({ trigger: 'continue', calls: 'extractive' });
  assert.equal(outcome.status.kind, 'applied', describeOutcome(outcome.status));
  const facts = outcome.continued;
  assert.ok(facts, 'the run reports its facts');
  assert.equal(facts.edited.count, 1);
  assert.equal(facts.resummarised, 1);
  assert.equal(facts.editedKept, false);
  assert.ok(facts.edited.tokens > facts.targetTokens, `${facts.edited.tokens} of ${facts.targetTokens}`);
  assert.equal(whyEditsSummarised(facts)?.kind, 'edited-summaries');
  assert.ok(facts.handLines > 0, 'the typed line is carried whole, and counted');
});

test('a latest request that, with the tool schemas, alone fills the target is named, not the edit', async (t) => {
  // 16k window, 1.6k reserved: target 7,200 tokens; the latest request and the tool schemas hold more.
  const fx = await continuedAtSmallerWindow(t, {
    recorded: 128_000,
    count: 60,
    lastWords: 4_000,
    window: 16_000,
    prompt: 400,
  });
  const outcome = await fx.service.compactNow({ trigger: 'continue', calls: 'extractive' });
  assert.equal(outcome.status.kind, 'applied', describeOutcome(outcome.status));
  const facts = outcome.continued!;
  assert.ok(neverSummarised(facts.anchored) >= facts.targetTokens, JSON.stringify(facts.anchored));
  assert.equal(facts.resummarised, 1, 'the edited summary was summarised again');
  assert.equal(whyEditsSummarised(facts)?.kind, 'never-summarised');
  const notice = continueNotice(facts)!;
  assert.match(notice.text, /not because of your edits: what is never summarised \(latest request [\d,]+/);
});
