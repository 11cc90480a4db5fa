/**
 * The latest plan's items carried out after it was written read as done: an item is done when a
 * later message of the agent's that names its code names edits a file the ledger lists as changed.
 * A plan whose items were all carried out is never shown as pending; an item nothing carried out
 * stays unmarked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { planProgress } from '../../src/compaction/summary/plan-progress';
import type { ChatMessage } from '../../src/compaction/types';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);
const FILE = '/testbed/sklearn/utils/_set_output.py';

const PLAN: Step = {
  say: [
    'The issue is confirmed. We need to:',
    '1. Add a dtypes parameter to `_wrap_in_pandas_container`',
    '2. Pass the original dtypes from `_wrap_data_with_container`',
    '3. Update `_SetOutputMixin.set_output` to accept `preserve_dtypes`',
  ].join('\n'),
};
const EDITS: Step[] = [
  {
    tool: 'edit',
    path: FILE,
    old: 'def _wrap_in_pandas_container(data):',
    new: 'def _wrap_in_pandas_container(data, dtypes=None):',
  },
  {
    tool: 'edit',
    path: FILE,
    old: 'return _wrap_in_pandas_container(data)',
    new: 'return _wrap_data_with_container(method, data, dtypes)',
  },
  {
    tool: 'edit',
    path: FILE,
    old: 'def set_output(self, *, transform=None):',
    new: 'def set_output(self, *, transform=None, preserve_dtypes=False):',
  },
];

function planLine(format: keyof typeof WRITERS, steps: Step[]): string {
  const { write, file } = WRITERS[format];
  const entries = importTranscriptTextSync(write(steps), file).entries;
  const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(itemsFromEntries(entries), 6000);
  return /^- Latest plan or to-do list.*$/m.exec(summary)?.[0] ?? summary;
}

for (const format of ['swe-agent', 'claude-code', 'openai-chat'] as const) {
  test(`${format}: a plan whose items were all carried out later reads as done`, () => {
    const line = planLine(format, [
      { user: 'preserve dtypes in the pandas output' },
      { tool: 'read', path: FILE, output: `def _wrap_in_pandas_container(data):\n${filler(20)}` },
      PLAN,
      ...EDITS,
      { tool: 'bash', command: 'python /testbed/reproduce.py', output: 'float16 category' },
    ]);
    assert.match(line, /^- Latest plan or to-do list \(every item done since it was written\): /, line);
    assert.equal(line.match(/\[done since\]/g)?.length, 3, line);
  });

  test(`${format}: an item nothing carried out stays unmarked`, () => {
    const line = planLine(format, [
      { user: 'preserve dtypes in the pandas output' },
      { tool: 'read', path: FILE, output: `def _wrap_in_pandas_container(data):\n${filler(20)}` },
      PLAN,
      ...EDITS.slice(0, 2),
      { tool: 'bash', command: 'python /testbed/reproduce.py', output: 'float64 float64' },
    ]);
    assert.match(line, /^- Latest plan or to-do list \(2 of 3 items done\): /, line);
    assert.match(line, /`_SetOutputMixin\.set_output` to accept `preserve_dtypes`$/, line);
  });
}

test('a to-do list written by a tool with every item completed is not counted one short', () => {
  const plan =
    '(TodoWrite) 1. [completed] Read the spec | 2. [completed] Write the tests | 3. [completed] Fix the parser';
  assert.deepEqual(
    { items: planProgress(plan, [], new Set()).items, done: planProgress(plan, [], new Set()).done },
    { items: 3, done: 3 },
    'the first item, after the tool name, is marked done too',
  );
  const todos = ['Read the spec', 'Write the tests', 'Fix the parser'].map((content) => ({
    content,
    status: 'completed',
  }));
  const messages: ChatMessage[] = [
    { role: 'user', content: 'fix the parser and its tests' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'TodoWrite', arguments: JSON.stringify({ todos }) } },
      ],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'Todos have been modified successfully.' },
    { role: 'assistant', content: `All three are done. ${filler(10)}` },
  ];
  const items = itemsFromEntries(messages.map((message, i) => ({ id: `m${i}`, message })));
  const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 6000);
  const line = /^- Latest plan or to-do list.*$/m.exec(summary)?.[0] ?? summary;
  assert.doesNotMatch(line, /items done|done since/, line);
  assert.match(line, /\[completed\] Read the spec|all 3 items finished/, line);
});
