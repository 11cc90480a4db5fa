/**
 * The way back from the compaction worker: lists of items travel as runs of numbers and a made
 * item's covered ids as the items sent that hold them, so a summary of a long span costs the
 * receiving thread a few numbers; the large texts for the save come as bytes, handed over and
 * written as they are. Decoded, the result is the one the same compaction gives inline.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { coveredIds, itemsFromEntries } from '../../src/compaction/context';
import { prepareCompaction } from '../../src/compaction/rewrite/compactor';
import { keptApplication, type PreparedCompaction } from '../../src/compaction/rewrite/commit';
import type { ContextItem } from '../../src/compaction/types';
import {
  BYTES_MIN_CHARS,
  COVERS_BY_REF_MIN,
  decodeResult,
  encodeResult,
} from '../../src/service/compaction/worker/protocol';
import {
  asString,
  jsonListPieces,
  PIECE_ELEMENTS,
  storedCheckpointPieces,
  storedCheckpointText,
  storedItemPiece,
  toStored,
} from '../../src/service/session/stored-text';
import { budget, meter, normalized, session, summarizer, tools } from './worker-fixtures';

/** What arrives on the other side: encoded as the worker does, then copied as a message is. */
function crossed(result: PreparedCompaction, sent: readonly ContextItem[]) {
  const encoded = encodeResult(result, sent, (m) => meter.countMessage(m), keptApplication(result));
  const { result: back, made } = structuredClone(encoded);
  return { back, made, items: made.flatMap((b) => b.items), covers: made.flatMap((b) => b.covers) };
}

test('a summary of a long span comes back as runs of numbers and is decoded to the inline result', async () => {
  // No collapsed tool results: the span summarized is then messages sent, one after another.
  const options = { budget: budget(16_000), trigger: 'auto' as const, noCollapse: true };
  const items = itemsFromEntries(session(4, 150));
  // The worker runs on its own copies of the items, as a structured clone makes them.
  const copies = structuredClone(items);
  const inWorker = await prepareCompaction({ items: copies, tools, meter, summarizer, options });
  const inline = await prepareCompaction({ items, tools, meter, summarizer, options });
  assert.ok(!('status' in inWorker) && !('status' in inline), 'a compaction was prepared');
  const { back, made, items: madeItems, covers } = crossed(inWorker, copies);
  assert.ok('prepared' in back);

  const summary = inWorker.checkpoints.find((cp) => cp.inserted[0]?.kind === 'summary');
  assert.ok(summary, 'the compaction summarized a span');
  const at = inWorker.checkpoints.indexOf(summary);
  assert.ok(summary.replaced.length > 100, `the span is long (${summary.replaced.length} messages)`);
  const first = copies.indexOf(summary.replaced[0]);
  assert.ok(
    summary.replaced.every((it, k) => copies[first + k] === it),
    'the span is consecutive messages',
  );
  assert.deepEqual(back.prepared.checkpoints[at].replaced, [first, summary.replaced.length], 'the span is one run');
  const madeSummary = madeItems.findIndex((it) => it.kind === 'summary');
  assert.ok(summary.inserted[0].covers.length >= COVERS_BY_REF_MIN);
  assert.deepEqual(madeItems[madeSummary].covers, [], "the summary's ids do not travel");
  assert.deepEqual(covers[madeSummary], [first, summary.replaced.length], 'they are the items of the span');

  // Decoded against the caller's objects, grown by a message sent meanwhile.
  const late = itemsFromEntries([{ id: 'late', message: { role: 'user', content: 'Keep the logs.' } }]);
  const decoded = await decodeResult(back, [...items, ...late], made);
  assert.ok(!('status' in decoded));
  assert.equal(normalized(decoded.checkpoints), normalized(inline.checkpoints));
  const own = new Set(items);
  for (const cp of decoded.checkpoints) for (const it of cp.replaced) assert.ok(own.has(it), 'the caller’s object');
  assert.deepEqual(decoded.checkpoints[at].inserted[0].covers, summary.inserted[0].covers);
});

/** `items` with each item's `covers` read counted in `reads.n` (the same objects otherwise). */
function countingCovers(items: readonly ContextItem[], reads: { n: number }): void {
  for (const it of items) {
    const covers = it.covers;
    Object.defineProperty(it, 'covers', {
      get: () => {
        reads.n++;
        return covers;
      },
      set: () => assert.fail('an item sent is never changed'),
      enumerable: true,
      configurable: true,
    });
  }
}

test("a summary's replaced ids are its own ids, copied: each replaced item is read once, and a count that does not add up is refused", async () => {
  const options = { budget: budget(16_000), trigger: 'auto' as const, noCollapse: true };
  const items = itemsFromEntries(session(5, 150));
  const copies = structuredClone(items);
  const inWorker = await prepareCompaction({ items: copies, tools, meter, summarizer, options });
  assert.ok(!('status' in inWorker));
  const at = inWorker.checkpoints.findIndex((cp) => cp.inserted[0]?.kind === 'summary');
  assert.ok(at >= 0, 'the compaction summarized a span');
  const summary = inWorker.checkpoints[at];
  const { back, made, items: madeItems } = crossed(inWorker, copies);
  assert.ok('prepared' in back);
  const encoded = back.prepared.checkpoints[at];
  assert.equal(
    madeItems[(encoded.replacedIdsOf ?? -1) - copies.length]?.kind,
    'summary',
    'the replaced ids are the summary item’s',
  );
  assert.equal(encoded.replacedIdCount, summary.replaced.length);

  const reads = { n: 0 };
  countingCovers(items, reads);
  const decoded = await decodeResult(structuredClone(back), items, structuredClone(made), undefined, meter);
  assert.ok(!('status' in decoded));
  const ids = summary.replaced.map((it) => it.id);
  assert.deepEqual(decoded.checkpoints[at].inserted[0].covers, ids);
  assert.deepEqual(keptApplication(decoded)?.checkpoints[at].replacedIds, ids, 'the checkpoint’s replaced ids');
  assert.notEqual(
    keptApplication(decoded)?.checkpoints[at].replacedIds,
    decoded.checkpoints[at].inserted[0].covers,
    'a list of their own',
  );
  assert.equal(reads.n, summary.replaced.length, 'each replaced item read once');

  // Worker and caller disagree on how many ids the items cover: refused, never a list with holes.
  const miscounted = structuredClone(made);
  const k = miscounted.findIndex((b) => b.covers.some((c) => c !== null));
  miscounted[k].coverIds = miscounted[k].coverIds.map((n) => (n > 0 ? n + 1 : n));
  await assert.rejects(decodeResult(structuredClone(back), items, miscounted), /do not cover the \d+ ids/);
  const wrongIds = structuredClone(back);
  assert.ok('prepared' in wrongIds);
  wrongIds.prepared.checkpoints[at].replacedIdsOf = undefined;
  wrongIds.prepared.checkpoints[at].replacedIdCount -= 1;
  await assert.rejects(decodeResult(wrongIds, items, structuredClone(made)), /do not cover the \d+ ids/);
});

test('ids a made item covers that are not the ids of items sent, one after another, travel as they are', async () => {
  const items = itemsFromEntries(session(2, 40));
  const replaced = items.slice(1, 1 + 2 * COVERS_BY_REF_MIN);
  // One id no item sent covers (the items sent are not all the context holds): no list of items gives them.
  const covers = ['m-elsewhere', ...replaced.map((it) => it.id)];
  const inserted: ContextItem = {
    id: 'summary-1',
    kind: 'summary',
    message: { role: 'user', content: 'A summary.' },
    covers,
    checkpointId: 'ck-00000001',
  };
  const prepared: PreparedCompaction = {
    checkpoints: [
      {
        id: 'ck-00000001',
        time: new Date(0).toISOString(),
        trigger: 'manual',
        strategy: 'summary',
        replacedIds: replaced.map((it) => it.id),
        replaced,
        inserted: [inserted],
        summary: 'A summary.',
        tokensBefore: 0,
        tokensAfter: 0,
      },
    ],
    tokensBefore: 0,
    tokensAfter: 0,
    startedAt: 0,
  };
  const { back, made, ...sent } = crossed(prepared, items);
  assert.deepEqual(sent.covers, [null]);
  assert.deepEqual(sent.items[0].covers, covers, 'the ids travel with the item');
  const decoded = await decodeResult(back, items, made);
  assert.ok(!('status' in decoded));
  assert.deepEqual(decoded.checkpoints[0].inserted[0].covers, covers);
  assert.deepEqual(decoded.checkpoints[0].replaced, replaced);
});

test('large texts for the save come back as bytes, handed over, and are saved as the same text', async () => {
  const options = { budget: budget(16_000), trigger: 'auto' as const, noCollapse: true };
  const items = itemsFromEntries(session(6, 2_500));
  const copies = structuredClone(items);
  const inWorker = await prepareCompaction({ items: copies, tools, meter, summarizer, options });
  assert.ok(!('status' in inWorker));
  const encoded = encodeResult(inWorker, copies, (m) => meter.countMessage(m), keptApplication(inWorker));
  assert.ok(encoded.transfer.length > 0, 'some texts are bytes');
  const { result: back, made } = structuredClone(
    { result: encoded.result, made: encoded.made },
    { transfer: encoded.transfer },
  );
  assert.ok('prepared' in back);
  const sentAsBytes = back.prepared.checkpoints.flatMap((cp) => [
    cp.replacedText,
    cp.replacedIdsText,
    ...cp.insertedTexts,
  ]);
  assert.ok(sentAsBytes.some((text) => text instanceof Uint8Array && text.length >= BYTES_MIN_CHARS));
  const decoded = await decodeResult(back, items, made, undefined, meter);
  assert.ok(!('status' in decoded));
  const checkpoint = decoded.checkpoints.find((cp) => cp.inserted[0]?.kind === 'summary');
  assert.ok(checkpoint);
  const { replaced, inserted, replacedIds: _ids, ...rest } = checkpoint;
  void _ids;
  const expected = JSON.stringify({
    ...rest,
    inserted: inserted.map(toStored),
    replaced: replaced.map(toStored),
    replacedIds: coveredIds(replaced),
  });
  const withIds = { ...checkpoint, replacedIds: coveredIds(replaced) };
  // The pieces a save writes (bytes among them), and the text a synchronous save makes.
  const pieces = [...storedCheckpointPieces(withIds)];
  assert.ok(
    pieces.some((piece) => typeof piece !== 'string'),
    'bytes are written as they are',
  );
  assert.equal(pieces.map(asString).join(''), expected);
  assert.equal(storedCheckpointText(withIds), expected);
  assert.equal(asString(storedItemPiece(inserted[0])), JSON.stringify(inserted[0]));
});

test('a list whose elements are characters and bytes is written as the JSON list of their texts', () => {
  const bytes = new TextEncoder();
  const texts = Array.from({ length: 2 * PIECE_ELEMENTS + 3 }, (_, k) => `{"n":${k},"é":"ü"}`);
  for (const asBytes of [[0], [1, 2], [PIECE_ELEMENTS - 1, PIECE_ELEMENTS], [texts.length - 1], []]) {
    const pieces = [...jsonListPieces(texts, (t) => (asBytes.includes(texts.indexOf(t)) ? bytes.encode(t) : t))];
    assert.equal(pieces.map(asString).join(''), `[${texts.join(',')}]`, `bytes at ${asBytes.join(', ')}`);
    assert.equal(pieces.filter((p) => typeof p !== 'string').length, asBytes.length);
  }
});
