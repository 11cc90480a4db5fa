/**
 * The service the service and sidebar benchmarks drive: a real `ContextService` over a loopback
 * OpenAI-compatible model server (in this thread, or in a worker thread with its own heap, as a
 * remote model is), with a throwaway workspace and storage folder.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { NodeToolHost } from '../src/agent/node-host';
import { Worker } from 'node:worker_threads';
import { start } from '../src/demo/modelserver/wire';
import type { Responder } from '../src/demo/modelserver/types';
import { ContextService } from '../src/service/service';
import type { ToolStepsScript } from './model-server-worker';

/** A running bench service; `close()` disposes the service, stops the server and removes both folders. */
export interface BenchService {
  service: ContextService;
  close: () => Promise<void>;
}

/** A model server the bench can stop. */
export interface BenchServer {
  url: string;
  close(): Promise<void>;
}

/** Starts `bench/model-server-worker.js` (built beside this bundle) with `script`. */
export async function workerServer(script: ToolStepsScript): Promise<BenchServer> {
  const worker = new Worker(path.join(__dirname, 'model-server-worker.js'), { workerData: script });
  const url = await new Promise<string>((resolve, reject) => {
    worker.once('message', (m: { url: string }) => resolve(m.url));
    worker.once('error', reject);
  });
  return {
    url,
    close: async () => {
      const closed = new Promise((resolve) => worker.once('message', resolve));
      worker.postMessage('close');
      await closed;
      await worker.terminate();
    },
  };
}

/**
 * Opens a service on model `gpt-4o` with a window of `contextWindow` tokens (chosen far above the
 * session by callers that measure bookkeeping, so no compaction runs), 4,000 output tokens reserved,
 * and `files` (relative path → text) written into the workspace first. The model answers with
 * `responder` in this thread, or runs `{ worker }` in a worker thread.
 */
export async function openBenchService(
  responder: Responder | { worker: ToolStepsScript },
  contextWindow: number,
  files: Record<string, string> = {},
): Promise<BenchService> {
  const server: BenchServer =
    typeof responder === 'function'
      ? await start({ responder, models: ['bench'] })
      : await workerServer(responder.worker);
  const workspace = mkdtempSync(path.join(tmpdir(), 'ck-bench-ws-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(workspace, name), text);
  const storage = mkdtempSync(path.join(tmpdir(), 'ck-bench-store-'));
  const service = await ContextService.open({
    client: new OpenAI({ baseURL: server.url, apiKey: 'bench', maxRetries: 0 }),
    model: 'gpt-4o',
    budget: { contextWindow, reservedOutput: 4_000, compactAt: 0.95, compactTo: 0.5 },
    host: new NodeToolHost(workspace),
    storageDir: storage,
    systemPrompt: 'You are a coding agent.',
    prepareAheadMargin: 0,
  });
  return {
    service,
    close: async () => {
      service.dispose();
      await server.close();
      rmSync(workspace, { recursive: true, force: true });
      rmSync(storage, { recursive: true, force: true });
    },
  };
}
