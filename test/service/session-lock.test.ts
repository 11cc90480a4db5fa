/**
 * The session folder's lock: one writer per session across processes and inside one process; a lock
 * whose process id was reused, whose process died or whose heartbeat stopped is taken over; a holder
 * whose lock was taken over refuses to write.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir, hostname } from 'node:os';
import * as path from 'node:path';
import { SessionStore } from '../../src/service/session/store';
import { LOCK_STALE_MS, SessionLock, type LockSystem } from '../../src/service/session/session-lock';

function folder(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ck-lock-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const storeModule = path.resolve(__dirname, '../../src/service/session/store.js');

/**
 * Opens the session in a child process at `at` (epoch ms) and reports rw or ro; the child holds the
 * session until `release` is called, so two children that both report rw held it at the same time.
 */
function openInChild(storage: string, id: string, at: number): { mode: Promise<string>; release: () => Promise<void> } {
  const script = `
    const { SessionStore } = require(${JSON.stringify(storeModule)});
    while (Date.now() < ${at}) {}
    const { store, loaded } = SessionStore.open(${JSON.stringify(storage)}, ${JSON.stringify(id)});
    process.stdout.write(loaded.readOnly ? 'ro' : 'rw');
    process.stdin.resume();
    process.stdin.on('end', () => { store.close(); process.exit(0); });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`child exited ${code}`))));
  });
  const mode = new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (d: Buffer) => resolve(d.toString()));
    exited.catch(reject);
  });
  return {
    mode,
    release: () => {
      child.stdin.end();
      return exited;
    },
  };
}

test('two processes opening one session at the same moment never both get write access', async (t) => {
  const storage = folder(t);
  for (let i = 0; i < 10; i++) {
    const at = Date.now() + 500;
    const children = [openInChild(storage, `s${i}`, at), openInChild(storage, `s${i}`, at)];
    // Both have opened before either lets go: two "rw" would be two writers at once.
    const got = (await Promise.all(children.map((c) => c.mode))).sort();
    await Promise.all(children.map((c) => c.release()));
    assert.deepEqual(got, ['ro', 'rw'], `trial ${i}: exactly one writer`);
  }
});

test('a second store of the same session in one process opens read-only; the first keeps writing', (t) => {
  const storage = folder(t);
  const first = SessionStore.open(storage, 's');
  t.after(() => first.store.close());
  assert.equal(first.loaded.readOnly, undefined);
  const second = SessionStore.open(storage, 's');
  assert.match(second.loaded.readOnly ?? '', /already open in this window/);
  assert.throws(() => second.store.append([{ id: 'x', message: { role: 'user', content: 'hi' } }]), /cannot write/);
  second.store.close();
  first.store.append([{ id: 'e1', message: { role: 'user', content: 'still mine' } }]);
  assert.match(readFileSync(first.store.transcriptPath, 'utf8'), /still mine/);
  first.store.close();
  // Released: the next open writes.
  const third = SessionStore.open(storage, 's');
  assert.equal(third.loaded.readOnly, undefined);
  third.store.close();
});

/** A system where `pid` is alive and this process is someone else, at a chosen clock. */
function systemWith(overrides: Partial<LockSystem>): LockSystem {
  return { now: () => Date.now(), alive: () => true, hostname: () => hostname(), pid: 999_999_001, ...overrides };
}

test('a lock whose process id now belongs to another process is taken over once its heartbeat is old', (t) => {
  const dir = folder(t);
  const file = path.join(dir, 'lock');
  // A crashed holder's lock: its pid is alive again (reused by an unrelated process).
  writeFileSync(file, JSON.stringify({ pid: 4242, host: hostname(), token: 'old', takenAt: 0 }));
  const alive = (pid: number) => pid === 4242;
  const held = SessionLock.acquire(file, systemWith({ alive }));
  assert.match(held.heldBy ?? '', /open in another window \(process 4242\)/, 'a fresh heartbeat counts as live');
  const old = (Date.now() - LOCK_STALE_MS - 5_000) / 1000;
  utimesSync(file, old, old);
  const taken = SessionLock.acquire(file, systemWith({ alive }));
  assert.ok(taken.lock, 'taken over: a reused pid has no heartbeat');
  assert.equal(JSON.parse(readFileSync(file, 'utf8')).token, taken.lock.token);
  taken.lock.release();
  assert.equal(existsSync(file), false);
});

test('a lock of a dead process is taken over at once; one of this pid that no store holds is stale', (t) => {
  const dir = folder(t);
  const file = path.join(dir, 'lock');
  writeFileSync(file, JSON.stringify({ pid: 4243, host: hostname(), token: 'gone', takenAt: 0 }));
  const a = SessionLock.acquire(file, systemWith({ alive: () => false }));
  assert.ok(a.lock);
  a.lock.release();
  // An earlier process had the same id as this one (a restart in a container): no store here holds it.
  writeFileSync(file, JSON.stringify({ pid: process.pid, host: hostname(), token: 'earlier', takenAt: 0 }));
  const b = SessionLock.acquire(file);
  assert.ok(b.lock);
  b.lock.release();
});

test('a lock from another host is held while its heartbeat is fresh; an empty lock being written is held while fresh', (t) => {
  const dir = folder(t);
  const file = path.join(dir, 'lock');
  writeFileSync(file, JSON.stringify({ pid: 7, host: 'build-box', token: 'far', takenAt: 0 }));
  assert.match(SessionLock.acquire(file).heldBy ?? '', /open on build-box/);
  const old = (Date.now() - LOCK_STALE_MS - 5_000) / 1000;
  utimesSync(file, old, old);
  const far = SessionLock.acquire(file);
  assert.ok(far.lock);
  far.lock.release();
  writeFileSync(file, '');
  assert.match(SessionLock.acquire(file).heldBy ?? '', /opening the session/);
  utimesSync(file, old, old);
  const empty = SessionLock.acquire(file);
  assert.ok(empty.lock);
  empty.lock.release();
});

test('a store whose lock was taken over (its heartbeat stopped) refuses to write', (t) => {
  const storage = folder(t);
  const { store } = SessionStore.open(storage, 's');
  t.after(() => store.close());
  store.append([{ id: 'e1', message: { role: 'user', content: 'one' } }]);
  const file = path.join(store.folder, 'lock');
  // Another window found the heartbeat old and took the lock over.
  writeFileSync(file, JSON.stringify({ pid: 4244, host: hostname(), token: 'theirs', takenAt: Date.now() }));
  assert.throws(() => store.append([{ id: 'e2', message: { role: 'user', content: 'two' } }]), /took the session over/);
  assert.doesNotMatch(readFileSync(store.transcriptPath, 'utf8'), /"two"/);
  store.close();
  assert.equal(JSON.parse(readFileSync(file, 'utf8')).token, 'theirs', "closing leaves the other window's lock");
});
