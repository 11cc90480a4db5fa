import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { importTranscript, importTranscriptText } from '../../src/transcripts';
import { SessionStore } from '../../src/service/session/store';
import type { Entry } from '../../src/compaction/types';
import { transcriptError } from './helpers';

test("context-keeper: a session folder's transcript.jsonl imports with its own ids and metadata", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ck-import-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const entries: Entry[] = [
    { id: 'e000001', message: { role: 'system', content: 'You are a coding agent.' } },
    {
      id: 'e000002',
      message: { role: 'user', content: 'List the files.' },
      meta: { timestamp: '2026-11-29T10:00:00.000Z' },
    },
    {
      id: 'e000003',
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'list_directory', arguments: '{"path":"."}' } }],
      },
      meta: { model: 'gpt-4o', reportedPromptTokens: 812 },
    },
    { id: 'e000004', message: { role: 'tool', tool_call_id: 'c1', content: 'README.md\nsrc/' } },
    { id: 'e000005', message: { role: 'assistant', content: 'Two entries.' } },
  ];
  const { store } = SessionStore.open(dir, 'session-a');
  store.append(entries);
  store.close();
  const imported = await importTranscript(path.join(dir, 'session-a', 'transcript.jsonl'));
  assert.equal(imported.format, 'context-keeper');
  assert.deepEqual(
    imported.entries.map((e) => e.id),
    entries.map((e) => e.id),
  );
  assert.deepEqual(
    imported.entries.map((e) => e.message),
    entries.map((e) => e.message),
  );
  assert.equal(imported.entries[2].meta?.reportedPromptTokens, 812);
  assert.equal(imported.model, 'gpt-4o');
  assert.equal(imported.stats.toolCalls, 1);
});

test('context-keeper: a bad record names its line and field', async () => {
  const lines = [
    JSON.stringify({ id: 'e1', message: { role: 'user', content: 'hi' } }),
    JSON.stringify({ id: 'e2', message: { role: 'robot', content: 'x' } }),
  ];
  const e = await transcriptError(() => importTranscriptText(lines.join('\n') + '\n', 'transcript.jsonl'));
  assert.equal(e.line, 2);
  assert.equal(e.field, 'message.role');
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'ck-bad-')), 'transcript.jsonl');
  writeFileSync(file, lines[0] + '\n' + JSON.stringify({ message: { role: 'user', content: 'no id' } }) + '\n');
  const noId = await transcriptError(() => importTranscript(file));
  assert.equal(noId.field, 'id');
  assert.equal(noId.line, 2);
  rmSync(path.dirname(file), { recursive: true, force: true });
});
