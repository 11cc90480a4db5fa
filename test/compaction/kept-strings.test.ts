/**
 * Caches kept across compactions keep copies of the strings they are given, never views into the
 * text those strings were cut from (an earlier summary, a message): a kept line or request that is
 * a slice of a 16 MB text must not keep the 16 MB. And the line counts kept across counters are
 * bounded by characters as well as by lines.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  LineCounter,
  newLineStore,
  lineStoreFull,
  sharedLineStore,
  SHARED_CHARS,
} from '../../src/tokenizer/line-count';
import { words } from '../../src/compaction/retention/presence';
import { condensePastedOutput } from '../../src/compaction/summary/pasted-output';
import { standingRulesOf } from '../../src/compaction/summary/span-scan';
import { ownCopy } from '../../src/tokenizer/own-copy';

v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const PARENT_CHARS = 16_000_000;

/** Heap growth (bytes) left after `keep` is given a slice (`head`'s length) of a 16 MB text that starts with `head`. */
function heapKeptBy(head: string, keep: (slice: string) => unknown): number {
  gc();
  const before = process.memoryUsage().heapUsed;
  let parent: string | undefined = head + Buffer.alloc(PARENT_CHARS, 'filler text\n').toString('latin1');
  // Read as a whole first, so the slice below is a view into one flat string.
  assert.ok(parent.charCodeAt(PARENT_CHARS - 1) > 0);
  let slice: string | undefined = parent.slice(0, head.length);
  parent = undefined;
  const kept = keep(slice);
  slice = undefined;
  // The engine keeps the subject of the last successful match (RegExp.input): a match of its own.
  assert.ok(/a/.test('a'));
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  assert.ok(kept !== null);
  return grown;
}

const LIMIT = PARENT_CHARS / 4;

test('ownCopy keeps the characters of a slice, not the text it was cut from', () => {
  const kept: string[] = [];
  const grown = heapKeptBy('a line of some length, more than thirteen characters', (s) => kept.push(ownCopy(s)));
  assert.equal(kept[0], 'a line of some length, more than thirteen characters');
  assert.ok(grown < LIMIT, `${grown} bytes kept`);
});

test('shared line counts keep copies of their lines', () => {
  const line = 'Files edited most recently: src/app.ts, src/lib/util.ts\n';
  const grown = heapKeptBy(line.repeat(3), (s) =>
    new LineCounter((t) => t.length, true, 'kept-strings-a').countLines(s),
  );
  assert.ok(grown < LIMIT, `${grown} bytes kept`);
  const store = newLineStore();
  const grownStore = heapKeptBy(line.repeat(3), (s) => new LineCounter((t) => t.length, true, store).countLines(s));
  assert.ok(grownStore < LIMIT, `${grownStore} bytes kept`);
  assert.ok(store.chars > 0 && store.chars < 3 * line.length, `${store.chars} characters`);
});

test('words, condensed requests and rule lines keep copies of the request text', () => {
  const request =
    'Do not touch the old project folder. Please rename the handler in src/server/routes.ts and run the tests.';
  for (const [name, keep] of [
    ['words', (s: string) => words(s)],
    ['condensePastedOutput', (s: string) => condensePastedOutput(s)],
    ['standingRulesOf', (s: string) => standingRulesOf([], [s])],
  ] as const) {
    const grown = heapKeptBy(request, keep);
    assert.ok(grown < LIMIT, `${name}: ${grown} bytes kept`);
  }
  assert.deepEqual(standingRulesOf([], [request]), ['- "Do not touch the old project folder."']);
});

test('line counts kept across counters are bounded by characters as well as lines', () => {
  const encoding = 'kept-strings-b';
  const counter = new LineCounter((t) => t.length, true, encoding);
  // Few long lines: far under the line bound, over the character bound.
  const long = 'x'.repeat(100_000);
  let text = '';
  for (let i = 0; i * long.length <= SHARED_CHARS; i++) text += `${i} ${long}\n`;
  assert.equal(counter.countLines(text), text.length);
  const full = sharedLineStore(encoding)!;
  assert.ok(full.chars > SHARED_CHARS);
  assert.ok(lineStoreFull(full));
  new LineCounter((t) => t.length, true, encoding);
  assert.notEqual(sharedLineStore(encoding), full);
  assert.equal(sharedLineStore(encoding)!.chars, 0);
});
