/**
 * The service's running tally equals a full recount (`budgetSnapshot` over a meter calibrated the
 * same way) after every step of random sequences of appends, usage reports, compactions, restores
 * and pins.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { compact } from '../../src/compaction/rewrite/compactor';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { itemsFromEntries } from '../../src/compaction/context';
import type { BudgetConfig, ContextItem, ToolSchema } from '../../src/compaction/types';
import { ConversationState } from '../../src/service/session/conversation-state';
import { ContextTally } from '../../src/service/meter/tally';
import { budgetSnapshot } from '../../src/service/meter/budget-view';
import { rng } from '../support/generate';
import { workSession } from '../support/work-session';

const tools: ToolSchema[] = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
    },
  },
];
const budget: BudgetConfig = { contextWindow: 3000, reservedOutput: 200, compactAt: 0.8, compactTo: 0.5 };

test('the running tally equals a full recount after random appends, usage reports, compactions, restores and pins', async () => {
  for (let seed = 1; seed <= 12; seed++) {
    const r = rng(seed);
    const source = workSession(seed, 120);
    const meter = new TokenMeter({ model: 'gpt-4o' });
    const reference = new TokenMeter({ model: 'gpt-4o' });
    const summarizer = new ExtractiveSummarizer((t) => meter.countText(t), { lineAdditive: true });
    const session = new ConversationState();
    const tally = new ContextTally(meter);
    let sent: ContextItem[] = [];
    let next = 0;
    const ops: string[] = [];
    const check = () => {
      tally.sync(session.items);
      const want = budgetSnapshot(session.items, tools, reference, budget, 'gpt-4o');
      const got = tally.snapshot(tools, budget, 'gpt-4o');
      assert.deepEqual(got, want, `seed ${seed} after ${ops.slice(-4).join(', ')}`);
      assert.equal(tally.read(tools).total, reference.read(session.items, tools).total);
    };
    for (let step = 0; step < 90 && next < source.length; step++) {
      const roll = r();
      if (roll < 0.55) {
        const entry = source[next++];
        session.append(entry);
        tally.sync(session.items);
        tally.syncEntries(session.entries);
        ops.push('append');
      } else if (roll < 0.72) {
        // A model call: the request is taken, then the provider reports usage (sometimes implausible).
        tally.sync(session.items);
        tally.markSent(tools);
        sent = [...session.items];
        const estimate = reference.measure(sent, tools).total;
        const reading = tally.sentReading();
        assert.equal(reading.tokens, estimate);
        const raw = itemsFromEntries(session.entries.slice(0, session.entryCountAt(sent)));
        assert.equal(reading.withoutCompaction, reference.measure(raw, tools).total);
        const reported = Math.round(estimate * (r() < 0.15 ? 3 : 0.9 + r() * 0.3));
        const got = tally.calibrate(reported);
        const want = reference.calibrate(reported, sent, tools);
        assert.deepEqual(got, want);
        ops.push(`usage ${reported}/${estimate}`);
      } else if (roll < 0.85) {
        const result = await compact({
          items: session.items,
          tools,
          meter,
          summarizer,
          options: { budget, trigger: 'manual', force: true, all: r() < 0.5, noCollapse: r() < 0.5 },
        });
        if (result.status.kind !== 'applied') continue;
        const { next: state } = session.planCommit(result, new Date(0).toISOString());
        session.apply(state);
        tally.rewrite(session.items, {
          removed: result.checkpoints.flatMap((c) => c.replaced),
          added: result.checkpoints.flatMap((c) => c.inserted),
        });
        ops.push('compact');
      } else if (roll < 0.93) {
        const open = session.checkpoints.filter((c) => !c.restored);
        if (open.length === 0) continue;
        const target = open[Math.floor(r() * open.length)];
        const { next: state, event } = session.planRestore(target.id, new Date(0).toISOString());
        const undone = session.checkpoints.filter((c) => event.undone.includes(c.id));
        session.apply(state);
        tally.rewrite(session.items, {
          removed: undone.flatMap((c) => c.inserted),
          added: undone.flatMap((c) => c.replaced),
        });
        ops.push('restore');
      } else {
        const raw = session.items.filter((i) => i.kind === 'raw');
        if (raw.length === 0) continue;
        const item = raw[Math.floor(r() * raw.length)];
        session.apply(session.planPin(item.id, !item.pinned));
        tally.rewrite(session.items, { removed: [], added: [] });
        ops.push('pin');
      }
      check();
    }
    assert.ok(
      ops.includes('compact') && ops.includes('append'),
      `seed ${seed} ran ${[...new Set(ops.map((o) => o.split(' ')[0]))].join(', ')}`,
    );
  }
});

test('the gauge snapshot is computed once per change: the same frozen object until an append, a usage report or a rewrite', () => {
  const source = workSession(3, 20);
  const meter = new TokenMeter({ model: 'gpt-4o' });
  const session = new ConversationState();
  const tally = new ContextTally(meter);
  for (const entry of source.slice(0, 8)) session.append(entry);
  tally.sync(session.items);
  const first = tally.snapshot(tools, budget, 'gpt-4o');
  assert.equal(tally.snapshot(tools, budget, 'gpt-4o'), first, 'nothing changed: the same snapshot');
  assert.ok(
    Object.isFrozen(first) && Object.isFrozen(first.breakdown) && Object.isFrozen(first.warnings),
    'shared snapshots are frozen',
  );
  assert.throws(() => {
    (first.breakdown as { history: number }).history = 0;
  }, TypeError);

  assert.notEqual(tally.snapshot(tools, budget, 'gpt-4o', ['a note']), first, 'another warning: another snapshot');
  assert.notEqual(tally.snapshot([], budget, 'gpt-4o'), first, 'other tools: another snapshot');

  session.append(source[8]);
  tally.sync(session.items);
  const appended = tally.snapshot(tools, budget, 'gpt-4o');
  assert.notEqual(appended, first);
  assert.ok(appended.used > first.used, 'the append is in the new snapshot');

  tally.markSent(tools);
  tally.calibrate(appended.used + 50);
  const calibrated = tally.snapshot(tools, budget, 'gpt-4o');
  assert.notEqual(calibrated, appended);
  assert.equal(calibrated.used, appended.used + 50, 'the usage report is in the new snapshot');

  session.apply(session.planPin(session.items[1].id, true));
  tally.rewrite(session.items, { removed: [], added: [] });
  assert.notEqual(tally.snapshot(tools, budget, 'gpt-4o'), calibrated, 'a rewrite: another snapshot');
});
