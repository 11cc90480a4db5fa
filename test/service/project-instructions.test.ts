/**
 * Project instructions: the workspace's AGENTS.md, CLAUDE.md and .github/copilot-instructions.md go
 * into the context after the system prompt, are their own category in the gauge, are never
 * summarised, and are re-read from disk after a compaction when they changed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ChatMessage, Entry } from '../../src/compaction/types';
import { INSTRUCTIONS_ENTRY_ID } from '../../src/service/project-instructions';
import { text, toolCalls } from '../../src/demo/modelserver/replies';
import type { ChatRequestBody, Responder } from '../../src/demo/modelserver/wire';
import { filler, serviceFixture, StubSummarizer } from './fixtures';
import { describeOutcome } from '../../src/service/compaction/outcome';

const AGENTS = '# Rules\n\nRun `npm test` before every commit.\n';
const CLAUDE = 'Never edit generated files under dist/.\n';
const COPILOT = 'Use tabs in Makefiles.\n';
const files = {
  'AGENTS.md': AGENTS,
  'CLAUDE.md': CLAUDE,
  '.github/copilot-instructions.md': COPILOT,
  'src/app.ts': 'export const app = 1;\n',
};

/** Each task reads src/app.ts, then answers at length (a history only a summary can shrink). */
function script(): Responder {
  const served = new Map<string, number>();
  return (body: ChatRequestBody) => {
    const messages = (body.messages ?? []) as ChatMessage[];
    const task = String([...messages].reverse().find((m) => m.role === 'user')?.content ?? '');
    const n = (served.get(task) ?? 0) + 1;
    served.set(task, n);
    if (n === 1) return toolCalls([{ id: `r-${task.length}`, name: 'read_file', arguments: '{"path":"src/app.ts"}' }]);
    return text(`Done with ${task}. ${filler(120, `answer${task.length}`)}`);
  };
}

const content = (m: ChatMessage) => (typeof m.content === 'string' ? m.content : '');

test('the instruction files go after the system prompt into every request, as their own gauge category', async (t) => {
  const fx = await serviceFixture(script(), { files, window: 64_000 });
  t.after(fx.cleanup);
  const budget = fx.service.getBudget();
  const lead = fx.service.getTranscript().context[1];
  assert.equal(lead.id, INSTRUCTIONS_ENTRY_ID);
  assert.equal(lead.message.role, 'system');
  for (const part of ['AGENTS.md', AGENTS.trim(), CLAUDE.trim(), '.github/copilot-instructions.md', COPILOT.trim()])
    assert.ok(content(lead.message).includes(part), `the instructions hold ${part}`);
  assert.equal(budget.breakdown.instructions, fx.service.meter.countMessage(lead.message));
  assert.equal(budget.breakdown.system, fx.service.meter.countMessage(fx.service.getTranscript().context[0].message));

  await fx.service.runTask('Task 1: look at the app');
  const sent = (fx.requests[0].messages ?? []) as ChatMessage[];
  assert.deepEqual(
    sent.slice(0, 2).map((m) => m.role),
    ['system', 'system'],
  );
  assert.ok(content(sent[1]).includes('Run `npm test` before every commit.'), 'the model is sent the rules');
});

test('a workspace without instruction files adds no message; the category stays empty', async (t) => {
  const fx = await serviceFixture(script(), { files: { 'src/app.ts': 'export const app = 1;\n' } });
  t.after(fx.cleanup);
  assert.equal(fx.service.getTranscript().context.length, 1, 'the system prompt only');
  assert.equal(fx.service.getBudget().breakdown.instructions, 0);
});

test('instructions are never summarised; a changed file is re-read after the compaction, an unchanged one is not', async (t) => {
  const fx = await serviceFixture(script(), { files, window: 64_000, summarizer: new StubSummarizer('SUMMARY-OK') });
  t.after(fx.cleanup);
  for (let i = 1; i <= 3; i++) await fx.service.runTask(`Task ${i}: look at the app`);
  const quiet = await fx.service.compactNow();
  assert.ok(quiet.status.kind === 'applied', describeOutcome(quiet.status));
  const after = fx.service.getTranscript().context;
  assert.equal(after[1].id, INSTRUCTIONS_ENTRY_ID, 'still the second message');
  assert.equal(after[1].kind, 'raw', 'verbatim');
  assert.ok(!quiet.checkpoints.some((c) => c.replacedIds.includes(INSTRUCTIONS_ENTRY_ID)), 'not replaced');
  assert.ok(
    !after.some((i) => i.attachedFile === 'AGENTS.md' || i.attachedFile === 'CLAUDE.md'),
    'unchanged files are not attached again',
  );

  const changed = '# Rules\n\nRun `npm run lint` before every commit, too.\n';
  writeFileSync(path.join(fx.root, 'AGENTS.md'), changed);
  for (let i = 4; i <= 6; i++) await fx.service.runTask(`Task ${i}: look at the app`);
  const outcome = await fx.service.compactNow();
  assert.ok(outcome.status.kind === 'applied', describeOutcome(outcome.status));
  const context = fx.service.getTranscript().context;
  const reread = context.filter((i) => i.attachedFile === 'AGENTS.md');
  assert.equal(reread.length, 1, 'AGENTS.md is re-read once');
  assert.ok(content(reread[0].message).includes('npm run lint'), 'with its current text');
  assert.ok(!context.some((i) => i.attachedFile === 'CLAUDE.md'), 'CLAUDE.md did not change');
  assert.equal(context[1].id, INSTRUCTIONS_ENTRY_ID, 'the first copy stays at the start');
  const budget = fx.service.getBudget();
  const expected = fx.service.meter.countMessage(context[1].message) + fx.service.meter.countMessage(reread[0].message);
  assert.ok(
    Math.abs(budget.breakdown.instructions - expected) <= Math.ceil(expected * 0.05),
    `the re-read copy counts as instructions (${budget.breakdown.instructions} vs ${expected})`,
  );
});

test('a continued recording works under this workspace’s instructions', async (t) => {
  const fx = await serviceFixture(script(), { files, window: 64_000 });
  t.after(fx.cleanup);
  const entries: Entry[] = [
    { id: 'u0', message: { role: 'user', content: 'Task 0: fix the build' } },
    { id: 'a0', message: { role: 'assistant', content: 'Fixed.' } },
  ];
  await fx.service.importTranscript({ source: 'claude-code: other.jsonl', entries });
  const { context, checkpoints, pinned } = fx.service.exportTranscript();
  await fx.service.importTranscript({
    source: 'other.jsonl',
    entries: fx.service.exportTranscript().entries,
    state: { context, checkpoints, pinned },
  });
  const items = fx.service.getTranscript().context;
  assert.deepEqual(
    items.slice(0, 3).map((i) => i.message.role),
    ['system', 'system', 'user'],
  );
  assert.equal(items[1].id, INSTRUCTIONS_ENTRY_ID);
  assert.ok(content(items[1].message).includes(CLAUDE.trim()));
  assert.ok(fx.service.getBudget().breakdown.instructions > 0);
});
