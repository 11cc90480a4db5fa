/**
 * Discovery as the extension host polls it: asynchronous, and a rollout whose head was read is not
 * read again while it is the same file (same inode; same size and time while its first line is
 * still being written).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { clearHeadCache, discoverSessions, discoverSessionsAsync } from '../../src/watch/discovery';

const meta = (cwd: string) =>
  JSON.stringify({
    type: 'session_meta',
    payload: { id: 's', cwd, base_instructions: { text: 'You are Codex. '.repeat(800) } },
  });

test('async discovery reads each rollout head once: unchanged and appended-to rollouts are not read again', async (t) => {
  const root = fs.mkdtempSync(path.join(tmpdir(), 'ck-codex-async-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const ws = path.join(root, 'ws');
  fs.mkdirSync(ws);
  const day = path.join(root, 'codex', 'sessions', '2026', '03', '01');
  fs.mkdirSync(day, { recursive: true });
  const file = (i: number | string) => path.join(day, `rollout-${i}.jsonl`);
  for (let i = 0; i < 300; i++) fs.writeFileSync(file(i), `${meta(i % 3 === 0 ? ws : '/elsewhere')}\n{"type":"x"}\n`);
  clearHeadCache();
  const opened: string[] = [];
  const original = fs.promises.open;
  t.after(() => {
    fs.promises.open = original;
  });
  fs.promises.open = (...args: Parameters<typeof fs.promises.open>) => {
    opened.push(String(args[0]));
    return original(...args);
  };
  const options = { codexHome: path.join(root, 'codex'), claudeHome: path.join(root, 'claude') };

  const first = await discoverSessionsAsync(ws, options);
  assert.equal(first.length, 100);
  assert.equal(opened.length, 300, 'every head is read on the first poll');
  assert.deepEqual(
    first.map((s) => s.file).sort(),
    discoverSessions(ws, options)
      .map((s) => s.file)
      .sort(),
    'the same sessions as the synchronous discovery',
  );

  opened.length = 0;
  assert.equal((await discoverSessionsAsync(ws, options)).length, 100);
  assert.deepEqual(opened, [], 'a second poll over unchanged files reads none');

  // An agent appending to its rollout changes size and time, not its first line.
  fs.appendFileSync(file(0), '{"type":"y"}\n');
  const later = new Date(Date.now() + 5_000);
  fs.utimesSync(file(3), later, later);
  assert.equal((await discoverSessionsAsync(ws, options)).length, 100);
  assert.deepEqual(opened, [], 'appended-to rollouts are not read again');

  // A first line still being written is read again only once the file changed.
  const growing = file('new');
  const head = meta(ws);
  fs.writeFileSync(growing, head.slice(0, 100));
  assert.equal((await discoverSessionsAsync(ws, options)).length, 100);
  assert.deepEqual(opened, [growing]);
  opened.length = 0;
  assert.equal((await discoverSessionsAsync(ws, options)).length, 100);
  assert.deepEqual(opened, [], 'unchanged size and time: not read again');
  fs.appendFileSync(growing, `${head.slice(100)}\n`);
  assert.equal((await discoverSessionsAsync(ws, options)).length, 101);
  assert.deepEqual(opened, [growing]);

  // A file replaced under the same name (another inode) is read again.
  opened.length = 0;
  const replacement = path.join(day, 'replacement.tmp');
  fs.writeFileSync(replacement, `${meta('/elsewhere')}\n`);
  fs.renameSync(replacement, file(0));
  assert.equal((await discoverSessionsAsync(ws, options)).length, 100);
  assert.deepEqual(opened, [file(0)]);
});
