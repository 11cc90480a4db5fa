/** A file too large to read in one piece is reported as too large, with the limit, never as damaged. */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { importTranscript, importTranscriptText } from '../../src/transcripts';
import { decodeUtf8, MAX_TEXT_CHARS } from '../../src/transcripts/decode';
import { TranscriptError } from '../../src/transcripts/errors';

const line = JSON.stringify({ type: 'user', message: { role: 'user', content: 'Fix the tests.' } });

test('valid bytes over the text limit are too large, with the size and the limit named; invalid ones still name their byte', () => {
  const ascii = new TextEncoder().encode(`${line}\n`.repeat(100));
  for (const limit of [1_000, Math.floor(ascii.length / 3) - 1]) {
    assert.throws(
      () => decodeUtf8(ascii, 'big.jsonl', limit),
      (e: unknown) =>
        e instanceof TranscriptError &&
        e.line === 0 &&
        /^big\.jsonl: 0 MB is larger than ContextKeeper reads in one piece \(at most about [\d,]+ characters of text/.test(
          e.message,
        ) &&
        !/invalid UTF-8/.test(e.message),
    );
  }
  assert.equal(decodeUtf8(ascii, 'ok.jsonl', ascii.length), new TextDecoder().decode(ascii));
  const bad = Uint8Array.from([...new TextEncoder().encode('{"a":1}\n'), 0xff, 0x0a]);
  assert.throws(() => decodeUtf8(bad, 'bad.jsonl'), /bad\.jsonl:2: invalid UTF-8 byte 0xff at byte 8/);
  assert.ok(MAX_TEXT_CHARS >= 2 ** 28, 'the default is the engine string limit');
});

test('a recording file over the limit is refused before it is read, naming its size and the limit', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ck-large-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'session.jsonl');
  writeFileSync(file, `${line}\n`);
  // A sparse file: its size is over three times the limit without using the disk.
  truncateSync(file, 3 * MAX_TEXT_CHARS + 4096);
  const started = Date.now();
  await assert.rejects(importTranscript(file, { format: 'claude-code' }), (e: unknown) => {
    assert.ok(e instanceof TranscriptError);
    assert.match(
      e.message,
      /session\.jsonl: 1\.6 GB is larger than ContextKeeper reads in one piece \(at most about 512 MiB of text/,
    );
    return true;
  });
  assert.ok(Date.now() - started < 2_000, 'refused without reading the file');
  // Small files still import.
  const ok = await importTranscriptText(`${line}\n`, 'small.jsonl');
  assert.equal(ok.entries.length, 1);
});
