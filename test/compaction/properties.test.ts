import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateConversation, quarterCounter, rng } from '../support/generate';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { itemsFromEntries, undoCheckpoint, coveredIds } from '../../src/compaction/context';
import { compact } from '../../src/compaction/rewrite/compactor';
import { checkContext } from '../../src/compaction/plan/invariants';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import type { Checkpoint, ContextItem, Entry } from '../../src/compaction/types';

const CASES = Number(process.env.CK_PROPERTY_CASES ?? 1000);
const SEED = Number(process.env.CK_PROPERTY_SEED ?? 20261129);

test(`invariants 1-5 hold over ${CASES} generated conversations (seed ${SEED})`, async () => {
  const meter = new TokenMeter({ counter: quarterCounter });
  const summarizer = new ExtractiveSummarizer((t) => meter.countText(t));
  let applied = 0;
  let undone = 0;
  for (let c = 0; c < CASES; c++) {
    const seed = SEED + c;
    const r = rng(seed ^ 0x5eed);
    const all = generateConversation(seed, { turns: 8, maxSteps: 8 });
    // Grow the conversation in rounds and compact after each: repeated compaction, summaries of summaries.
    const cut = Math.max(1, Math.floor(all.length * (0.4 + r() * 0.4)));
    let raw: Entry[] = all.slice(0, cut);
    let items: ContextItem[] = itemsFromEntries(raw);
    const checkpoints: Checkpoint[] = [];
    const keepRecentSteps = Math.floor(r() * 3);
    for (const upto of [cut, all.length]) {
      const added = all.slice(raw.length, upto);
      raw = all.slice(0, upto);
      items = [...items, ...itemsFromEntries(added)];
      const total = meter.measure(items).total;
      const window = Math.max(400, Math.floor(total * (0.6 + r() * 0.8)));
      const result = await compact({
        items,
        meter,
        summarizer,
        options: {
          budget: { contextWindow: window, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 },
          trigger: 'auto',
          keepRecentSteps,
          force: r() < 0.3,
          approximateSummaryTokens: 200,
        },
      });
      const where = `seed ${seed}, window ${window}, keep ${keepRecentSteps}`;
      if (result.status.kind === 'applied') {
        applied++;
        assert.ok(
          result.tokensAfter < result.tokensBefore,
          `invariant 5 (${where}): ${result.tokensBefore} → ${result.tokensAfter}`,
        );
        for (const cp of result.checkpoints)
          assert.ok(cp.tokensAfter < cp.tokensBefore, `checkpoint shrinks (${where})`);
        items = result.context;
        checkpoints.push(...result.checkpoints);
      } else {
        assert.deepEqual(
          result.context.map((i) => i.id),
          items.map((i) => i.id),
          `unchanged when not applied (${where})`,
        );
      }
      const violations = checkContext(items, raw, { keepRecentSteps });
      assert.deepEqual(violations, [], `invariants (${where}): ${violations.map((v) => v.message).join('; ')}`);
    }
    if (checkpoints.length > 0 && r() < 0.5) {
      const target = checkpoints[Math.floor(r() * checkpoints.length)];
      const back = undoCheckpoint(items, checkpoints, target.id);
      undone++;
      assert.ok(back.undone.includes(target.id));
      assert.deepEqual(
        coveredIds(back.items),
        raw.map((e) => e.id),
        `undo restores coverage (seed ${seed})`,
      );
      assert.deepEqual(checkContext(back.items, raw, { keepRecentSteps }), [], `invariants after undo (seed ${seed})`);
    }
  }
  console.log(`applied ${applied}, undone ${undone}`);
  assert.ok(applied > CASES / 4, `enough cases compacted to mean something: ${applied}`);
  assert.ok(undone > CASES / 20, `enough undos: ${undone}`);
});
