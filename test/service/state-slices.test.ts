/**
 * The state save made in slices: the text written out over several turns is the text of one
 * synchronous save (the same file format), a large state is written out over many turns, the save
 * takes the state as it was when it started (changes made meanwhile wait for the next save), a
 * save overtaken by a synchronous one while its text is being made is never written, and a text
 * written in pieces lands whole.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { SaveQueue, type SaveTarget } from '../../src/service/session/save-queue';
import { SessionStore } from '../../src/service/session/store';
import type { SavedSessionState } from '../../src/service/session/store-format';
import { writeFileAtomicAsync, WRITE_PIECE_CHARS } from '../../src/service/session/atomic-file';
import { rawItem } from '../../src/compaction/context';
import { noteStoredItemText, storedItemText, toStored } from '../../src/service/session/stored-text';
import type { ContextItem, Entry } from '../../src/compaction/types';
import type { CheckpointRecord } from '../../src/service/records';
import { countingTurns } from '../support/turns';

/** Entries `e0`… with messages of some text (a non-ASCII character in each). */
function entries(n: number, from = 0): Entry[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `e${from + i}`,
    message: { role: i % 2 ? 'assistant' : 'user', content: `message ${from + i} — ünïcode` },
  }));
}

/** A state of `n` raw context items, a pinned one, a summary and a checkpoint replacing `n` more. */
function bigState(n: number): { state: SavedSessionState; all: Entry[] } {
  const replaced = entries(n, 0);
  const kept = entries(n, n);
  const summary: ContextItem = {
    id: 's1',
    kind: 'summary',
    covers: replaced.map((e) => e.id),
    message: { role: 'user', content: 'Summary: "quoted" and 🙂 and \\ back' },
  };
  const checkpoint: CheckpointRecord = {
    id: 'ck-00000001',
    time: '2026-01-01T00:00:00.000Z',
    trigger: 'manual',
    strategy: 'summary',
    summary: 'Summary text',
    tokensBefore: 1000,
    tokensAfter: 100,
    replacedIds: replaced.map((e) => e.id),
    replaced: replaced.map(rawItem),
    inserted: [summary],
  };
  const context = [summary, ...kept.map(rawItem)];
  context[5] = { ...context[5], pinned: true };
  return {
    all: [...replaced, ...kept],
    state: {
      sessionId: 'slices',
      model: 'gpt-4o',
      source: 'Imported: test',
      createdAt: '2026-01-01T00:00:00.000Z',
      context,
      pinned: [context[5].id],
      checkpoints: [checkpoint],
    },
  };
}

/** The text without its save time (the one field that differs between two saves of one state). */
const timeless = (text: string) => text.replace(/"updatedAt":"[^"]*"/, '"updatedAt":"T"');

test('the state written out in slices is the text of one synchronous save, and it loads back', async (t) => {
  const storage = mkdtempSync(path.join(tmpdir(), 'ck-state-slices-'));
  t.after(() => rmSync(storage, { recursive: true, force: true }));
  const { store } = SessionStore.open(storage, 'slices');
  t.after(() => store.close());
  const { state, all } = bigState(20_000);
  store.append(all);
  const { result: pieces, turns } = await countingTurns(() => store.stateTextSliced(state, 0));
  const whole = store.stateText(state);
  assert.equal(timeless(pieces.join('')), timeless(whole));
  assert.ok(pieces.length > 10, `written out in many pieces (${pieces.length})`);
  assert.ok(turns >= 10, `over many turns of the event loop (${turns})`);
  // The same format: the sliced text is what the store loads.
  assert.ok(await store.writeStateTextAsync(pieces, () => true));
  store.close();
  const { store: again, loaded } = SessionStore.open(storage, 'slices');
  t.after(() => again.close());
  assert.deepEqual(loaded.warnings, []);
  assert.equal(loaded.state?.context.length, state.context.length);
  assert.deepEqual(
    loaded.state?.context.map((i) => [i.id, i.pinned ?? false]),
    state.context.map((i) => [i.id, i.pinned ?? false]),
  );
  assert.deepEqual(loaded.state?.checkpoints[0].replacedIds, state.checkpoints[0].replacedIds);
  assert.equal(loaded.state?.checkpoints[0].replaced.length, 20_000);
  assert.equal(loaded.state?.context[0].message.content, state.context[0].message.content);
});

test('a sliced save writes the state as it was when it started; a synchronous save meanwhile overtakes it', async () => {
  let content = ['v1'];
  const written: string[] = [];
  let release: (() => void) | undefined;
  const target: SaveTarget = {
    serialize: () => content.join(''),
    serializeSliced: () => {
      const taken = [...content];
      return new Promise((resolve) => (release = () => resolve(taken)));
    },
    write: (text) => {
      written.push(typeof text === 'string' ? text : text.join(''));
      return Promise.resolve(true);
    },
    writeSync: (text) => void written.push(`sync ${text}`),
  };
  const queue = new SaveQueue(target, (e) => assert.fail(e));
  queue.request();
  content = ['v', '2'];
  release!();
  await queue.flush();
  assert.deepEqual(written, ['v1'], 'the text of the state when the save started');
  queue.request();
  assert.ok(release);
  content = ['v3'];
  queue.flushSync();
  release();
  await queue.idle();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(written, ['v1', 'sync v3'], 'the save overtaken while its text was made is not written');
  assert.equal(queue.pending, false);
});

test('a text written in pieces lands whole: small pieces joined, large ones cut, a surrogate pair never split', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ck-pieces-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'state.json');
  // A large piece whose cut falls inside a surrogate pair, small pieces, an empty one.
  const large = `${'a'.repeat(WRITE_PIECE_CHARS - 1)}🙂${'b'.repeat(WRITE_PIECE_CHARS)}🙂`;
  const pieces = ['{"x":"', 'é', '', large, ...Array.from({ length: 3000 }, (_, i) => `${i}🙂`), '"}\n'];
  assert.ok(await writeFileAtomicAsync(file, pieces));
  assert.equal(readFileSync(file, 'utf8'), pieces.join(''));
});

test("an item's stored text is its stored form's JSON (a summary kept once written; raw items by reference, pins kept)", () => {
  const { state } = bigState(10);
  for (const item of [...state.context, ...state.checkpoints[0].inserted])
    assert.equal(storedItemText(item), JSON.stringify(toStored(item)), item.id);
  assert.equal(storedItemText(state.context[5]), `{"ref":"${state.context[5].id}","pinned":true}`);
  const summary = state.context[0];
  noteStoredItemText(summary, '{"written":"elsewhere"}');
  assert.equal(storedItemText(summary), '{"written":"elsewhere"}', 'the text the worker wrote is taken as it is');
});
