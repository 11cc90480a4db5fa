/**
 * A small budget shortens the current-work lines, never down to a label with nothing after it: a plan
 * loses its finished items first, a line whose content would be gone is dropped, and the last tool
 * call of a plan tool (its arguments a list, no value to show) is named with the list's size.
 * Recorded in Claude Code's and OpenAI chat formats (TodoWrite).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CC_BASE, WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { SECTIONS } from '../../src/compaction/summary/span-scan';

const TODOS = [
  ['Compliance audit against Section 3.1 and 3.2 of the manual', 'completed'],
  ['Add trajectory.json at the submission root', 'completed'],
  ['Scan for node_modules, caches and credentials', 'completed'],
  ['Mirror docs to the submission root', 'completed'],
  ['Build the React 18 frontend with Ant Design 5', 'in_progress'],
  ['Create frontend/Dockerfile serving built assets', 'pending'],
].map(([content, status]) => ({ content, status, activeForm: content }));

const steps: Step[] = [
  { user: 'Audit the repository against the manual, then build the frontend.' },
  { tool: 'bash', command: 'ls repo', output: 'backend\nfrontend\ndocs' },
  { tool: 'write', path: 'repo/trajectory.json', content: '{"steps": []}' },
  {
    say: `The audit passed: no caches, no credentials, docs mirrored. ${'Now the frontend pages follow. '.repeat(40)}`,
  },
];

/** The recording with a TodoWrite call and its result appended at the end (the last tool call). */
const withPlan: Record<string, () => string> = {
  'claude-code': () =>
    [
      WRITERS['claude-code'].write(steps),
      JSON.stringify({
        ...CC_BASE,
        type: 'assistant',
        uuid: 'p1',
        parentUuid: null,
        message: {
          role: 'assistant',
          id: 'rp',
          model: 'claude-x',
          content: [{ type: 'tool_use', id: 'cp', name: 'TodoWrite', input: { todos: TODOS } }],
        },
      }),
      JSON.stringify({
        ...CC_BASE,
        type: 'user',
        uuid: 'p2',
        parentUuid: 'p1',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'cp', content: 'Todos updated' }] },
      }),
    ].join('\n'),
  'openai-chat': () => {
    const doc = JSON.parse(WRITERS['openai-chat'].write(steps)) as { messages: unknown[] };
    doc.messages.push(
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'cp', type: 'function', function: { name: 'TodoWrite', arguments: JSON.stringify({ todos: TODOS }) } },
        ],
      },
      { role: 'tool', tool_call_id: 'cp', content: 'Todos updated' },
    );
    return JSON.stringify(doc);
  },
};

/** The current-work lines of `notes` (the note of what was left out aside: it names lines, it holds none). */
const currentLines = (notes: string) =>
  (notes.split(`${SECTIONS.current}\n`)[1] ?? '')
    .split('\n\n')[0]
    .split('\n')
    .filter((l) => l && !l.startsWith('- … left out here'));

for (const [format, text] of Object.entries(withPlan)) {
  test(`${format}: at every small budget, no current-work line is left as a label with nothing after it`, () => {
    const items = itemsFromEntries(importTranscriptTextSync(text(), WRITERS[format as 'claude-code'].file).entries);
    const summarizer = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4));
    let planSeen = false;
    for (let budget = 60; budget <= 600; budget += 20) {
      const notes = summarizer.notes(items, budget);
      for (const line of currentLines(notes)) {
        // The plan's content: its open items, never its number and marker alone.
        assert.doesNotMatch(line, /\(TodoWrite\)\s*(\d+\.\s*)?…?$/, `${budget}: ${line}`);
        assert.doesNotMatch(line, /:\s*"?…?$/, `${budget}: ${line}`);
        if (/plan or to-do list/i.test(line)) {
          planSeen = true;
          assert.match(
            line,
            /Build the React 18 frontend|finished items? not listed|Compliance audit/,
            `${budget}: ${line}`,
          );
        }
      }
      assert.match(notes, /^- Last tool call: TodoWrite todos=\[6 items\]$/m, `${budget}:\n${notes}`);
    }
    assert.ok(planSeen, 'the plan line is written at some budget');
  });
}
