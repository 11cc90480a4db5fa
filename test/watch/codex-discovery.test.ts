import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs, { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { clearHeadCache, discoverSessions } from '../../src/watch/discovery';

const meta = (cwd: string) =>
  JSON.stringify({
    type: 'session_meta',
    payload: { id: 's', cwd, base_instructions: { text: 'You are Codex. '.repeat(800) } },
  });

test('Codex discovery reads each rollout head once: later polls only stat the files', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'ck-codex-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const ws = path.join(root, 'ws');
  mkdirSync(ws);
  const day = path.join(root, 'codex', 'sessions', '2026', '02', '01');
  mkdirSync(day, { recursive: true });
  for (let i = 0; i < 300; i++)
    writeFileSync(path.join(day, `rollout-${i}.jsonl`), `${meta(i % 3 === 0 ? ws : '/elsewhere')}\n{"type":"x"}\n`);
  clearHeadCache();
  const reads: number[] = [];
  const original = fs.readSync;
  t.after(() => {
    fs.readSync = original;
  });
  fs.readSync = ((...args: Parameters<typeof fs.readSync>) => {
    const n = original(...args);
    reads.push(n);
    return n;
  }) as typeof fs.readSync;
  const options = { codexHome: path.join(root, 'codex'), claudeHome: path.join(root, 'claude') };
  const first = discoverSessions(ws, options);
  assert.equal(first.length, 100);
  const firstBytes = reads.reduce((a, b) => a + b, 0);
  // Each head is read up to its first line end, not 64 KB per file.
  assert.ok(firstBytes > 300 * 1024 && firstBytes < 300 * 24 * 1024, `${firstBytes} bytes read`);
  reads.length = 0;
  assert.equal(discoverSessions(ws, options).length, 100);
  assert.equal(reads.length, 0, 'a second poll reads no file');
  // A rollout still writing its first line is read again until the line is complete, then matched.
  const growing = path.join(day, 'rollout-new.jsonl');
  const head = meta(ws);
  writeFileSync(growing, head.slice(0, 100));
  assert.equal(discoverSessions(ws, options).length, 100);
  appendFileSync(growing, `${head.slice(100)}\n`);
  assert.equal(discoverSessions(ws, options).length, 101);
  reads.length = 0;
  discoverSessions(ws, options);
  assert.equal(reads.length, 0);
});
