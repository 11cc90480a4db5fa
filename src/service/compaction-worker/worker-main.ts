/**
 * Entry of the compaction worker (bundled as `dist/compaction-worker.js`): receives the context in
 * slices, runs the pure compaction core (`prepareCompaction`) with the extractive summarizer and an
 * exact meter of the session's encoding, reports progress per summarized span, and posts the
 * encoded result (see ./protocol). One run per worker: the host starts a worker per compaction and
 * terminates it to cancel.
 */
import { parentPort } from 'node:worker_threads';
import { prepareCompaction } from '../../compaction/compactor';
import { ExtractiveSummarizer } from '../../compaction/extractive';
import { TokenMeter } from '../../compaction/meter';
import { createTokenCounter } from '../../compaction/tokenizer';
import type { ContextItem, Summarizer } from '../../compaction/types';
import { encodeResult, type FromWorker, type RunMessage, type ToWorker } from './protocol';

const port = parentPort;
if (!port) throw new Error('the compaction worker must run in a worker thread');
const post = (message: FromWorker): void => port.postMessage(message);

const items: ContextItem[] = [];

async function run(message: RunMessage): Promise<void> {
  const meter = new TokenMeter({ counter: createTokenCounter(message.encoding) });
  const extractive = new ExtractiveSummarizer((text) => meter.countText(text), { lineAdditive: meter.lineAdditive });
  const total = items.length;
  let done = 0;
  // The extractive summarizer, reporting each span it is given (in messages, of the whole context).
  const summarizer: Summarizer = {
    name: extractive.name,
    summarize: (request) => {
      done += request.items.length;
      post({ type: 'progress', message: `summarizing ${request.items.length.toLocaleString('en-US')} messages`, done, total });
      return extractive.summarize(request);
    },
  };
  post({ type: 'progress', message: `planning over ${total.toLocaleString('en-US')} messages`, done, total });
  const result = await prepareCompaction({ items, tools: message.tools, meter, summarizer, options: message.options });
  post({ type: 'done', result: encodeResult(result, items, (m) => meter.countMessage(m)) });
}

port.on('message', (message: ToWorker) => {
  if (message.type === 'items') {
    for (const item of message.items) items.push(item);
    return;
  }
  run(message).catch((error: unknown) => post({ type: 'error', message: (error as Error)?.message ?? String(error) }));
});
