/**
 * The ordered state save: saves run one at a time and in order, requests made meanwhile coalesce
 * into one write of the newest state, a torn or failed write never replaces the good file, closing
 * writes what is pending (and a write still in flight cannot overwrite it afterwards), and a failed
 * save is an error in the log and the service state, retried so that nothing is lost.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { SaveQueue, type SaveTarget } from '../../src/service/session/save-queue';
import { SessionStore } from '../../src/service/session/store';
import { text } from '../../src/demo/modelserver/replies';
import { serviceFixture } from './fixtures';

/** A target whose writes end when the test says so; records what each write was given and when. */
function heldTarget(content: () => string) {
  const events: string[] = [];
  const held: Array<{ text: string; finish: (error?: Error) => void; stillWanted: () => boolean }> = [];
  const written: string[] = [];
  const target: SaveTarget = {
    serialize: content,
    write: (pieces, stillWanted) => {
      const t = typeof pieces === 'string' ? pieces : pieces.join('');
      events.push(`start ${t}`);
      return new Promise<boolean>((resolve, reject) => {
        held.push({
          text: t,
          stillWanted,
          finish: (error) => {
            events.push(`end ${t}`);
            if (error) reject(error);
            else if (!stillWanted()) resolve(false);
            else {
              written.push(t);
              resolve(true);
            }
          },
        });
      });
    },
    writeSync: (t) => {
      events.push(`sync ${t}`);
      written.push(t);
    },
  };
  return { target, events, held, written };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('saves run one at a time, in order; requests made during a write coalesce into one write of the newest content', async () => {
  let state = 'v1';
  const { target, events, held, written } = heldTarget(() => state);
  const queue = new SaveQueue(target, (e) => assert.fail(e));
  queue.request();
  state = 'v2';
  queue.request();
  state = 'v3';
  queue.request();
  state = 'v4';
  queue.request();
  assert.deepEqual(events, ['start v1'], 'one write at a time: the next waits for the first');
  held[0].finish();
  await tick();
  assert.deepEqual(events, ['start v1', 'end v1', 'start v4'], 'v2 and v3 are never written: the newest state wins');
  const flushed = queue.flush();
  held[1].finish();
  await flushed;
  assert.deepEqual(written, ['v1', 'v4']);
  assert.equal(queue.pending, false);
});

test('closing writes the pending state at once, and a write still in flight does not replace it afterwards', async () => {
  let state = 'old';
  const { target, events, held, written } = heldTarget(() => state);
  const queue = new SaveQueue(target, (e) => assert.fail(e));
  queue.request();
  state = 'newest';
  queue.close();
  assert.deepEqual(events, ['start old', 'sync newest']);
  assert.equal(held[0].stillWanted(), false, 'the write in flight is overtaken');
  held[0].finish();
  await tick();
  assert.deepEqual(written, ['newest'], 'the older write did not land after the close');
  assert.throws(() => queue.request(), /closed/);
});

test('after closing, idle resolves only once the write left in flight has ended', async () => {
  const { target, held } = heldTarget(() => 'state');
  const queue = new SaveQueue(target, (e) => assert.fail(e));
  queue.request();
  queue.close();
  let ended = false;
  const idle = queue.idle().then(() => (ended = true));
  await tick();
  assert.equal(ended, false, 'the write in flight has not ended yet');
  held[0].finish();
  await idle;
  assert.equal(ended, true);
});

test('a failed write is reported, keeps the state pending, and the next flush writes it', async () => {
  const { target, held, written } = heldTarget(() => 'state');
  const errors: Error[] = [];
  const queue = new SaveQueue(target, (e) => errors.push(e));
  queue.request();
  const failing = queue.flush();
  held[0].finish(new Error('disk full'));
  await assert.rejects(failing, /disk full/);
  assert.deepEqual(
    errors.map((e) => e.message),
    ['disk full'],
  );
  assert.equal(queue.pending, true, 'nothing lost: still to be written');
  const retry = queue.flush();
  await tick();
  held[1].finish();
  await retry;
  assert.deepEqual(written, ['state']);
  assert.equal(queue.lastError, undefined);
});

test(
  'a state write torn by the file-size limit never replaces the good state file',
  { skip: process.platform === 'win32' ? 'needs ulimit' : false },
  async (t) => {
    const storage = mkdtempSync(path.join(tmpdir(), 'ck-torn-state-'));
    t.after(() => rmSync(storage, { recursive: true, force: true }));
    const storeModule = require.resolve('../../src/service/session/store');
    // A small state is written, then a state over the 64 KiB limit: its temp file is cut at the limit.
    const code = `
    const { SessionStore } = require(${JSON.stringify(storeModule)});
    const { store } = SessionStore.open(${JSON.stringify(storage)}, 'torn');
    const state = (n, size) => ({ sessionId: 'torn', model: 'm', source: 'test', createdAt: 'now', pinned: [], checkpoints: [],
      context: [{ id: 's' + n, kind: 'summary', covers: [], message: { role: 'user', content: 'x'.repeat(size) } }] });
    store.writeState(state(1, 1000));
    store.writeStateTextAsync(store.stateText(state(2, 200000)), () => true).then(
      () => console.log('written'),
      (e) => { console.log('error ' + e.code); store.close(); });`;
    const out = await new Promise<string>((resolve, reject) => {
      const proc = spawn('bash', ['-c', `trap '' XFSZ; ulimit -f 64; exec "${process.execPath}" -e "$CK_CODE"`], {
        env: { ...process.env, CK_CODE: code },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let s = '';
      proc.stdout.on('data', (d: Buffer) => (s += d.toString()));
      proc.on('error', reject);
      proc.on('exit', () => resolve(s));
    });
    assert.match(out, /error EFBIG/);
    const folder = path.join(storage, 'torn');
    assert.deepEqual(
      readdirSync(folder).filter((f) => f.endsWith('.tmp')),
      [],
      'the torn temp file is removed',
    );
    const { store, loaded } = SessionStore.open(storage, 'torn');
    t.after(() => store.close());
    assert.deepEqual(loaded.warnings, []);
    assert.equal(loaded.state?.context[0].id, 's1', 'the good state is still the one on disk');
  },
);

/** Runs a child that saves ever larger states asynchronously, back to back, until killed. */
function asyncSaverUntilKilled(storage: string, killAfterMs: number): Promise<void> {
  const storeModule = require.resolve('../../src/service/session/store');
  const code = `
    const { SessionStore } = require(${JSON.stringify(storeModule)});
    const { store } = SessionStore.open(${JSON.stringify(storage)}, 'kill');
    let n = 0;
    const state = () => ({ sessionId: 'kill', model: 'm', source: 'test', createdAt: 'now', pinned: [], checkpoints: [],
      context: [{ id: 's' + n, kind: 'summary', covers: [], message: { role: 'user', content: 'y'.repeat(50000 + (n * 7919) % 400000) } }] });
    const next = () => {
      n++;
      store.writeStateTextAsync(store.stateText(state()), () => true).then(next);
    };
    store.writeState(state());
    console.log('started');
    next();`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.once('data', () => setTimeout(() => child.kill('SIGKILL'), killAfterMs));
    child.on('error', reject);
    child.on('exit', () => resolve());
  });
}

test('a process killed (SIGKILL) during asynchronous state saves always leaves a whole state file', async (t) => {
  const storage = mkdtempSync(path.join(tmpdir(), 'ck-kill-state-'));
  t.after(() => rmSync(storage, { recursive: true, force: true }));
  for (const killAfterMs of [40, 95, 170, 260]) {
    await asyncSaverUntilKilled(storage, killAfterMs);
    const { store, loaded } = SessionStore.open(storage, 'kill');
    store.close();
    assert.deepEqual(
      loaded.warnings.filter((w) => /state/.test(w)),
      [],
      `killed after ${killAfterMs} ms`,
    );
    assert.match(
      loaded.state?.context[0]?.id ?? '',
      /^s\d+$/,
      `killed after ${killAfterMs} ms: a whole state file loads`,
    );
  }
});

test('closing the service writes a rewrite saved just before, and a failed save is an error that a later save makes good', async (t) => {
  const log: string[] = [];
  const fx = await serviceFixture(() => text('ok'), { log: (level, message) => log.push(`${level}: ${message}`) });
  t.after(fx.cleanup);
  const states: string[] = [];
  fx.service.onDidChangeState((s) => states.push(`${s.state}: ${s.detail ?? ''}`));
  await fx.service.runTask('first request');
  await fx.service.whenSaved();
  const folder = fx.service.sessionDir!;
  const stateFile = path.join(folder, 'state.json');
  const pinnedIn = () => (JSON.parse(readFileSync(stateFile, 'utf8')) as { pinned: string[] }).pinned;
  const user = fx.service.getTranscript().entries.find((e) => e.message.role === 'user')!;

  // A directory where the state file goes: the rename fails, as a real I/O error would.
  rmSync(stateFile);
  mkdirSync(stateFile);
  await fx.service.pin(user.id);
  await assert.rejects(fx.service.whenSaved(), /could not save the session state to .*state\.json/);
  assert.ok(
    log.some((l) => /^error: could not save the session state to .*state\.json/.test(l)),
    log.join('\n'),
  );
  assert.ok(
    states.some((s) => /^error: could not save the session state/.test(s)),
    states.join('\n'),
  );
  assert.deepEqual(fx.service.getTranscript().pinned, [user.id], 'the change stays in memory');
  assert.deepEqual(
    readdirSync(folder).filter((f) => f.endsWith('.tmp')),
    [],
  );

  // The disk is usable again: the next save writes the newest state; nothing was lost.
  rmSync(stateFile, { recursive: true });
  await fx.service.whenSaved();
  assert.deepEqual(pinnedIn(), [user.id]);

  // Saved after pin() returns; closing writes it at once.
  await fx.service.pin(user.id, false);
  await fx.service.pin(user.id, true);
  await fx.service.pin(user.id, false);
  fx.service.dispose();
  assert.deepEqual(pinnedIn(), [], 'the newest state is on disk when dispose returns');
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(pinnedIn(), [], 'no older save in flight replaced it afterwards');
  assert.ok(existsSync(path.join(folder, 'state.prev.json')), 'the previous state is kept as a fallback');
});
