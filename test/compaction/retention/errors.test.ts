/**
 * Error signatures labelled open or resolved at a point, and commands that never failed: recorded
 * success flags (Claude Code is_error, Codex exit codes) and, where none is recorded, the output's
 * failure lines (SWE-agent observations).
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { importTranscriptText } from '../../../src/transcripts';
import { commandKey, errorSignatures, failureLine, neverFailedCommands } from '../../../src/compaction/retention';
import type { ChatMessage } from '../../../src/compaction/types';

const call = (id: string, name: string, args: unknown): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
});
const res = (id: string, content: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content });
const entries = (ms: ChatMessage[], ok: Record<number, boolean> = {}) =>
  ms.map((message, i) => ({ id: `m${i}`, message, ...(i in ok ? { meta: { toolOk: ok[i] } } : {}) }));

test('a failure is resolved when the same command later succeeds, and open before that point', () => {
  const es = entries(
    [
      { role: 'user', content: 'fix the test' },
      call('1', 'Bash', { command: 'cd /w && npm test 2>&1 | tail -20' }),
      res('1', 'FAIL src/a.test.ts\nTypeError: x is not a function'),
      call('2', 'Edit', { file_path: '/w/src/a.ts', old_string: 'a', new_string: 'b' }),
      res('2', 'ok'),
      call('3', 'Bash', { command: 'npm test' }),
      res('3', 'all passed'),
    ],
    { 2: false, 4: true, 6: true },
  );
  const at6 = errorSignatures(es, 0, 3, 7);
  assert.equal(at6.length, 1);
  assert.equal(at6[0].key, 'npm test');
  assert.equal(at6[0].line, 'FAIL src/a.test.ts');
  assert.equal(at6[0].state, 'resolved');
  assert.equal(at6[0].resolvedBy, 'same command succeeded');
  assert.equal(errorSignatures(es, 0, 3, 5)[0].state, 'open', 'the fix is after the point');
  assert.deepEqual(neverFailedCommands(es, 0, 7), [], 'npm test failed once');
});

test('a failure naming a file is resolved when that file is edited and a check then passes', () => {
  const es = entries(
    [
      call('1', 'run_command', { command: 'python manage.py migrate' }),
      res('1', 'Traceback (most recent call last):\n  File "app/models.py", line 3\nSyntaxError: invalid syntax'),
      call('2', 'edit_file', { path: 'app/models.py', old_text: 'a', new_text: 'b' }),
      res('2', 'ok'),
      call('3', 'run_command', { command: 'python -m pytest -q' }),
      res('3', '3 passed'),
    ],
    { 1: false, 3: true, 5: true },
  );
  const [e] = errorSignatures(es, 0, 2);
  assert.equal(e.state, 'open', 'inside the span alone nothing fixed it');
  const [r] = errorSignatures(es, 0, 2, 6);
  assert.equal(r.state, 'resolved');
  assert.equal(r.resolvedBy, 'file edited and check passed');
  assert.ok(r.files.includes('app/models.py'));
});

test('codex: exit codes decide; a search that matched nothing (exit 1) or a listing of a missing path (exit 2, "No such file") answers no and is no failure; a failed build is one', async () => {
  const rec = (type: string, payload: Record<string, unknown>) =>
    JSON.stringify({ timestamp: '2025-11-17T21:30:00.000Z', type, payload });
  const item = (payload: Record<string, unknown>) => rec('response_item', payload);
  const shell = (id: string, script: string) =>
    item({
      type: 'function_call',
      name: 'shell',
      arguments: JSON.stringify({ command: ['bash', '-lc', script] }),
      call_id: id,
    });
  const out = (id: string, output: string, code: number) =>
    item({
      type: 'function_call_output',
      call_id: id,
      output: JSON.stringify({ output, metadata: { exit_code: code } }),
    });
  const text = [
    rec('session_meta', { id: 's', cwd: '/w', cli_version: '0.58.0' }),
    item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'wire it up' }] }),
    shell('c1', 'rg -n "OLLAMA"'),
    out('c1', '', 1),
    shell('c2', 'ls lib/ai'),
    out('c2', "ls: cannot access 'lib/ai': No such file or directory\n", 2),
    shell('c3', 'pnpm build'),
    out('c3', 'done', 0),
    shell('c4', 'pnpm lint'),
    out('c4', 'src/a.ts:1:1 error  no-unused-vars', 1),
  ].join('\n');
  const t = await importTranscriptText(text, 'rollout.jsonl');
  const sigs = errorSignatures(t.entries, 0, t.entries.length);
  assert.deepEqual(
    sigs.map((s) => [s.key, s.state, s.line]),
    [['pnpm lint', 'open', '']],
  );
  assert.deepEqual(neverFailedCommands(t.entries, 0, t.entries.length), ['rg -n "OLLAMA"', 'ls lib/ai', 'pnpm build']);
});

test('swe-agent: with no recorded status, an observation that opens with a traceback is a failure; a later clean run resolves it', async () => {
  const fn = (cmd: string) => `Run it.\n\n<function=bash>\n<parameter=command>${cmd}</parameter>\n</function>`;
  const traj = {
    trajectory: [],
    history: [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: 'Fix the bug.' },
      { role: 'assistant', content: fn('python /testbed/reproduce.py') },
      { role: 'user', content: 'OBSERVATION:\nTraceback (most recent call last):\nKeyError: 1' },
      { role: 'assistant', content: fn('python /testbed/reproduce.py') },
      { role: 'user', content: 'OBSERVATION:\nOutput dtypes: float16' },
    ],
    info: {},
  };
  const t = await importTranscriptText(JSON.stringify(traj, null, 2), 'x.traj');
  const [e] = errorSignatures(t.entries, 0, 4, t.entries.length);
  assert.equal(e.key, 'python /testbed/reproduce.py');
  assert.equal(e.state, 'resolved');
  assert.equal(errorSignatures(t.entries, 0, 4, 4)[0].state, 'open');
});

test('text that is not a failure: a column named error, a class merely imported, a test name', () => {
  assert.equal(failureLine('CREATE TABLE jobs (id INT, error TEXT);'), '');
  assert.equal(failureLine('import com.x.BusinessException;'), '');
  assert.equal(failureLine('test_error_handling PASSED'), '');
  assert.equal(failureLine('ValueError: bad input'), 'ValueError: bad input');
  assert.equal(commandKey('cd /repo && cd backend && mvn -q test 2>&1 | tail -30'), 'mvn -q test');
});

test('cline: the exit code written in the result decides, although the result block carries no error flag', async () => {
  const conversation = [
    { role: 'user', ts: 1, content: [{ type: 'text', text: '<task>\ndeploy\n</task>' }] },
    {
      role: 'assistant',
      ts: 2,
      content: [
        {
          type: 'tool_use',
          id: 't1',
          name: 'execute_command',
          input: { command: 'cd c:\\app\\terraform && terraform plan' },
        },
      ],
    },
    {
      role: 'user',
      ts: 3,
      content: [
        {
          type: 'text',
          text: "[execute_command for 'cd c:\\app\\terraform && terraform plan'] Result:\nCommand failed with exit code 1.\nError: missing variable",
        },
      ],
    },
    {
      role: 'assistant',
      ts: 4,
      content: [{ type: 'tool_use', id: 't2', name: 'execute_command', input: { command: 'npm run build' } }],
    },
    {
      role: 'user',
      ts: 5,
      content: [
        {
          type: 'text',
          text: "[execute_command for 'npm run build'] Result:\nCommand executed successfully (exit code 0).",
        },
      ],
    },
  ];
  const t = await importTranscriptText(JSON.stringify(conversation), 'api_conversation_history.json');
  const sigs = errorSignatures(t.entries, 0, t.entries.length);
  assert.deepEqual(
    sigs.map((s) => [s.key, s.state]),
    [['terraform plan', 'open']],
  );
  assert.deepEqual(neverFailedCommands(t.entries, 0, t.entries.length), ['npm run build']);
});
