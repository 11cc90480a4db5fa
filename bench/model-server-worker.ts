/**
 * A loopback model server in a worker thread, for benchmarks that time the service's own work: in
 * the product the model runs elsewhere, so parsing each request (megabytes at 1M tokens) and keeping
 * it must not load the heap whose collections the benchmark times. Same server as the tests
 * (`src/demo/modelserver/wire.ts`), on its own heap.
 *
 * Script (`workerData`, a {@link ToolStepsScript}): one tool call per step until `steps` tool results
 * follow the latest user message (the task's request), then the final answer, each reply starting
 * `delayMs` after its request. Posts `{ url }` once
 * listening; on the message `'close'` it stops the server and posts `'closed'`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { start } from '../src/demo/modelserver/wire';
import { text, toolCalls } from '../src/demo/modelserver/replies';

/** What the worker's model does: `steps` calls of tool `name` with `arguments` (JSON text), then `final`. */
export interface ToolStepsScript {
  steps: number;
  name: string;
  arguments: string;
  final: string;
  /** Time before each reply starts, in milliseconds (a model's time to first token). Default 0. */
  delayMs?: number;
}

async function main(): Promise<void> {
  const script = workerData as ToolStepsScript;
  let call = 0;
  const server = await start({
    models: ['bench'],
    responder: (body) => {
      const messages = (body.messages ?? []) as Array<{ role?: string }>;
      // Requests are not kept: the worker's heap stays the size of one request.
      server.requests.length = 0;
      server.log.length = 0;
      let results = 0;
      for (let i = messages.length - 1; i >= 0 && messages[i].role !== 'user'; i--)
        if (messages[i].role === 'tool') results++;
      const reply =
        results < script.steps
          ? toolCalls([{ id: `call_b${call++}`, name: script.name, arguments: script.arguments }])
          : text(script.final);
      return { ...reply, delayMs: script.delayMs ?? 0 };
    },
  });
  parentPort!.on('message', (message) => {
    if (message !== 'close') return;
    void server.close().then(() => parentPort!.postMessage('closed'));
  });
  parentPort!.postMessage({ url: server.url });
}

void main();
