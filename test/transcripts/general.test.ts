import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { detectFormat, importTranscriptText } from '../../src/transcripts';
import { imageSize, imageSizeFromBase64 } from '../../src/transcripts/images';
import { jpegBytes, pngBase64, transcriptError } from './helpers';

test('non-UTF-8 bytes name the line of the first bad byte', async () => {
  const bytes = Buffer.concat([
    Buffer.from('[{"role": "user",\n "content": "caf'),
    Buffer.from([0xe9]),
    Buffer.from('"}]'),
  ]);
  const e = await transcriptError(() => importTranscriptText(bytes, 'latin1.json'));
  assert.deepEqual([e.file, e.line, e.field], ['latin1.json', 2, '']);
  assert.match(e.message, /^latin1\.json:2: invalid UTF-8 byte 0xe9/);
});

test('a UTF-8 BOM is accepted', async () => {
  const t = await importTranscriptText(Buffer.from('\ufeff[{"role":"user","content":"hi"}]', 'utf8'), 'bom.json');
  assert.equal(t.entries.length, 1);
});

test('unrecognised content is an error at line 1', async () => {
  for (const text of ['{"hello": "world"}', 'just some text', '42']) {
    const e = await transcriptError(() => importTranscriptText(text, 'what.txt'));
    assert.equal(e.line, 1);
    assert.match(e.message, /^what\.txt:1: unrecognised transcript format/);
  }
  // An empty file is named as such, not as an unknown format.
  const empty = await transcriptError(() => importTranscriptText('', 'what.txt'));
  assert.equal(empty.message, 'what.txt:1: the file is empty: a transcript holds at least one message');
});

test('detectFormat reads content, not names', () => {
  const claude = JSON.stringify({ type: 'user', uuid: 'u', sessionId: 's', message: { role: 'user', content: 'x' } });
  const codex = JSON.stringify({ timestamp: 't', type: 'session_meta', payload: {} });
  assert.equal(detectFormat(claude, 'rollout.jsonl'), 'claude-code');
  assert.equal(detectFormat(codex, 'session.md'), 'codex');
  assert.equal(detectFormat('[{"id":"e","kind":"MessageEvent","source":"user"}]'), 'openhands');
  assert.equal(detectFormat('{"history":[],"trajectory":[],"info":{}}'), 'swe-agent');
  assert.equal(detectFormat('\n# aider chat started at 2026-01-01 00:00:00\n\n#### hi\n'), 'aider');
  assert.equal(detectFormat('[{"role":"user","content":[{"type":"text","text":"x"}],"ts":1}]'), 'cline');
  assert.equal(detectFormat('[{"role":"user","content":"x"}]'), 'openai-chat');
  assert.equal(detectFormat('{"messages":[]}'), 'openai-chat');
  assert.equal(detectFormat('[]', 'api_conversation_history.json'), 'cline', 'the name breaks a tie');
  assert.equal(detectFormat('[]'), 'openai-chat');
  assert.equal(detectFormat('{"a":1}'), undefined);
  assert.equal(detectFormat(Buffer.from(codex)), 'codex', 'bytes are accepted');
});

test('image sizes are read from PNG and JPEG headers', () => {
  assert.deepEqual(imageSizeFromBase64(pngBase64(1920, 1080)), { width: 1920, height: 1080 });
  assert.deepEqual(imageSize(jpegBytes(800, 600)), { width: 800, height: 600 });
  assert.deepEqual(imageSizeFromBase64(jpegBytes(33, 44).toString('base64')), { width: 33, height: 44 });
  assert.equal(imageSizeFromBase64('bm90IGFuIGltYWdl'), undefined);
});

test('the format option overrides detection', async () => {
  const e = await transcriptError(() =>
    importTranscriptText('[{"role":"user","content":"x"}]', 'x.json', { format: 'swe-agent' }),
  );
  assert.match(e.message, /trajectory object/);
});

test('broken JSON that matches no format reports where it breaks', async () => {
  let e = await transcriptError(() =>
    importTranscriptText(
      '[\n  {"role": "user", "content": "a"},\n  {"role": "assistant" "content": "b"}\n]',
      'chat.json',
    ),
  );
  assert.equal(e.line, 3);
  assert.match(e.message, /^chat\.json:3: invalid JSON/);
  e = await transcriptError(() => importTranscriptText('{"a": 1}\n{"b": 2\n{"c": 3}\n', 'log.jsonl'));
  assert.equal(e.line, 2);
  assert.match(e.message, /^log\.jsonl:2: invalid JSON/);
});
