/**
 * The gauge counts text an agent's harness wrote into the current task's user messages (Cline's
 * environment details, Claude Code's system reminders) under its own heading, not as the user's
 * current task, in the full recount and the running tally alike.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { REPLY_PRIMING_TOKENS, TokenMeter } from '../../src/compaction/meter/meter';
import { budgetSnapshot, startsTask } from '../../src/service/meter/budget-view';
import { ContextTally } from '../../src/service/meter/tally';
import type { BudgetConfig, ContextItem } from '../../src/compaction/types';
import { WRITERS, type Step } from '../support/recordings';

const budget: BudgetConfig = { contextWindow: 200_000, reservedOutput: 1000, compactAt: 0.8, compactTo: 0.5 };
const REMINDER = `<system-reminder>\n${'The workspace has these open files and diagnostics. '.repeat(60)}\n</system-reminder>`;
const typed = 'Fix the date parser in src/parse.ts and run the tests.';

for (const format of ['cline', 'claude-code'] as const) {
  test(`${format}: harness text in the current task is counted as harness, the typed request as the task`, () => {
    // Cline appends its environment details to every user turn itself; Claude Code's reminder is added here.
    const steps: Step[] = [
      { user: 'Read the README.' },
      { tool: 'read', path: 'README.md', output: '# parser' },
      { user: format === 'claude-code' ? `${typed}\n${REMINDER}` : typed },
      { tool: 'bash', command: 'npm test', output: 'ok', exit: 0 },
    ];
    const { write, file } = WRITERS[format];
    const items = itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
    const meter = new TokenMeter({ model: 'gpt-4o' });
    const snapshot = budgetSnapshot(items, [], meter, budget, 'gpt-4o');
    const b = snapshot.breakdown;
    assert.ok(b.harness > 0, `harness ${b.harness}`);
    const request = items.filter((item) => startsTask(item)).at(-1)!;
    assert.match(JSON.stringify(request.message.content), /Fix the date parser/);
    // The typed request is the task's; what the harness wrote into it is not.
    const requestTokens = meter.countMessage(request.message);
    assert.ok(
      b.currentTask < requestTokens + 200 &&
        b.harness >= meter.countText(format === 'cline' ? '<environment_details>' : REMINDER) - 5,
      JSON.stringify(b),
    );
    const tally = new ContextTally(new TokenMeter({ model: 'gpt-4o' }));
    tally.sync(items);
    assert.deepEqual(tally.snapshot([], budget, 'gpt-4o').breakdown, b, 'the running tally agrees');
  });
}

test('a user message that holds harness text alone is counted as harness whole', () => {
  const items: ContextItem[] = [
    { id: 'u1', kind: 'raw', covers: ['u1'], message: { role: 'user', content: `<task>\n${typed}\n</task>` } },
    { id: 'a1', kind: 'raw', covers: ['a1'], message: { role: 'assistant', content: 'Reading the parser.' } },
    {
      id: 'u2',
      kind: 'raw',
      covers: ['u2'],
      message: { role: 'user', content: '<environment_details>\n# Current Time\n1/1/2026\n</environment_details>' },
    },
  ];
  const meter = new TokenMeter({ model: 'gpt-4o' });
  const b = budgetSnapshot(items, [], meter, budget, 'gpt-4o').breakdown;
  // (The gauge's rounding and the reply's priming tokens go to its largest category.)
  const perItem = meter.read(items, []).perItem;
  assert.ok(
    b.harness >= perItem[2] - REPLY_PRIMING_TOKENS,
    `the environment-only message is harness: ${JSON.stringify(b)}`,
  );
  assert.ok(b.harness <= perItem[2] + REPLY_PRIMING_TOKENS, JSON.stringify(b));
});
