/**
 * The service the service and sidebar benchmarks drive: a real `ContextService` over a loopback
 * OpenAI-compatible model server, with a throwaway workspace and storage folder.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { NodeToolHost } from '../src/agent/nodeHost';
import { start } from '../src/modelserver/wire';
import type { Responder } from '../src/modelserver/types';
import { ContextService } from '../src/service/service';

/** A running bench service; `close()` disposes the service, stops the server and removes both folders. */
export interface BenchService {
  service: ContextService;
  close: () => Promise<void>;
}

/**
 * Opens a service on model `gpt-4o` with a window of `contextWindow` tokens (chosen far above the
 * session by callers that measure bookkeeping, so no compaction runs), 4,000 output tokens reserved,
 * and `files` (relative path → text) written into the workspace first.
 */
export async function openBenchService(responder: Responder, contextWindow: number, files: Record<string, string> = {}): Promise<BenchService> {
  const server = await start({ responder, models: ['bench'] });
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
