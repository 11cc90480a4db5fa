/** A server that serves a smaller window than configured: its first refusal stating the limit sets the session's window. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Reply } from '../../src/demo/modelserver/wire';
import { text, toolCalls } from '../../src/demo/modelserver/replies';
import { windowOriginNote } from '../../src/webview/shared/gauge-geometry';
import { filler, promptTokensOf, serviceFixture, StubSummarizer } from './fixtures';

/** OpenAI's and vLLM's wording of a refusal for length. */
const refusal = (sent: number, window: number): Reply => ({
  type: 'status',
  status: 400,
  message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${sent} tokens. Please reduce the length of the messages.`,
  code: 'context_length_exceeded',
});

function readingScript(served: number, counter: { refused: number }) {
  return (body: Parameters<typeof promptTokensOf>[0], n: number): Reply => {
    const sent = promptTokensOf(body);
    if (sent > served) return (counter.refused++, refusal(sent, served));
    const last = (body.messages ?? []).at(-1) as { role?: string; content?: unknown } | undefined;
    // Each task asks to read one file; the reply after its result closes the task.
    if (last?.role === 'user') {
      const file = /src\/f\d+\.txt/.exec(String(last.content))?.[0] ?? 'src/f1.txt';
      return toolCalls([{ id: `c${n}`, name: 'read_file', arguments: JSON.stringify({ path: file }) }]);
    }
    return text('Read it.');
  };
}

test('the first refusal stating a smaller window sets the session window: trigger, target and gauge follow it, labelled', async (t) => {
  const served = 6_000;
  const files: Record<string, string> = {};
  for (let i = 1; i <= 8; i++) files[`src/f${i}.txt`] = filler(90, `f${i}`);
  const counter = { refused: 0 };
  const log: string[] = [];
  const fx = await serviceFixture(readingScript(served, counter), {
    files,
    window: 64_000,
    reserved: 1_000,
    summarizer: new StubSummarizer('Read the earlier files; nothing else is open.'),
    log: (level, message) => log.push(`${level}: ${message}`),
    windowSource: '64,000 tokens, from settings',
  });
  t.after(fx.cleanup);
  assert.equal(fx.service.getBudget().window, 64_000);
  for (let i = 1; i <= 8; i++) {
    const outcome = await fx.service.runTask(`Read src/f${i}.txt.`);
    assert.equal(outcome.status, 'done', `task ${i}: ${String(outcome.error)}`);
  }
  assert.equal(counter.refused, 1, 'one refusal; afterwards the session compacts before the server would refuse');
  const budget = fx.service.getBudget();
  assert.equal(budget.window, served);
  assert.match(
    budget.windowSource ?? '',
    /^6,000 tokens, reported by the server when it refused a request as too long \(64,000 configured\)/,
  );
  assert.equal(windowOriginNote(budget.windowSource), ' (reported)');
  assert.ok(budget.used <= served, `gauge ${budget.used} within the served window`);
  // Compactions after the refusal fired on the session's own threshold, not on another refusal.
  const checkpoints = fx.service.getCheckpoints();
  assert.ok(
    checkpoints.some((c) => c.cause),
    'the refusal caused one compaction',
  );
  assert.ok(
    checkpoints.some((c) => !c.cause && c.trigger === 'auto'),
    'later ones were triggered by the threshold',
  );
  assert.ok(log.some((l) => /serves a 6,000-token window, smaller than the 64,000 in force/.test(l)));
  for (const body of fx.requests.slice(-3)) assert.ok(promptTokensOf(body) <= served);
});

test('a refusal stating a window not smaller than the one in force, or an implausible one, leaves the window as configured', async (t) => {
  for (const stated of [100_000, 16_000, 12]) {
    let refusedOnce = false;
    const fx = await serviceFixture(
      (body) => {
        if (!refusedOnce) {
          refusedOnce = true;
          return refusal(promptTokensOf(body), stated);
        }
        return text('ok');
      },
      { window: 16_000, reserved: 1_000, summarizer: new StubSummarizer('s') },
    );
    t.after(fx.cleanup);
    await fx.service.runTask('hello');
    assert.equal(fx.service.getBudget().window, 16_000, String(stated));
    assert.equal(fx.service.getBudget().windowSource, undefined);
  }
});
