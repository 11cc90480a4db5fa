/**
 * The compaction that fits a recording continued in a new task (trigger `continue`) aims at
 * `compactTo`, as a normal compaction does, instead of summarising everything eligible as Compact
 * Conversation does; and a summary the user edited by hand before applying it is carried into the
 * new task as written, unless with what is never summarised it would fill the target.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { text } from '../../src/demo/modelserver/replies';
import type { ContextItem, Entry } from '../../src/compaction/types';
import { describeOutcome } from '../../src/service/compaction/outcome';
import { editedSummaryIds } from '../../src/service/compaction/compactions';
import { serviceFixture, StubSummarizer } from './fixtures';

const EDITED = 'EDITED BY THE USER: the parser keeps its old grammar; never touch lexer.ts.';

/** `count` recorded turns from turn `first` on, each a user request and an answer of about 250 tokens. */
function turns(first: number, count: number): Entry[] {
  const out: Entry[] = [];
  for (let t = first; t < first + count; t++) {
    const words = (tag: string) => Array.from({ length: 60 }, (_, i) => `${tag}w${i}`).join(' ');
    out.push({ id: `u${t}`, message: { role: 'user', content: `Step ${t}: ${words(`u${t}`)}` } });
    out.push({ id: `a${t}`, message: { role: 'assistant', content: `Done ${t}: ${words(`a${t}`)}` } });
  }
  return out;
}

const raw = (entry: Entry): ContextItem => ({ id: entry.id, kind: 'raw', covers: [entry.id], message: entry.message });

/**
 * A service holding a recording continued in a new task: a summary edited by hand (of `earlier`
 * turns but the last) and then `later` turns more, the context between `compactAt` and the input budget (16k window,
 * 1k reserved: trigger 12k, target 7.5k tokens).
 */
async function continuedRecording(t: TestContext, earlier: number, later: number, editedText = EDITED) {
  const summarizer = new StubSummarizer('SUMMARY of the span.');
  const fx = await serviceFixture(() => text('ok'), { window: 16_000, summarizer });
  t.after(fx.cleanup);
  const first = [
    { id: 's0', message: { role: 'system', content: 'You are a recorded agent.' } } as Entry,
    ...turns(0, earlier),
  ];
  await fx.service.importTranscript({ source: 'recording', entries: first });
  const proposed = await fx.service.compactNow({ preview: true });
  assert.equal(proposed.status.kind, 'proposed', describeOutcome(proposed.status));
  const applied = await fx.service.applyPreview([editedText]);
  assert.equal(applied.status.kind, 'applied', describeOutcome(applied.status));
  const { entries, context, pinned } = fx.service.getTranscript();
  const more = turns(earlier, later);
  await fx.service.importTranscript({
    source: 'recording',
    entries: [...entries, ...more],
    state: { context: [...context, ...more.map(raw)], checkpoints: fx.service.getCheckpoints(), pinned },
  });
  return fx;
}

test('continuing a recording compacts to compactTo, keeping the summary edited by hand as written', async (t) => {
  const fx = await continuedRecording(t, 20, 56);
  const budget = fx.service.getBudget();
  const target = 0.5 * budget.inputBudget;
  assert.ok(budget.used > 0.8 * budget.inputBudget && budget.used < budget.inputBudget, `${budget.used} tokens`);
  const [edited] = editedSummaryIds(fx.service.getCheckpoints());
  assert.ok(edited, 'the edited summary is known by its id');

  const outcome = await fx.service.compactNow({ trigger: 'continue' });
  assert.equal(outcome.status.kind, 'applied', describeOutcome(outcome.status));
  // As deep as a normal compaction: at the target, not far below it.
  assert.ok(
    outcome.tokensAfter <= target && outcome.tokensAfter > 0.75 * target,
    `${outcome.tokensAfter} tokens after, target ${target}`,
  );
  const item = fx.service.getTranscript().context.find((i) => i.id === edited);
  assert.ok(item, 'the edited summary is still in the context');
  assert.ok(String(item.message.content).includes(EDITED), 'as the user wrote it');
  assert.ok(outcome.checkpoints.every((c) => c.trigger === 'continue'));
});

test('a summary edited by hand that would fill the target is summarized again when the new task would not fit otherwise', async (t) => {
  // An edited summary larger than the target (7.5k tokens): kept as written, no compaction could reach it.
  const huge = `${EDITED}\n${Array.from({ length: 6_500 }, (_, i) => `note${i}`).join(' ')}`;
  const fx = await continuedRecording(t, 80, 4, huge);
  const [edited] = editedSummaryIds(fx.service.getCheckpoints());
  const outcome = await fx.service.compactNow({ trigger: 'continue' });
  assert.equal(outcome.status.kind, 'applied', describeOutcome(outcome.status));
  assert.ok(
    outcome.tokensAfter < fx.service.getBudget().inputBudget,
    `${outcome.tokensBefore} → ${outcome.tokensAfter} tokens, ${fx.service.getCheckpoints().at(-1)?.strategy}`,
  );
  assert.equal(
    fx.service.getTranscript().context.some((i) => i.id === edited),
    false,
  );
});
