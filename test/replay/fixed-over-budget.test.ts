/**
 * A session whose system prompt and tool schemas alone are over the input budget: no request can
 * fit, yet a tool's huge output in the newest step is still clipped (the request is as small as it
 * can be made), and the replay says once, with the figures, that the system prompt and tool schemas
 * alone are over the budget.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { replay } from '../../src/replay/replay';
import { compact } from '../../src/compaction/rewrite/compactor';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { quarterCounter } from '../support/generate';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { describeFixedOverBudget } from '../../src/compaction/plan/holders';
import { WRITERS, type Step } from '../support/recordings';

const meter = new TokenMeter({ counter: quarterCounter });
const summarizer = new ExtractiveSummarizer((t) => meter.countText(t));
const WINDOW = 2000;
const budget = { contextWindow: WINDOW, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 };
/** A system prompt of about 3,000 tokens (characters / 4): over the 2,000-token window by itself. */
const PROMPT = `You are a coding agent. ${'Follow the house rules for every change. '.repeat(290)}`;
/** A tool output of about 10,000 tokens. */
const HUGE = Array.from({ length: 2000 }, (_, k) => `FAIL test/case${k}.spec.ts`).join('\n');

const steps: Step[] = [
  { user: 'Run the test suite and tell me what fails.' },
  { tool: 'bash', command: 'npm test -- --listTests', output: 'test/a.spec.ts\ntest/b.spec.ts', exit: 0 },
  { say: 'Two test files. Running them now.' },
  { tool: 'bash', command: 'npm test', output: HUGE, exit: 1 },
  { say: 'Many cases fail.' },
];

/** `steps` written by `format`'s writer with {@link PROMPT} as the recording's system prompt. */
function recording(format: 'openhands' | 'openai-chat'): string {
  const { write } = WRITERS[format];
  if (format === 'openai-chat') return write(steps).replace('You are a coding agent.', PROMPT);
  // OpenHands records its system prompt as the first event.
  const events = JSON.parse(write(steps)) as unknown[];
  const prompt = {
    id: 'sys',
    source: 'agent',
    kind: 'SystemPromptEvent',
    system_prompt: { type: 'text', text: PROMPT },
  };
  return JSON.stringify([prompt, ...events], null, 2);
}

for (const format of ['openhands', 'openai-chat'] as const) {
  const { file } = WRITERS[format];
  const entries = () => importTranscriptTextSync(recording(format), file).entries;

  test(`${format}: with the system prompt alone over the window, a tool's huge output is still clipped`, async () => {
    // The recording ends with the huge output: it is in the newest step, which is never summarised.
    const items = itemsFromEntries(entries()).slice(0, -1);
    assert.equal(items.at(-1)?.message.role, 'tool');
    const before = meter.measure(items).total;
    const r = await compact({ items, meter, summarizer, options: { budget, trigger: 'manual', force: true } });
    assert.equal(r.status.kind, 'applied');
    const clip = r.checkpoints.find((c) => c.strategy === 'clip');
    assert.ok(clip, 'a clip checkpoint shortens the huge output');
    const context = r.context.map((i) => textWithPlaceholders(i.message.content)).join('\n');
    assert.ok(!context.includes(HUGE), 'the huge output is no longer whole');
    assert.ok(context.includes('FAIL test/case0.spec.ts'), 'its start is kept');
    assert.ok(r.tokensAfter < before - 5000, `${before} → ${r.tokensAfter}`);
  });

  test(`${format}: the replay clips the huge output and says once that the system prompt alone is over the budget`, async () => {
    const seen: number[] = [];
    const report = await replay(entries(), meter, summarizer, {
      budget,
      onFixedOverBudget: (f) => seen.push(f.call),
    });
    assert.deepEqual(seen, [1], 'said once, at the first call');
    const fixed = report.fixedOverBudget;
    assert.ok(fixed);
    assert.ok(fixed.tokens >= WINDOW && fixed.tokens < 4000, `${fixed.tokens}`);
    assert.equal(fixed.inputBudget, WINDOW);
    assert.match(
      describeFixedOverBudget(fixed.tokens, fixed.inputBudget, fixed.contextWindow, fixed.reservedOutput),
      /^the system prompt and tool schemas alone hold [\d,]+ tokens, over the 2,000 a request may carry \(the 2,000-token window less 0 reserved for the reply\), so no request can fit/,
    );
    // The call after the huge output is sent with it clipped: the system prompt and a little more.
    const last = report.calls.at(-1)!;
    assert.ok(last.unmanagedTokens > fixed.tokens + 9000, `${last.unmanagedTokens}`);
    assert.ok(last.tokens < fixed.tokens + 2500, `sent ${last.tokens} tokens`);
    assert.equal(report.violations.length, 0);
  });
}
