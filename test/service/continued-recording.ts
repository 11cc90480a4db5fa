/**
 * A recording compacted at a large window, a line typed by hand into its summary before applying
 * it, then continued in a new task at a smaller window: the shape of a Continue in a New Task.
 */
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { text } from '../../src/demo/modelserver/replies';
import type { Entry } from '../../src/compaction/types';
import { describeOutcome } from '../../src/service/compaction/outcome';
import { serviceFixture } from './fixtures';

/** `count` recorded turns, each a user request and an answer of about 250 tokens. */
export function turns(count: number): Entry[] {
  const out: Entry[] = [];
  for (let t = 0; t < count; t++) {
    const words = (tag: string) => Array.from({ length: 60 }, (_, i) => `${tag}w${i}`).join(' ');
    out.push({ id: `u${t}`, message: { role: 'user', content: `Step ${t}: ${words(`u${t}`)}` } });
    out.push({ id: `a${t}`, message: { role: 'assistant', content: `Done ${t}: ${words(`a${t}`)}` } });
  }
  return out;
}

export const NOTE = 'NOTE typed by hand: the harbour ids stay stable across the port.';

/**
 * A recording compacted at a large window with a line typed into its summary, then continued in a
 * new task (its own service) at `window` tokens, with a system prompt of `prompt` characters.
 */
export async function continuedAtSmallerWindow(
  t: TestContext,
  options: { recorded: number; count: number; lastWords: number; window: number; prompt: number },
) {
  const big = await serviceFixture(() => text('ok'), { window: options.recorded });
  t.after(big.cleanup);
  const last = `Please port this: ${Array.from({ length: options.lastWords }, (_, i) => `line${i}`).join(' ')}`;
  await big.service.importTranscript({
    source: 'recording',
    entries: [
      { id: 's0', message: { role: 'system', content: 'You are a recorded agent.' } },
      ...turns(options.count),
      { id: 'last', message: { role: 'user', content: last } },
    ],
  });
  const proposed = await big.service.compactNow({ preview: true });
  assert.equal(proposed.status.kind, 'proposed', describeOutcome(proposed.status));
  const summaries = proposed.preview!.summaries;
  const edited = summaries.map((s, i) => (i === summaries.length - 1 ? `${s.summary}\n${NOTE}` : undefined));
  const applied = await big.service.applyPreview(edited);
  assert.equal(applied.status.kind, 'applied', describeOutcome(applied.status));
  const { entries, context, checkpoints, pinned } = big.service.exportTranscript();
  const fx = await serviceFixture(() => text('ok'), {
    window: options.window,
    reserved: Math.round(options.window / 10),
    systemPrompt: 'You are an agent. '.repeat(Math.ceil(options.prompt / 18)),
  });
  t.after(fx.cleanup);
  await fx.service.importTranscript({ source: 'recording', entries, state: { context, checkpoints, pinned } });
  return fx;
}
