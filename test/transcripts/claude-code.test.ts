import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { importTranscriptText } from '../../src/transcripts';
import { assertWellFormed, calls, pngBase64, transcriptError } from './helpers';

const base = {
  sessionId: 's1',
  cwd: '/w',
  version: '2.1.0',
  isSidechain: false,
  timestamp: '2026-01-01T00:00:00.000Z',
};
const line = (o: Record<string, unknown>) => JSON.stringify({ ...base, ...o });
const user = (uuid: string, parentUuid: string | null, content: unknown, extra: Record<string, unknown> = {}) =>
  line({ type: 'user', uuid, parentUuid, message: { role: 'user', content }, ...extra });
const assistant = (uuid: string, parentUuid: string, id: string, content: unknown[], input = 1000) =>
  line({
    type: 'assistant',
    uuid,
    parentUuid,
    message: {
      role: 'assistant',
      id,
      model: 'claude-x',
      content,
      usage: { input_tokens: input, cache_read_input_tokens: 500, cache_creation_input_tokens: 20, output_tokens: 9 },
    },
  });

test('claude-code: one response over several lines merges; parallel results follow it; metadata is kept', async () => {
  const text = [
    line({ type: 'permission-mode', permissionMode: 'default' }),
    user('u1', null, 'list and read'),
    assistant('a1', 'u1', 'msg_1', [{ type: 'thinking', thinking: 'hmm', signature: 'sig' }]),
    assistant('a2', 'a1', 'msg_1', [{ type: 'text', text: 'Looking.' }]),
    assistant('a3', 'a2', 'msg_1', [{ type: 'tool_use', id: 'c1', name: 'Bash', input: { command: 'ls' } }]),
    user('r1', 'a3', [{ type: 'tool_result', tool_use_id: 'c1', content: 'a.txt' }], {
      toolUseResult: { stdout: 'a.txt' },
    }),
    assistant('a4', 'a3', 'msg_1', [{ type: 'tool_use', id: 'c2', name: 'Read', input: { file_path: 'a.txt' } }]),
    user('r2', 'a4', [
      { type: 'tool_result', tool_use_id: 'c2', content: [{ type: 'text', text: 'hello' }] },
      { type: 'text', text: 'also check b' },
    ]),
    line({ type: 'file-history-snapshot', messageId: 'x' }),
    assistant('a5', 'r2', 'msg_2', [{ type: 'text', text: 'Done.' }], 2000),
  ].join('\n');
  const t = await importTranscriptText(text, 'session.jsonl');
  assert.equal(t.format, 'claude-code');
  assertWellFormed(t);
  assert.deepEqual(
    t.entries.map((e) => e.id),
    ['u1', 'a1', 'r1', 'r2/c2', 'r2/text', 'a5'],
  );
  const merged = t.entries[1].message;
  assert.equal(merged.role, 'assistant');
  assert.equal(merged.content, 'Looking.');
  assert.deepEqual(calls(merged), [
    ['c1', 'Bash', '{"command":"ls"}'],
    ['c2', 'Read', '{"file_path":"a.txt"}'],
  ]);
  assert.equal(t.entries[1].meta?.reportedPromptTokens, 1520);
  assert.equal(t.entries[1].meta?.model, 'claude-x');
  assert.equal(t.entries[1].meta?.timestamp, base.timestamp);
  assert.deepEqual(t.entries[2].message, { role: 'tool', tool_call_id: 'c1', content: 'a.txt' });
  assert.deepEqual(t.entries[3].message, { role: 'tool', tool_call_id: 'c2', content: 'hello' });
  assert.deepEqual(t.entries[4].message, { role: 'user', content: 'also check b' });
  assert.deepEqual(t.skipped, { 'permission-mode': 1, thinking: 1, 'file-history-snapshot': 1 });
  assert.deepEqual(t.stats, { messages: 6, toolCalls: 2, toolResults: 2, images: 0 });
});

test('claude-code: an image in a tool result becomes a placeholder plus a user image part with its size', async () => {
  const data = pngBase64(640, 480);
  const text = [
    user('u1', null, 'screenshot'),
    assistant('a1', 'u1', 'm1', [
      { type: 'tool_use', id: 'c1', name: 'Shot', input: {} },
      { type: 'tool_use', id: 'c2', name: 'Bash', input: {} },
    ]),
    user('r1', 'a1', [
      {
        type: 'tool_result',
        tool_use_id: 'c1',
        content: [
          { type: 'text', text: 'ok' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data } },
        ],
      },
    ]),
    user('r2', 'r1', [{ type: 'tool_result', tool_use_id: 'c2', content: 'done', is_error: true }]),
  ].join('\n');
  const t = await importTranscriptText(text, 's.jsonl');
  assertWellFormed(t);
  assert.deepEqual(
    t.entries.map((e) => e.message.role),
    ['user', 'assistant', 'tool', 'tool', 'user'],
  );
  assert.match(String(t.entries[2].message.content), /^ok\n\[image 1: attached in the next user message\]$/);
  const images = t.entries[4];
  assert.equal(images.id, 'r1/images');
  assert.ok(Array.isArray(images.message.content));
  assert.deepEqual(images.message.content[1], {
    type: 'image_url',
    image_url: { url: `data:image/png;base64,${data}` },
  });
  assert.deepEqual(images.meta?.imageSizes, [{ width: 640, height: 480 }]);
  assert.equal(t.stats.images, 1);
});

test('claude-code: compact boundary + compact summary become an imported compaction', async () => {
  const text = [
    user('u1', null, 'task'),
    assistant('a1', 'u1', 'm1', [{ type: 'text', text: 'working' }]),
    line({
      type: 'system',
      subtype: 'compact_boundary',
      uuid: 'b1',
      parentUuid: null,
      logicalParentUuid: 'a1',
      compactMetadata: { trigger: 'auto', preTokens: 150000 },
    }),
    user('s1', 'b1', 'This session is being continued from a previous conversation. Summary: …', {
      isCompactSummary: true,
    }),
    assistant('a2', 's1', 'm2', [{ type: 'text', text: 'continuing' }]),
  ].join('\n');
  const t = await importTranscriptText(text, 's.jsonl');
  assertWellFormed(t);
  assert.deepEqual(t.compactions, [
    {
      replacedIds: ['u1', 'a1'],
      summary: 'This session is being continued from a previous conversation. Summary: …',
      summaryEntryId: 's1',
    },
  ]);
  assert.equal(t.entries[2].meta?.importedSummary, true);
  assert.equal(t.skipped.system, 1);
});

test('claude-code: sidechain records and abandoned branches are skipped', async () => {
  const text = [
    user('u1', null, 'first'),
    assistant('a1', 'u1', 'm1', [{ type: 'text', text: 'old answer' }]),
    line({
      type: 'assistant',
      uuid: 'x1',
      parentUuid: 'a1',
      isSidechain: true,
      message: { role: 'assistant', id: 'mx', content: [{ type: 'text', text: 'sub-agent' }] },
    }),
    user('u2', 'u1', 'first, rephrased'),
    assistant('a2', 'u2', 'm2', [{ type: 'text', text: 'new answer' }]),
  ].join('\n');
  const t = await importTranscriptText(text, 's.jsonl');
  assert.deepEqual(
    t.entries.map((e) => e.id),
    ['u1', 'u2', 'a2'],
  );
  assert.equal(t.skipped.sidechain, 1);
  assert.equal(t.skipped['abandoned-branch'], 1);
});

test('claude-code: a call with no result is left unanswered and warned; a result with no call becomes user text', async () => {
  const text = [
    user('u1', null, 'go'),
    assistant('a1', 'u1', 'm1', [{ type: 'tool_use', id: 'c1', name: 'Bash', input: {} }]),
    user('u2', 'a1', 'stop'),
    user('r9', 'u2', [{ type: 'tool_result', tool_use_id: 'zz', content: 'stray' }]),
  ].join('\n');
  const t = await importTranscriptText(text, 's.jsonl');
  assertWellFormed(t);
  assert.deepEqual(
    t.entries.map((e) => e.message.role),
    ['user', 'assistant', 'user', 'user'],
  );
  assert.match(
    String(t.entries[3].message.content),
    /^\[Tool result for a tool call that is not in the transcript \(id zz\)\]\nstray$/,
  );
  assert.ok(t.warnings.some((w) => /1 tool call\(s\) have no recorded result: c1/.test(w)));
  assert.ok(t.warnings.some((w) => /match no open tool call.*zz/.test(w)));
});

test('claude-code: malformed input names file, line and field', async () => {
  const good = user('u1', null, 'hi');
  const truncated = `${good}\n${assistant('a1', 'u1', 'm1', [{ type: 'text', text: 'x' }]).slice(0, 40)}`;
  // A session still being written: the cut last record is left out with a warning naming its line.
  const live = await importTranscriptText(truncated, 'cut.jsonl', { format: 'claude-code' });
  assert.deepEqual(
    live.entries.map((x) => x.message.content),
    ['hi'],
  );
  assert.ok(
    live.warnings.some((w) => /^line 2: the last record stops mid-value/.test(w)),
    live.warnings.join('\n'),
  );
  // Alone, a cut record is no transcript.
  let e = await transcriptError(() =>
    importTranscriptText(truncated.slice(good.length + 1), 'cut.jsonl', { format: 'claude-code' }),
  );
  assert.deepEqual([e.file, e.line, e.field], ['cut.jsonl', 1, '']);
  assert.match(e.message, /^cut\.jsonl:1: truncated JSON line$/);
  // Cut anywhere but at the end, it is broken JSON.
  e = await transcriptError(() =>
    importTranscriptText(`${truncated}\n${good}`, 'cut.jsonl', { format: 'claude-code' }),
  );
  assert.deepEqual([e.line, e.field], [2, '']);
  assert.match(e.message, /^cut\.jsonl:2: invalid JSON/);

  e = await transcriptError(() => importTranscriptText(`${good}\n{"type": "user",,}\n${good}`, 'bad.jsonl'));
  assert.deepEqual([e.line, e.field], [2, '']);
  assert.match(e.message, /^bad\.jsonl:2: invalid JSON/);

  const robot = line({ type: 'user', uuid: 'u2', parentUuid: 'u1', message: { role: 'robot', content: 'beep' } });
  e = await transcriptError(() => importTranscriptText(`${good}\n${robot}`, 'role.jsonl'));
  assert.deepEqual([e.line, e.field], [2, 'message.role']);
  assert.equal(e.message, 'role.jsonl:2: message.role: unknown role "robot" in a user record');

  const noId = user('r1', 'u1', [
    { type: 'text', text: 'x' },
    { type: 'tool_result', content: 'out' },
  ]);
  e = await transcriptError(() => importTranscriptText(`${good}\n\n${noId}`, 'noid.jsonl'));
  assert.deepEqual([e.line, e.field], [3, 'message.content[1].tool_use_id']);
  assert.match(e.message, /tool result has no tool_use_id$/);
});
