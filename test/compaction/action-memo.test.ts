/**
 * keepMessageMemos(false), as a one-shot process sets it: what is read is the same (the actions, a
 * whole compaction with its summaries and scorecards), and it is read afresh rather than answered
 * from what an earlier reading kept per message.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { itemsFromEntries } from '../../src/compaction/context';
import { generateSession } from '../../bench/corpus';
import { actionsOf } from '../../src/compaction/summary/ledger/actions';
import { keepMessageMemos } from '../../src/compaction/message-memo';
import { quarterCount, quarterMeter } from '../summarizer/fixtures';
import { compact } from '../../src/compaction/rewrite/compactor';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';

test('actions without kept per-message actions equal those with them, and are read afresh', () => {
  const items = itemsFromEntries(generateSession(11, 200 * 300).slice(0, 200));
  try {
    keepMessageMemos(true);
    const first = actionsOf([...items]);
    assert.ok(first.length > 0, 'the session has actions');
    const kept = actionsOf([...items]);
    // With the memo on, a second reading hands back the very action objects of the first.
    assert.equal(kept[0], first[0]);
    keepMessageMemos(false);
    const fresh = actionsOf([...items]);
    assert.deepEqual(fresh, first);
    assert.notEqual(fresh[0], first[0]);
    assert.notEqual(actionsOf([...items])[0], fresh[0]);
  } finally {
    keepMessageMemos(true);
  }
});

test('a compaction with the per-message memos off gives the same checkpoints, summaries and scorecards', async () => {
  const entries = generateSession(23, 400 * 300).slice(0, 400);
  const run = async () => {
    const context = itemsFromEntries(entries);
    const meter = quarterMeter();
    const total = meter.measure(context).total;
    const result = await compact({
      items: context,
      meter,
      summarizer: new ExtractiveSummarizer(quarterCount),
      options: {
        budget: { contextWindow: Math.ceil(total / 0.9), reservedOutput: 0, compactAt: 0.8, compactTo: 0.3 },
        trigger: 'manual',
        force: true,
        noCollapse: true,
      },
    });
    // Checkpoint ids are random: the summary's pointer names one.
    return result.checkpoints.map((c) => ({
      summary: c.summary.replaceAll(c.id, 'ck'),
      replaced: c.replacedIds,
      retention: c.retention,
    }));
  };
  try {
    keepMessageMemos(true);
    const kept = await run();
    const again = await run();
    keepMessageMemos(false);
    const fresh = await run();
    assert.ok(
      kept.length > 0 && kept.some((c) => c.retention !== undefined),
      'the compaction wrote scored checkpoints',
    );
    assert.deepEqual(again, kept, 'answered from the memos');
    assert.deepEqual(fresh, kept, 'read afresh');
  } finally {
    keepMessageMemos(true);
  }
});
