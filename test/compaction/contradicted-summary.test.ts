/**
 * A model's summary that says the work is done while the tool results show failures still open:
 * the failures stay listed whole however small the appendix (successes are left out first), a
 * correction line written by the product names them, and the checkpoint's scorecard flags the
 * contradiction. Recorded in the product's own session format (its tool host's `edit_file` and
 * `run_command`, success flags in `meta.toolOk`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { itemsFromEntries } from '../../src/compaction/context';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { compact } from '../../src/compaction/rewrite/compactor';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { CORRECTION_PREFIX, finalizeSummary } from '../../src/compaction/summary/summary-checks';
import { scorecardDetails, scorecardLine } from '../../src/compaction/retention/scorecard';
import type { ChatMessage, Entry, Summarizer } from '../../src/compaction/types';
import { quarterCounter } from '../support/generate';

const meter = new TokenMeter({ counter: quarterCounter });
const FALSE_DONE =
  '## Summary\nThe user asked to add DEFAULT_TIMEOUT_MS to src/models/http.ts. The agent added the constant and verified it with grep (TYPECHECK OK). All work is complete; nothing remains.';
// A check that fails (a search that finds nothing answers "no" and is no failure: retention/outcome.ts).
const GREP = 'npx tsc --noEmit -p . && echo TYPECHECK OK';

/** The product's own session: reads that succeed, an edit that fails, a check that fails, a claim of done. */
function session(failing = true): Entry[] {
  const out: Entry[] = [];
  let n = 0;
  const push = (message: ChatMessage, toolOk?: boolean) =>
    out.push({ id: `e${n++}`, message, ...(toolOk === undefined ? {} : { meta: { toolOk } }) });
  const call = (id: string, name: string, args: unknown, result: string, ok: boolean) => {
    push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
    });
    push({ role: 'tool', tool_call_id: id, content: result }, ok);
  };
  push({
    role: 'user',
    content: 'read the model files again and add the timeout DEFAULT_TIMEOUT_MS to src/models/http.ts',
  });
  if (failing)
    call(
      'e1',
      'edit_file',
      { path: 'src/models/http.ts', old_text: 'const', new_text: 'export const DEFAULT_TIMEOUT_MS = 30000;\nconst' },
      'Error: old_text occurs 2 times in src/models/http.ts; add surrounding lines or set replace_all.',
      false,
    );
  if (failing) call('c1', 'run_command', { command: GREP }, 'exit code 2', false);
  for (let k = 0; k < 12; k++)
    call(
      `r${k}`,
      'read_file',
      { path: `src/models/helper-${k}.ts` },
      `export const helper${k} = ${k};\n`.repeat(30),
      true,
    );
  push({ role: 'assistant', content: 'Done. I added DEFAULT_TIMEOUT_MS to src/models/http.ts and checked it.' });
  for (let k = 0; k < 3; k++) {
    push({ role: 'user', content: `quick question ${k} - where are the model helpers?` });
    push({ role: 'assistant', content: `Quick answer: in src/models. ${'The helpers live there. '.repeat(60)}` });
  }
  push({ role: 'user', content: 'quick status check after the summary' });
  return out;
}

const model = (text: string): Summarizer => ({
  name: 'model',
  summarize: () =>
    Promise.resolve({ text, model: 'scripted', usage: { calls: 1, promptTokens: 100, completionTokens: 40 } }),
});

test('own host: failures stay whole in a small appendix; successes are left out first', () => {
  const items = itemsFromEntries(session()).slice(0, 29);
  const { text, contradicted } = finalizeSummary(FALSE_DONE, items, { maxAppendixChars: 700 });
  assert.match(text, /edit_file[^\n]*— error: Error: old_text occurs 2 times in src\/models\/http\.ts/, text);
  assert.match(text, /run_command[^\n]*TYPECHECK OK[^\n]*— error/, text);
  assert.doesNotMatch(text, /characters clipped/, text);
  assert.match(text, /earlier calls not listed \(\d+ ok, 0 error\)/, text);
  assert.deepEqual(contradicted, ['edit_file src/models/http.ts', GREP]);
});

test('own host: a completion claim beside open failures gets a correction line; a claim with none open gets none', () => {
  const items = itemsFromEntries(session()).slice(0, 29);
  const { text } = finalizeSummary(FALSE_DONE, items, { maxAppendixChars: 700 });
  const note = text.split('\n').find((l) => l.startsWith(CORRECTION_PREFIX));
  assert.ok(note, text);
  assert.match(note, /`edit_file src\/models\/http\.ts` \(Error: old_text occurs 2 times/);
  assert.ok(note.includes(`\`${GREP}\``), note);
  // The same claim without the failing calls: nothing to correct.
  const clean = finalizeSummary(FALSE_DONE, itemsFromEntries(session(false)).slice(0, 25), {});
  assert.equal(clean.contradicted.length, 0);
  assert.ok(!clean.text.includes(CORRECTION_PREFIX), clean.text);
  // Prose that claims no completion is not corrected.
  const honest = finalizeSummary('## Summary\nThe edit of src/models/http.ts failed; retry it.', items, {});
  assert.equal(honest.contradicted.length, 0);
});

test('own host: the checkpoint of a summary contradicting the tool results is flagged', async () => {
  const items = itemsFromEntries(session());
  const total = items.reduce((n, i) => n + meter.countMessage(i.message), 0);
  const r = await compact({
    items,
    meter,
    summarizer: model(FALSE_DONE),
    options: {
      budget: { contextWindow: Math.ceil(total * 1.25), reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 },
      trigger: 'manual',
      force: true,
    },
  });
  assert.ok('context' in r && 'checkpoints' in r, 'compacted');
  const summary = r.context.find((i) => i.kind === 'summary');
  assert.ok(summary);
  const text = textWithPlaceholders(summary.message.content);
  assert.ok(text.includes(CORRECTION_PREFIX), text);
  assert.match(text, /old_text occurs 2 times/, text);
  const card = r.checkpoints.find((c) => c.strategy === 'summary')?.retention;
  assert.ok(card?.contradicted?.length, 'the scorecard flags the contradiction');
  assert.match(scorecardLine(card), /^the summary contradicts the tool results/);
  assert.match(scorecardDetails(card)[0], /edit_file src\/models\/http\.ts/);
});
