/**
 * The first count never loads the tokenizer on the caller's thread: a session opens with a labelled
 * estimate, and the exact count follows once the table is loaded in the background.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createDeferredCounter,
  createTokenCounter,
  estimateTokens,
  isEncodingLoaded,
} from '../../src/tokenizer/tokenizer';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { text } from '../../src/demo/modelserver/replies';
import { serviceFixture } from './fixtures';
import type { BudgetSnapshot } from '../../src/service/meter/budget-types';

const SAMPLE =
  'export function parse(input: string): Result { return { ok: true, value: input.trim() }; } // 日本語のテキスト';

test('a deferred counter estimates until its table is loaded, then counts exactly, like the synchronous counter', async () => {
  assert.equal(isEncodingLoaded('cl100k_base'), false, 'this test needs a process where cl100k_base is not loaded yet');
  const counter = createDeferredCounter('cl100k_base');
  assert.equal(counter.exact, false);
  assert.equal(counter.countText(SAMPLE), estimateTokens(SAMPLE));
  const meter = new TokenMeter({ counter });
  const message = { role: 'user' as const, content: SAMPLE };
  const estimated = meter.countMessage(message);
  assert.equal(meter.exact, false);
  await counter.ready;
  assert.equal(counter.exact, true);
  const exact = createTokenCounter('cl100k_base').countText(SAMPLE);
  assert.equal(counter.countText(SAMPLE), exact);
  assert.notEqual(exact, estimateTokens(SAMPLE));
  // The estimate was not cached: the same message object now counts exactly.
  assert.equal(meter.countMessage(message), estimated - estimateTokens(SAMPLE) + exact);
});

test('a session opens with a labelled estimate; the exact count follows without a model call', async (t) => {
  const counter = createDeferredCounter('o200k_base');
  assert.equal(counter.exact, false, 'this test needs a process where o200k_base is not loaded yet');
  const budgets: BudgetSnapshot[] = [];
  // No instruction files to look for: their reads would give the table time to load before the first look.
  const fx = await serviceFixture(() => text('ok'), {
    tokenCounter: counter,
    systemPrompt: SAMPLE,
    instructionFiles: [],
  });
  t.after(fx.cleanup);
  // The exact count arrives as a budget update (the recount runs in slices after the table loads).
  const exactUpdate = new Promise<void>((resolve) =>
    fx.service.onDidChangeBudget((b) => (budgets.push(b), b.counting ? undefined : resolve())),
  );
  const first = fx.service.getBudget();
  assert.equal(first.counting, true);
  assert.equal(first.exact, false);
  await counter.ready;
  assert.equal(fx.service.getBudget().counting, true, 'still counting until the sums are recounted');
  await exactUpdate;
  const last = budgets.at(-1);
  assert.ok(last, 'a budget update once the table is loaded');
  assert.equal(last.counting, undefined);
  const meter = new TokenMeter({ counter: createTokenCounter('o200k_base') });
  const items = fx.service.getTranscript().context;
  assert.equal(last.used, meter.measure(items, fx.service.getToolSchemas()).total);
  assert.notEqual(first.used, last.used);
});
