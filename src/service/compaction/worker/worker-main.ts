/**
 * Entry of the compaction worker (bundled as `dist/compaction-worker.js`). Long-lived: it keeps the
 * items it was sent (by the host's key), one exact meter per encoding (its rank table built once,
 * its per-message counts kept with the items) and runs one job at a time: the pure compaction core
 * (`prepareCompaction`) with the extractive summarizer, reporting progress per summarized span, then
 * the encoded result (see ./protocol). The host syncs only new items before each job
 * (./session-worker) and stops the thread on dispose or when idle.
 */
import { parentPort } from 'node:worker_threads';
import { prepareCompaction } from '../../../compaction/rewrite/compactor';
import { keptApplication } from '../../../compaction/rewrite/commit';
import { ExtractiveSummarizer } from '../../../compaction/summary/extractive';
import { TokenMeter } from '../../../compaction/meter/meter';
import { createTokenCounter, type EncodingName } from '../../../tokenizer/tokenizer';
import type { ContextItem, Summarizer } from '../../../compaction/types';
import { SummarizerError } from '../../../compaction/types';
import { encodeResult, type FromWorker, type RunMessage, type ToWorker } from './protocol';
import { keepMarks } from '../../../compaction/tool-outcomes';

const port = parentPort;
if (!port) throw new Error('the compaction worker must run in a worker thread');
/** Posts `message`, handing over the buffers in `transfer` (the sender no longer holds them). */
const post = (message: FromWorker, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);

/** The items sent so far, by key; pruned to the last job's context at each run. */
let held = new Map<number, ContextItem>();
const meters = new Map<EncodingName, { meter: TokenMeter; extractive: ExtractiveSummarizer }>();

function meterFor(encoding: EncodingName): { meter: TokenMeter; extractive: ExtractiveSummarizer } {
  let entry = meters.get(encoding);
  if (!entry) {
    const meter = new TokenMeter({ counter: createTokenCounter(encoding) });
    entry = {
      meter,
      extractive: new ExtractiveSummarizer((text) => meter.countText(text), { lineAdditive: meter.lineAdditive }),
    };
    meters.set(encoding, entry);
  }
  return entry;
}

/** The job's items in order, and `held` cut down to them (what the host now believes the worker has). */
function itemsOf(order: ArrayLike<number>): ContextItem[] {
  const items: ContextItem[] = new Array<ContextItem>(order.length);
  const kept = new Map<number, ContextItem>();
  for (let k = 0; k < order.length; k++) {
    const item = held.get(order[k]);
    if (item === undefined) throw new Error(`item key ${order[k]} (position ${k}) was never sent to the worker`);
    items[k] = item;
    kept.set(order[k], item);
  }
  held = kept;
  return items;
}

async function run(message: RunMessage): Promise<void> {
  const job = message.job;
  const items = itemsOf(message.order);
  const { meter, extractive } = meterFor(message.encoding);
  const total = items.length;
  let done = 0;
  // The extractive summarizer, reporting each span it is given (in messages, of the whole context)
  // and stopping at the next span once the host has cancelled (its answer is no longer awaited).
  const summarizer: Summarizer = {
    name: extractive.name,
    summarize: (request) => {
      if (Atomics.load(message.cancel, 0) !== 0) throw new SummarizerError('compaction cancelled', 'aborted');
      done += request.items.length;
      post({
        type: 'progress',
        job,
        message: `summarizing ${request.items.length.toLocaleString('en-US')} messages`,
        done,
        total,
      });
      return extractive.summarize(request);
    },
  };
  post({ type: 'progress', job, message: `planning over ${total.toLocaleString('en-US')} messages`, done, total });
  const result = await prepareCompaction({ items, tools: message.tools, meter, summarizer, options: message.options });
  // The compaction as applied to these items when it was prepared: the caller commits it as it is.
  const applied = 'status' in result ? undefined : keptApplication(result);
  const encoded = encodeResult(result, items, (m) => meter.countMessage(m), applied);
  // What the run made goes first, in batches (the caller takes each in its own turn), then the result.
  for (const batch of encoded.made)
    post({ type: 'result-items', job, items: batch.items, covers: batch.covers, coverIds: batch.coverIds });
  // The large texts for the save go as bytes, handed over rather than copied.
  post({ type: 'done', job, result: encoded.result }, encoded.transfer);
}

port.on('message', (message: ToWorker) => {
  if (message.type === 'items') {
    for (let k = 0; k < message.keys.length; k++) {
      keepMarks(message.items[k].message, message.marks?.[k] ?? 0);
      held.set(message.keys[k], message.items[k]);
    }
    return;
  }
  run(message).catch((error: unknown) =>
    post({ type: 'error', job: message.job, message: (error as Error)?.message ?? String(error) }),
  );
});
