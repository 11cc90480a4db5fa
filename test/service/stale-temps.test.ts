/**
 * Temp files a crash left mid-save are removed when the session folder is opened: only the names
 * the atomic writer makes for the folder's own files, only stale ones (their writer gone, or this
 * process with no write of that name in flight); a save in flight and another live process's temp
 * file are left alone, and so are files of other names.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { removeStaleTempFiles, writeFileAtomicAsync } from '../../src/service/session/atomic-file';
import { SessionStore } from '../../src/service/session/store';

/** A process id that runs no process now: a child that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

test('opening a session folder removes the temp files of an interrupted save, and only those', async (t) => {
  const storage = mkdtempSync(path.join(tmpdir(), 'ck-temps-'));
  t.after(() => rmSync(storage, { recursive: true, force: true }));
  const folder = path.join(storage, 's1');
  const first = SessionStore.open(storage, 's1').store;
  first.close();
  const gone = await deadPid();
  const stale = [
    `state.json.${gone}.1700000000000.3.tmp`,
    `calibration.json.${gone}.1700000000000.4.tmp`,
    `state.json.${process.pid}.1700000000000.9.tmp`,
  ];
  // A live process's temp (this test's parent: alive, not us), someone else's file, a look-alike of another name.
  const kept = [
    `state.json.${process.ppid}.1700000000000.5.tmp`,
    'notes.tmp',
    `other.json.${gone}.1700000000000.6.tmp`,
  ];
  for (const name of [...stale, ...kept]) writeFileSync(path.join(folder, name), '{"half');
  const { store, loaded } = SessionStore.open(storage, 's1');
  t.after(() => store.close());
  for (const name of stale) assert.equal(existsSync(path.join(folder, name)), false, `${name} removed`);
  for (const name of kept) assert.equal(existsSync(path.join(folder, name)), true, `${name} kept`);
  assert.deepEqual([...(loaded.removedTemps ?? [])].sort(), [...stale].sort(), 'named for the log');
  assert.deepEqual(loaded.warnings, [], 'housekeeping, not a problem of the session');
});

test('a temp file of a save in flight in this process is never removed', async (t) => {
  const folder = mkdtempSync(path.join(tmpdir(), 'ck-temps-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const file = path.join(folder, 'state.json');
  let swept: string[] = [];
  let tempsSeen: string[] = [];
  // Swept right before the rename: the temp file is whole on disk and its write is in flight.
  const replaced = await writeFileAtomicAsync(file, '{"v":1}\n', () => {
    tempsSeen = readdirSync(folder).filter((name) => name.endsWith('.tmp'));
    swept = removeStaleTempFiles(folder, ['state.json'], () => false);
    return true;
  });
  assert.equal(tempsSeen.length, 1, 'the write had its temp file');
  assert.deepEqual(swept, [], 'nothing swept');
  assert.equal(replaced, true, 'the write ended with its rename');
  assert.deepEqual(readdirSync(folder), ['state.json']);
  // Once the write has ended, a leftover of this process under that name is stale.
  writeFileSync(path.join(folder, tempsSeen[0]), 'left');
  assert.deepEqual(
    removeStaleTempFiles(folder, ['state.json'], () => true),
    [tempsSeen[0]],
  );
});
