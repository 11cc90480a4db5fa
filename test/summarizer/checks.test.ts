/** Post-summary checks (summary-checks.ts): task list, verification result, invented quotes, per-call outcomes. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatMessage } from '../../src/compaction/types';
import {
  OUTCOMES_HEADING,
  TASK_LIST_HEADING,
  VERIFICATION_HEADING,
  callOutcomes,
  finalizeSummary,
  isErrorResult,
} from '../../src/compaction/summary/summary-checks';
import { items } from './fixtures';

function call(id: string, name: string, args: unknown): ChatMessage {
  return {
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
  };
}
function result(id: string, content: string): ChatMessage {
  return { role: 'tool', tool_call_id: id, content };
}
function count(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

test('the last task-list call is carried verbatim, exactly once, even when the model copied an older one', () => {
  const lists = [
    [
      { id: 1, status: 'todo' },
      { id: 2, status: 'todo' },
      { id: 3, status: 'todo' },
    ],
    [
      { id: 1, status: 'in-progress' },
      { id: 2, status: 'todo' },
      { id: 3, status: 'todo' },
    ],
    [
      { id: 1, status: 'done' },
      { id: 2, status: 'todo' },
      { id: 3, status: 'todo' },
    ],
    [
      { id: 1, status: 'done' },
      { id: 2, status: 'in-progress' },
      { id: 3, status: 'todo' },
    ],
    [
      { id: 1, status: 'done' },
      { id: 2, status: 'in-progress' },
      { id: 3, status: 'todo' },
    ],
  ];
  const messages: ChatMessage[] = [{ role: 'user', content: 'do the three tasks' }];
  lists.forEach((todos, i) => messages.push(call(`t${i}`, 'task_tracker', { todos }), result(`t${i}`, 'ok')));
  const last = JSON.stringify({ todos: lists[4] });
  const model = `## Work completed\nAll work was finished.\n\n${TASK_LIST_HEADING}\nt0 task_tracker:\n${JSON.stringify({ todos: lists[0] })}`;
  const out = finalizeSummary(model, items(messages));
  assert.equal(count(out.text, TASK_LIST_HEADING), 1);
  assert.equal(count(out.text, `t4 task_tracker:\n${last}`), 1);
  assert.ok(!out.text.includes(JSON.stringify({ todos: lists[0] })), 'the stale copy is replaced');
  // A second compaction folding this summary in (no task call in the new span) carries it over.
  const again = finalizeSummary('## Work completed\nMore work.', [
    { id: 's1', kind: 'summary', message: { role: 'user', content: out.text }, covers: ['m0'] },
  ]);
  assert.equal(count(again.text, last), 1);
});

test('a task-list call that only shows the list is not carried as the latest list', () => {
  const todos = [
    { title: 'Add the schema', status: 'done' },
    { title: 'Write the endpoint', status: 'todo' },
  ];
  const messages: ChatMessage[] = [
    { role: 'user', content: 'add the schema and the endpoint' },
    call('t0', 'task_tracker', { command: 'plan', task_list: todos }),
    result('t0', 'Task list has been updated with 2 item(s).'),
    call('t1', 'task_tracker', { command: 'view' }),
    result('t1', '1. [done] Add the schema'),
  ];
  const out = finalizeSummary('## Work completed\nThe schema was added.', items(messages));
  assert.equal(
    count(out.text, `t0 task_tracker:\n${JSON.stringify({ command: 'plan', task_list: todos })}`),
    1,
    out.text,
  );
  assert.ok(!out.text.includes('t1 task_tracker:'), out.text);
});

test('the latest verification result survives verbatim', () => {
  const messages: ChatMessage[] = [
    { role: 'user', content: 'fix the failing tests' },
    call('c6', 'run_tests', { command: 'npm test' }),
    result('c6', 'FAIL src/report.test.ts\n3 passed, 2 failed'),
    call('c7', 'run_tests', { command: 'npm test' }),
    result('c7', 'PASS src/report.test.ts\n42 passed, 0 failed'),
  ];
  const out = finalizeSummary('## Work completed\nThe agent fixed tests.', items(messages));
  const section = out.text.slice(out.text.indexOf(VERIFICATION_HEADING));
  assert.match(section, /c7 run_tests .* — ok\n(?:.*\n)*.*42 passed, 0 failed/);
  assert.ok(!section.split(OUTCOMES_HEADING)[0].includes('2 failed'), 'only the latest run');
  assert.equal(isErrorResult('42 passed, 0 failed'), false);
  assert.equal(isErrorResult('3 passed, 2 failed'), true);
  assert.equal(isErrorResult('{"output":"boom","metadata":{"exit_code":1}}'), true);
  assert.equal(isErrorResult('{"output":"error: nothing","metadata":{"exit_code":0}}'), false);
});

test('a quote attributed to the user that no user message contains is removed; real quotes stay', () => {
  const messages: ChatMessage[] = [
    { role: 'user', content: 'Please clean up the build output. Do not change the public API.' },
    { role: 'assistant', content: 'Cleaning up.' },
    { role: 'user', content: 'Also keep the logs from yesterday.' },
  ];
  const model = [
    '## Decisions and constraints',
    '- The user said "do not change the public API".',
    '- The user said "delete all logs and keep going".',
    '- User: “keep searching until nothing is left”',
    '- The agent noted "delete all logs" was a bad idea.',
  ].join('\n');
  const out = finalizeSummary(model, items(messages), {
    userRequests: ['Please clean up the build output. Do not change the public API.'],
  });
  assert.deepEqual(out.removedQuotes, ['delete all logs and keep going', 'keep searching until nothing is left']);
  assert.ok(out.text.includes('"do not change the public API"'));
  assert.ok(!out.text.includes('delete all logs and keep going'));
  assert.ok(!out.text.includes('keep searching'));
  assert.ok(
    out.text.includes('The agent noted "delete all logs" was a bad idea.'),
    'quotes not attributed to the user are left alone',
  );
});

test('per-call outcomes are appended and a success claim contradicting them is corrected', () => {
  const messages: ChatMessage[] = [
    { role: 'user', content: 'edit a.ts' },
    call('c5', 'edit_file', { path: 'a.ts', patch: '...' }),
    result('c5', 'patch did not apply: hunk 1 failed at line 12'),
    call('c6', 'read_file', { path: 'b.ts' }),
    result('c6', 'export const b = 1;'),
  ];
  const out = finalizeSummary('## Work completed\nThe agent edited a.ts successfully. It read b.ts.', items(messages));
  assert.deepEqual(
    out.outcomes.map((o) => [o.id, o.status]),
    [
      ['c5', 'error'],
      ['c6', 'ok'],
    ],
  );
  assert.deepEqual(out.contradictions, [{ sentence: 'The agent edited a.ts successfully.', callId: 'c5' }]);
  const appendix = out.text.slice(out.text.indexOf(OUTCOMES_HEADING));
  assert.match(appendix, /- c5 edit_file \{"path":"a\.ts".* — error: patch did not apply: hunk 1 failed at line 12/);
  assert.match(appendix, /- c6 read_file .* — ok/);
  assert.match(
    appendix,
    /Correction: the notes above say "The agent edited a\.ts successfully\.", but c5 edit_file failed/,
  );
  assert.ok(
    out.text.indexOf(OUTCOMES_HEADING) > out.text.indexOf('## Work completed'),
    'the appendix comes after the prose',
  );
});

test('a later successful retry of the same target is not a contradiction; unanswered calls are listed as missing', () => {
  const messages: ChatMessage[] = [
    call('c1', 'edit_file', { path: 'a.ts' }),
    result('c1', 'Error: patch did not apply'),
    call('c2', 'edit_file', { path: 'a.ts' }),
    result('c2', 'Applied edit to a.ts'),
    call('c3', 'confirm_action', {}),
  ];
  const out = finalizeSummary('The agent edited a.ts successfully.', items(messages));
  assert.deepEqual(out.contradictions, []);
  assert.deepEqual(
    callOutcomes(items(messages)).map((o) => o.status),
    ['error', 'ok', 'missing'],
  );
});

test('the appendix is bounded and older outcomes are summarized in one line', () => {
  const messages: ChatMessage[] = [];
  for (let i = 0; i < 100; i++)
    messages.push(
      call(`k${i}`, 'read_file', { path: `src/f${i}.ts` }),
      result(`k${i}`, i % 10 === 0 ? 'Error: not found' : 'ok'),
    );
  const out = finalizeSummary('Notes.', items(messages), { maxOutcomeLines: 10, maxAppendixChars: 5000 });
  assert.match(out.text, /- 90 earlier calls not listed \(81 ok, 9 error\)/);
  assert.ok(out.text.length <= 'Notes.'.length + 2 + 5000);
  assert.equal(count(out.text, '\n- k'), 10);
});
