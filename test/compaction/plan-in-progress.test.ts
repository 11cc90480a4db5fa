/**
 * An edit is no evidence that a to-do item is finished: an item the agent left in progress (or
 * pending) whose code or file was edited since reads "in progress; edited X since", never done, and
 * the next step names it ("finish step 2 (…), then step 3 (…)"). An item is done since only when a
 * later to-do list of the agent's marks it completed (or the file it says to create was created).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';

const PLAN: Step = {
  plan: [
    ['Inspect the local chat handler', true],
    ['Update `handleLocalChat` in src/chat.ts to send OpenAI-compatible requests', 'in progress'],
    ['Run the type check and review the change', false],
  ],
};
const STEPS: Step[] = [
  { user: 'make the chat handler talk to LM Studio' },
  { tool: 'read', path: '/w/src/chat.ts', output: 'export const handleLocalChat = async () => ollama()\n' },
  PLAN,
  {
    tool: 'edit',
    path: '/w/src/chat.ts',
    old: 'export const handleLocalChat = async () => ollama()',
    new: 'export const handleLocalChat = async () => lmStudio()',
  },
];

function summaryOfSteps(format: keyof typeof WRITERS, steps: Step[], then: Step[] = []): string {
  const { write, file } = WRITERS[format];
  const all = itemsFromEntries(importTranscriptTextSync(write([...steps, ...then]), file).entries);
  const span = itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
  const after = all.slice(span.length);
  return new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(span, 6000, undefined, after);
}

const planLine = (summary: string) => /^- (?:Latest )?[Pp]lan or to-do list.*$/m.exec(summary)?.[0];

for (const format of ['codex', 'claude-code', 'cline'] as const) {
  test(`${format}: an item in progress whose file was edited since stays in progress, and is the next step`, () => {
    const summary = summaryOfSteps(format, STEPS);
    const line = planLine(summary);
    assert.ok(line, summary);
    const item = line.split(' | ').find((p) => p.includes('handleLocalChat'));
    assert.ok(item, line);
    assert.doesNotMatch(item, /done/, item);
    assert.match(item, /in progress; edited chat\.ts since/, item);
    assert.doesNotMatch(line, /\b[23] of 3 items done/, line);
    const next = /^- Next step: .*$/m.exec(summary)?.[0] ?? summary;
    assert.match(next, /finish step 2 .*handleLocalChat.*then step 3 \(Run the type check/, next);
  });

  test(`${format}: items a later to-do list marks completed read done since, an edit or none`, () => {
    const check = (summary: string) => {
      const line = planLine(summary);
      assert.ok(line, summary);
      for (const words of ['handleLocalChat', 'Run the type check']) {
        const item = line.split(' | ').find((p) => p.includes(words));
        assert.match(item ?? line, /\[done since\]/);
      }
    };
    if (format === 'cline') {
      // Cline writes its checklist with its next tool call: the list rides on the check it runs.
      const summary = summaryOfSteps(format, STEPS, [
        {
          plan: [
            ['Inspect the local chat handler', true],
            ['Update `handleLocalChat` in src/chat.ts to send OpenAI-compatible requests', true],
            ['Run the type check and review the change', true],
          ],
        },
        { tool: 'bash', command: 'npx tsc --noEmit', output: '' },
      ]);
      return check(summary);
    }
    const summary = summaryOfSteps(format, STEPS, [
      {
        plan: [
          ['Inspect the local chat handler', true],
          ['Update `handleLocalChat` in src/chat.ts to send OpenAI-compatible requests', true],
          ['Run the type check and review the change', true],
        ],
      },
    ]);
    check(summary);
  });
}
