/**
 * Files modified and read, from small recordings in each format read through the importers: the
 * rule per edit tool (Claude Code, Codex, Cline, OpenHands, SWE-agent, Aider, OpenAI chat, the
 * product's own tools) and shell scripts that write files.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { importTranscriptText } from '../../../src/transcripts';
import { spanFiles, shellEffects, agentCalls } from '../../../src/compaction/retention';
import type { ChatMessage, Entry } from '../../../src/compaction/types';

const modified = (entries: readonly Entry[]) => Object.fromEntries(spanFiles(entries).modified);

test('claude code: Write creates, Edit/MultiEdit/NotebookEdit edit, Read reads; a failed Edit changes nothing', async () => {
  const base = {
    sessionId: 's',
    cwd: '/w',
    version: '2.1.0',
    isSidechain: false,
    timestamp: '2026-01-01T00:00:00.000Z',
  };
  let n = 0;
  const line = (o: Record<string, unknown>) => JSON.stringify({ ...base, uuid: `u${n++}`, ...o });
  const call = (id: string, name: string, input: unknown) =>
    line({
      type: 'assistant',
      message: { role: 'assistant', id: `m${id}`, model: 'claude-x', content: [{ type: 'tool_use', id, name, input }] },
    });
  const result = (id: string, content: string, isError = false) =>
    line({
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, is_error: isError }] },
    });
  const text = [
    line({ type: 'user', message: { role: 'user', content: 'go' } }),
    call('c1', 'Write', { file_path: '/w/src/new.ts', content: 'export const a = 1;' }),
    result('c1', 'File created'),
    call('c2', 'Edit', { file_path: '/w/src/old.ts', old_string: 'a', new_string: 'b' }),
    result('c2', 'ok'),
    call('c3', 'MultiEdit', { file_path: '/w/src/multi.ts', edits: [{ old_string: 'x', new_string: 'y' }] }),
    result('c3', 'ok'),
    call('c4', 'NotebookEdit', { notebook_path: '/w/nb.ipynb', new_source: 'print(1)' }),
    result('c4', 'ok'),
    call('c5', 'Read', { file_path: '/w/README.md' }),
    result('c5', '# readme'),
    call('c6', 'Edit', { file_path: '/w/src/missing.ts', old_string: 'q', new_string: 'r' }),
    result('c6', 'String to replace not found', true),
  ].join('\n');
  const t = await importTranscriptText(text, 'session.jsonl');
  assert.equal(t.format, 'claude-code');
  assert.deepEqual(modified(t.entries), {
    '/w/src/new.ts': 'created',
    '/w/src/old.ts': 'edited',
    '/w/src/multi.ts': 'edited',
    '/w/nb.ipynb': 'edited',
  });
  assert.deepEqual(spanFiles(t.entries).read, ['/w/README.md']);
});

test('codex: apply_patch (custom tool and inside a shell script) and exec scripts that write files', async () => {
  const rec = (type: string, payload: Record<string, unknown>) =>
    JSON.stringify({ timestamp: '2025-11-17T21:30:00.000Z', type, payload });
  const item = (payload: Record<string, unknown>) => rec('response_item', payload);
  const shell = (id: string, script: string) =>
    item({
      type: 'function_call',
      name: 'shell',
      arguments: JSON.stringify({ command: ['bash', '-lc', script], workdir: '/w' }),
      call_id: id,
    });
  const out = (id: string, code = 0) =>
    item({
      type: 'function_call_output',
      call_id: id,
      output: JSON.stringify({ output: '', metadata: { exit_code: code } }),
    });
  const text = [
    rec('session_meta', { id: 's', cwd: '/w', cli_version: '0.58.0' }),
    item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'build the backend' }] }),
    item({
      type: 'custom_tool_call',
      name: 'apply_patch',
      input:
        '*** Begin Patch\n*** Add File: backend/app.py\n+print(1)\n*** Update File: backend/db.py\n@@\n-a\n+b\n*** End Patch',
      call_id: 'c1',
      status: 'completed',
    }),
    item({ type: 'custom_tool_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'Success' }] }),
    shell('c2', "apply_patch <<'PATCH'\n*** Begin Patch\n*** Delete File: backend/old.py\n*** End Patch\nPATCH"),
    out('c2'),
    shell(
      'c3',
      "cat > backend/models.py <<'EOF'\nclass User:\n    pass\nEOF\nsed -i 's/a/b/' backend/config.toml && echo done | tee -a logs/run.log",
    ),
    out('c3'),
    shell(
      'c4',
      "python - <<'PY'\nfrom pathlib import Path\nPath('backend/gen.py').write_text('x = 1')\nwith open(\"backend/data.json\", \"w\") as f:\n    f.write('{}')\nPY",
    ),
    out('c4'),
    shell('c5', "sed -n '1,80p' backend/routes.py && cat README.md 2>/dev/null"),
    out('c5'),
  ].join('\n');
  const t = await importTranscriptText(text, 'rollout.jsonl');
  assert.equal(t.format, 'codex');
  assert.deepEqual(modified(t.entries), {
    'backend/app.py': 'created',
    'backend/db.py': 'edited',
    'backend/old.py': 'deleted',
    'backend/models.py': 'created',
    'backend/config.toml': 'edited',
    'logs/run.log': 'edited',
    'backend/gen.py': 'edited',
    'backend/data.json': 'edited',
  });
  assert.deepEqual(spanFiles(t.entries).read, ['backend/routes.py', 'README.md']);
});

test('cline: write_to_file and replace_in_file with path or absolutePath; read_file reads', async () => {
  const conversation = [
    { role: 'user', ts: 1, content: [{ type: 'text', text: '<task>\nrefactor\n</task>' }] },
    {
      role: 'assistant',
      ts: 2,
      content: [
        {
          type: 'tool_use',
          id: 't1',
          name: 'write_to_file',
          input: { absolutePath: 'c:\\app\\src\\lib\\gcs.ts', content: 'x' },
        },
        {
          type: 'tool_use',
          id: 't2',
          name: 'replace_in_file',
          input: { path: 'src/auth.ts', diff: '------- SEARCH\na\n=======\nb\n+++++++ REPLACE' },
        },
        { type: 'tool_use', id: 't3', name: 'read_file', input: { path: 'src/db.ts' } },
      ],
    },
    {
      role: 'user',
      ts: 3,
      content: [
        { type: 'text', text: "[write_to_file for 'c:\\app\\src\\lib\\gcs.ts'] Result:\nok" },
        { type: 'text', text: "[replace_in_file for 'src/auth.ts'] Result:\nok" },
        { type: 'text', text: "[read_file for 'src/db.ts'] Result:\n1 | x" },
      ],
    },
  ];
  const t = await importTranscriptText(JSON.stringify(conversation), 'api_conversation_history.json');
  assert.equal(t.format, 'cline');
  assert.deepEqual(modified(t.entries), { 'c:/app/src/lib/gcs.ts': 'created', 'src/auth.ts': 'edited' });
  assert.deepEqual(spanFiles(t.entries).read, ['src/db.ts']);
});

test('openhands: file_editor create/str_replace modify, view reads; terminal scripts write', async () => {
  let n = 0;
  const action = (name: string, args: Record<string, unknown>) => {
    const id = `t${n++}`;
    return [
      {
        id: `a${id}`,
        source: 'agent',
        kind: 'ActionEvent',
        thought: [],
        tool_name: name,
        tool_call_id: id,
        tool_call: { id, name, arguments: JSON.stringify(args) },
        llm_response_id: `r${id}`,
      },
      {
        id: `o${id}`,
        source: 'environment',
        kind: 'ObservationEvent',
        tool_name: name,
        tool_call_id: id,
        action_id: `a${id}`,
        observation: { content: [{ type: 'text', text: 'ok' }], is_error: false },
      },
    ];
  };
  const events = [
    {
      id: 'u',
      source: 'user',
      kind: 'MessageEvent',
      llm_message: { role: 'user', content: [{ type: 'text', text: 'find the bug' }] },
    },
    ...action('file_editor', { command: 'view', path: '/repo/ROOT_CAUSE.md' }),
    ...action('file_editor', { command: 'create', path: '/tmp/analyze.py', file_text: 'print(1)' }),
    ...action('str_replace_editor', { command: 'str_replace', path: '/repo/sdk/event.py', old_str: 'a', new_str: 'b' }),
    ...action('terminal', { command: 'echo x > /repo/out.txt' }),
  ];
  const t = await importTranscriptText(JSON.stringify(events, null, 2), 'events.json');
  assert.equal(t.format, 'openhands');
  assert.deepEqual(modified(t.entries), {
    '/tmp/analyze.py': 'created',
    '/repo/sdk/event.py': 'edited',
    '/repo/out.txt': 'created',
  });
  assert.deepEqual(spanFiles(t.entries).read, ['/repo/ROOT_CAUSE.md']);
});

test('swe-agent: <function=str_replace_editor> actions in assistant text, paired with the next observation', async () => {
  const fn = (name: string, params: Record<string, string>) =>
    `Doing it.\n\n<function=${name}>\n${Object.entries(params)
      .map(([k, v]) => `<parameter=${k}>${v}</parameter>`)
      .join('\n')}\n</function>`;
  const traj = {
    trajectory: [],
    history: [
      { role: 'system', content: 'You are a helpful assistant.', message_type: 'system_prompt' },
      { role: 'user', content: 'Fix the bug.', message_type: 'observation' },
      {
        role: 'assistant',
        content: fn('str_replace_editor', { command: 'view', path: '/testbed/pkg/mod.py' }),
        message_type: 'action',
      },
      { role: 'user', content: 'OBSERVATION:\n1 x', message_type: 'observation' },
      {
        role: 'assistant',
        content: fn('str_replace_editor', { command: 'create', path: '/testbed/reproduce.py', file_text: 'print(1)' }),
        message_type: 'action',
      },
      { role: 'user', content: 'OBSERVATION:\nFile created successfully', message_type: 'observation' },
      {
        role: 'assistant',
        content: fn('str_replace_editor', {
          command: 'str_replace',
          path: '/testbed/pkg/mod.py',
          old_str: 'a',
          new_str: 'b',
        }),
        message_type: 'action',
      },
      { role: 'user', content: 'OBSERVATION:\nThe file has been edited.', message_type: 'observation' },
    ],
    info: {},
  };
  const t = await importTranscriptText(JSON.stringify(traj, null, 2), 'x.traj');
  assert.equal(t.format, 'swe-agent');
  assert.deepEqual(modified(t.entries), { '/testbed/reproduce.py': 'created', '/testbed/pkg/mod.py': 'edited' });
  const calls = agentCalls(t.entries);
  assert.equal(calls[0].resultIndex, 3, 'a text action is answered by the next user message');
});

test('aider: whole-file blocks and SEARCH/REPLACE blocks name the files they change', async () => {
  const history = [
    '# aider chat started at 2026-02-24 16:53:06',
    '',
    '#### make the title bold  ',
    '',
    'Here is the change:',
    '',
    'src/app.ts',
    '```',
    '<h1 class="bold">Title</h1>',
    '```',
    '',
    'src/lib/util.ts',
    '```ts',
    '<<<<<<< SEARCH',
    'const a = 1;',
    '=======',
    'const a = 2;',
    '>>>>>>> REPLACE',
    '```',
    '',
    '> Applied edit to src/app.ts  ',
    '',
  ].join('\n');
  const t = await importTranscriptText(history, '.aider.chat.history.md');
  assert.equal(t.format, 'aider');
  assert.deepEqual(modified(t.entries), { 'src/app.ts': 'created', 'src/lib/util.ts': 'edited' });
});

test('openai chat and the product own tools: Write/Edit, write_file/edit_file, read_file', () => {
  const call = (id: string, name: string, args: unknown): ChatMessage => ({
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
  });
  const res = (id: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content: 'ok' });
  const messages: ChatMessage[] = [
    { role: 'user', content: 'go' },
    call('1', 'Write', { file_path: '/r/docker-compose.yml', content: 'x' }),
    res('1'),
    call('2', 'write_file', { path: 'src/a.ts', content: 'x' }),
    res('2'),
    call('3', 'edit_file', { path: 'src/b.ts', old_text: 'a', new_text: 'b' }),
    res('3'),
    call('4', 'read_file', { path: 'src/c.ts' }),
    res('4'),
  ];
  const entries = messages.map((message, i) => ({ id: `m${i}`, message }));
  assert.deepEqual(modified(entries), {
    '/r/docker-compose.yml': 'created',
    'src/a.ts': 'created',
    'src/b.ts': 'edited',
  });
  assert.deepEqual(spanFiles(entries).read, ['src/c.ts']);
  assert.deepEqual(spanFiles(entries, 3, 9).modified.has('/r/docker-compose.yml'), false, 'only the span is read');
});

test('shell: redirections, tee, sed -i, cp, mv, rm, touch; descriptors and /dev/null are not files', () => {
  const e = (s: string) => shellEffects(s).map((x) => `${x.action} ${x.path}`);
  assert.deepEqual(e('npm test 2>&1 | tail -5'), []);
  assert.deepEqual(e('ls > /dev/null; echo hi >> notes.md'), ['edited notes.md']);
  assert.deepEqual(e("sed -i.bak -e 's/a/b/' conf/app.yml"), ['edited conf/app.yml']);
  assert.deepEqual(e('cp a.ts b.ts && mv b.ts lib/c.ts && rm old.ts && touch new.ts'), [
    'created b.ts',
    'read a.ts',
    'moved lib/c.ts',
    'deleted b.ts',
    'deleted old.ts',
    'created new.ts',
  ]);
  assert.deepEqual(e('cat > "src/with space.ts" <<EOF\nconst x = a > b;\nEOF'), ['created src/with space.ts']);
  assert.deepEqual(e('head -n 20 src/x.ts | grep foo'), ['read src/x.ts']);
});
