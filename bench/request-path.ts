/**
 * Host time of each model call on the request path, with the real `openai` client over loopback
 * HTTP: a real `ContextService` holding a session of real text (bench/real-text.ts) of about 10k or
 * 1M tokens runs an agent task of tool-call steps against the loopback model server
 * (src/demo/modelserver) in a worker thread (as a remote model, its parsing of each request is not
 * this thread's work), which waits {@link TIME_TO_FIRST_TOKEN_MS} before each reply.
 *
 * The client is made as the product makes it: `fetch` is the bounded event stream over the HTTP
 * worker (src/models/worker-fetch.ts), or with `--fetch=host` over this thread's own `fetch` (what
 * the extension keeps for a remote endpoint while VS Code adds its proxy support to `fetch`).
 *
 * The sidebar is attached as in the extension: its model is fed by the service's events and each
 * update is built as the webview would be sent it, so its share of the host's work is in the figure.
 *
 * Timed per model call, in CPU time of this thread (`/proc/thread-self/schedstat`; waiting for the
 * server costs none): from the moment the agent asks the service for the messages of the request
 * until the client has the response's headers: the messages handed over (with the tally's
 * bookkeeping), the request body assembled, the SDK's request built and the body handed to the
 * HTTP worker (or, with `--fetch=host`, copied and written to the socket here), with the garbage
 * collection all that causes on this thread. Medians over the calls of interleaved rounds.
 *
 * Usage: `node bench/build.mjs && node out/bench/request-path.js [--rounds=3] [--steps=12]
 * [--sizes=10000,1000000] [--fetch=worker|host]`; with `CK_BENCH_PROFILE=PREFIX` each task's CPU
 * profile is written to `PREFIX-<tokens>.cpuprofile`.
 * Targets: ≤ 5 ms a call at 1M tokens; 1M / 10k ≤ 2.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import inspector from 'node:inspector';
import OpenAI from 'openai';
import { NodeToolHost } from '../src/agent/node-host';
import type { Conversation } from '../src/agent/session';
import { ContextService } from '../src/service/service';
import { feedSidebar } from '../src/views/sidebar/sidebar-feed';
import { SidebarModel } from '../src/views/sidebar/view-model';
import type { BudgetView } from '../src/webview/shared/protocol';
import type { ChatMessage, Entry } from '../src/compaction/types';
import { loadRealText, realisticRecording, TextCutter, type RealText } from './real-text';
import { workerServer } from './service-harness';
import { boundedFetch } from '../src/models/bounded-fetch';
import { FetchWorker } from '../src/models/worker-fetch';
import { median, nowMs, threadCpuMs } from './stats';

/** The model's wait before each reply, in milliseconds (a model's time to first token, far below a hosted one's). */
export const TIME_TO_FIRST_TOKEN_MS = 20;

/** One session size; times in milliseconds per model call (median over every round's calls). */
export interface RequestPathRow {
  targetTokens: number;
  /** Prompt tokens of the context as the service counts them. */
  tokens: number;
  messages: number;
  /** Bytes of the request body at the last call. */
  bodyBytes: number;
  modelCalls: number;
  /** CPU time of this thread per call (the figure held against the targets); else wall time. */
  hostMs: number;
  /** Wall time per call over the same stretch (includes the loopback round trip and the model's wait). */
  wallMs: number;
  /**
   * Share of that CPU time spent in the kernel (`/proc/thread-self/stat`, summed over every call:
   * its 10 ms ticks are too coarse for one call). On loopback the kernel's TCP work for both ends of
   * the connection runs on the sending thread.
   */
  kernelShare: number | undefined;
  thread: boolean;
}

/** This thread's user and kernel CPU time so far, in clock ticks (`/proc/thread-self/stat`), if available. */
function threadTicks(): { user: number; kernel: number } | undefined {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]), kernel: Number(fields[12]) };
  } catch {
    return undefined;
  }
}

/** Entries of real text holding about `tokens` tokens (about 4 characters a token). */
function sessionOf(text: RealText, tokens: number, seed: number): Entry[] {
  const messages: ChatMessage[] = [];
  let chars = 0;
  const cutter = new TextCutter(text, seed);
  // Generated in batches and cut where the characters reach the size.
  while (chars < tokens * 4) {
    for (const m of realisticRecording(200, cutter)) {
      messages.push(m);
      chars += JSON.stringify(m).length;
      if (chars >= tokens * 4) break;
    }
  }
  // A recording ends on a complete step: drop a trailing tool call without its result.
  for (let last = messages.at(-1); last && last.role === 'assistant' && last.tool_calls?.length; last = messages.at(-1))
    messages.pop();
  return messages.map((message, i) => ({ id: `r${seed}-${i}`, message }));
}

async function measure(
  entries: Entry[],
  targetTokens: number,
  steps: number,
  fetch: typeof globalThis.fetch,
): Promise<RequestPathRow & { samples: number[]; walls: number[]; ticks: { user: number; kernel: number } }> {
  const server = await workerServer({
    steps,
    name: 'read_file',
    arguments: JSON.stringify({ path: 'notes.txt' }),
    final: 'Done: the notes are read.',
    delayMs: TIME_TO_FIRST_TOKEN_MS,
  });
  const workspace = mkdtempSync(path.join(tmpdir(), 'ck-bench-ws-'));
  writeFileSync(
    path.join(workspace, 'notes.txt'),
    'The parser reads each token; the meter counts what the next request carries.\n',
  );
  const storage = mkdtempSync(path.join(tmpdir(), 'ck-bench-store-'));
  // As the product's clients are made: bounded event streams, over the HTTP worker or this thread's fetch.
  const client = new OpenAI({ baseURL: server.url, apiKey: 'bench', maxRetries: 0, fetch: boundedFetch(fetch) });
  const service = await ContextService.open({
    client,
    model: 'gpt-4o',
    budget: { contextWindow: 40_000_000, reservedOutput: 4_000, compactAt: 0.95, compactTo: 0.5 },
    host: new NodeToolHost(workspace),
    storageDir: storage,
    systemPrompt: 'You are a coding agent.',
    prepareAheadMargin: 0,
  });
  let feed: { dispose(): void } | undefined;
  try {
    await service.importTranscript({ source: 'bench', entries });
    // The sidebar attached, its updates built as the webview is sent them.
    const sidebar = new SidebarModel(
      service,
      { source: 'bench', hasApiKey: true, sessions: [], readOnly: false },
      () => ({ autoCompact: true, emptyBudget: { used: 0 } as BudgetView }),
    );
    sidebar.snapshot();
    feed = feedSidebar(service, sidebar, () => void sidebar.takeDelta());
    const clock = () => threadCpuMs() ?? nowMs();
    const samples: number[] = [];
    const walls: number[] = [];
    let started: { cpu: number; wall: number; ticks: ReturnType<typeof threadTicks> } | undefined;
    const ticks = { user: 0, kernel: 0 };
    let bodyBytes = 0;
    const conversation = (service as unknown as { conversation: Conversation }).conversation;
    const messages = conversation.messages.bind(conversation);
    conversation.messages = () => {
      started = { cpu: clock(), wall: nowMs(), ticks: threadTicks() };
      return messages();
    };
    const completions = client.chat.completions;
    const create = completions.create.bind(completions) as (
      body: unknown,
      options?: { body?: Uint8Array },
    ) => Promise<unknown>;
    (completions as unknown as { create: typeof create }).create = (body, options) => {
      bodyBytes = options?.body?.length ?? Buffer.byteLength(JSON.stringify(body));
      const from = started;
      const pending = create(body, options);
      void pending.then(
        () => {
          if (!from) return;
          samples.push(clock() - from.cpu);
          walls.push(nowMs() - from.wall);
          const now = threadTicks();
          if (now && from.ticks) {
            ticks.user += now.user - from.ticks.user;
            ticks.kernel += now.kernel - from.ticks.kernel;
          }
        },
        () => undefined,
      );
      return pending;
    };
    const profile = process.env.CK_BENCH_PROFILE;
    const session = profile ? new inspector.Session() : undefined;
    const post = (method: string, params?: object) =>
      new Promise<unknown>((resolve, reject) =>
        session!.post(method, params, (err, result) => (err ? reject(err) : resolve(result))),
      );
    if (session) {
      session.connect();
      await post('Profiler.enable');
      await post('Profiler.start');
    }
    const outcome = await service.runTask('Read the notes, one step at a time.');
    if (session) {
      const { profile: taken } = (await post('Profiler.stop')) as { profile: unknown };
      writeFileSync(`${profile}-${targetTokens}.cpuprofile`, JSON.stringify(taken));
      session.disconnect();
    }
    if (outcome.status !== 'done') throw new Error(`bench task ended ${outcome.status}: ${outcome.error ?? ''}`);
    return {
      targetTokens,
      tokens: service.getBudget().used,
      messages: service.getMessages().length,
      bodyBytes,
      modelCalls: outcome.modelCalls,
      hostMs: median(samples),
      wallMs: median(walls),
      thread: threadCpuMs() !== undefined,
      kernelShare: ticks.user + ticks.kernel > 0 ? ticks.kernel / (ticks.user + ticks.kernel) : undefined,
      samples,
      walls,
      ticks,
    };
  } finally {
    feed?.dispose();
    await service.whenSaved().catch(() => undefined);
    service.dispose();
    await server.close();
    rmSync(workspace, { recursive: true, force: true });
    rmSync(storage, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  }
}

/** What {@link benchRequestPath} returns: a row per size, the text's source, and the largest size's time over the smallest's. */
export interface RequestPathBench {
  rows: RequestPathRow[];
  source: string;
  ratio: number;
}

/**
 * Runs each size `rounds` times, interleaved (the order alternates each round), `steps` tool-call
 * steps a task, with the client's HTTP work `via` the HTTP worker or this thread's `fetch`. Returns
 * a row per size with the medians over every round's calls.
 */
export async function benchRequestPath(
  root: string,
  sizes: readonly number[] = [10_000, 1_000_000],
  rounds = 3,
  steps = 12,
  via: 'worker' | 'host' = 'worker',
): Promise<RequestPathBench> {
  const text = await loadRealText(root);
  // One worker for every task, as the product keeps one for every model call.
  const worker = via === 'worker' ? new FetchWorker() : undefined;
  const fetch = worker ? worker.fetch : globalThis.fetch;
  try {
    return await runRounds(text, sizes, rounds, steps, fetch);
  } finally {
    await worker?.dispose();
  }
}

async function runRounds(
  text: RealText,
  sizes: readonly number[],
  rounds: number,
  steps: number,
  fetch: typeof globalThis.fetch,
): Promise<RequestPathBench> {
  const sessions = sizes.map((tokens, i) => sessionOf(text, tokens, 41 + i));
  await measure(sessions[0], sizes[0], 3, fetch); // warm-up: code compiled, tables loaded
  const all = sizes.map(() => ({
    samples: [] as number[],
    walls: [] as number[],
    user: 0,
    kernel: 0,
    last: undefined as RequestPathRow | undefined,
  }));
  for (let r = 0; r < rounds; r++) {
    const order = sizes.map((_, i) => i);
    if (r % 2 === 1) order.reverse();
    for (const i of order) {
      const m = await measure(sessions[i], sizes[i], steps, fetch);
      for (const ms of m.samples) all[i].samples.push(ms);
      for (const ms of m.walls) all[i].walls.push(ms);
      all[i].user += m.ticks.user;
      all[i].kernel += m.ticks.kernel;
      all[i].last = m;
    }
  }
  const rows = sizes.map((_, i): RequestPathRow => {
    const last = all[i].last!;
    return {
      targetTokens: last.targetTokens,
      tokens: last.tokens,
      messages: last.messages,
      bodyBytes: last.bodyBytes,
      modelCalls: all[i].samples.length,
      hostMs: Number(median(all[i].samples).toFixed(3)),
      wallMs: Number(median(all[i].walls).toFixed(2)),
      kernelShare: all[i].user + all[i].kernel > 0 ? all[i].kernel / (all[i].user + all[i].kernel) : undefined,
      thread: last.thread,
    };
  });
  return { rows, source: text.source, ratio: Number((rows[rows.length - 1].hostMs / rows[0].hostMs).toFixed(2)) };
}

async function main(): Promise<void> {
  const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const root = path.resolve(__dirname, '../..');
  const via = arg('fetch') ?? 'worker';
  if (via !== 'worker' && via !== 'host') throw new Error(`--fetch must be worker or host, got ${via}`);
  const { rows, source, ratio } = await benchRequestPath(
    root,
    (arg('sizes') ?? '10000,1000000').split(',').map(Number),
    Number(arg('rounds') ?? 3),
    Number(arg('steps') ?? 12),
    via,
  );
  console.log(
    `Host time per model call, real openai client over loopback HTTP, ${via === 'worker' ? 'HTTP in a worker thread' : "HTTP on this thread (Node's fetch)"} (${source})`,
  );
  console.log(
    `${rows[0].thread ? 'CPU time of the calling thread' : 'wall time'}, from the request's messages to the response's headers; median over ${rows.map((r) => r.modelCalls).join(' / ')} calls; the model waits ${TIME_TO_FIRST_TOKEN_MS} ms before each reply`,
  );
  console.log('');
  console.log(
    '| session | tokens | messages | request body | host time per call | of it in the kernel | wall time per call |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows)
    console.log(
      `| ${r.targetTokens.toLocaleString('en')} | ${r.tokens.toLocaleString('en')} | ${r.messages.toLocaleString('en')} | ${(r.bodyBytes / 1e6).toFixed(2)} MB | ${r.hostMs} ms | ${r.kernelShare === undefined ? '–' : `${Math.round(r.kernelShare * 100)}%`} | ${r.wallMs} ms |`,
    );
  const big = rows[rows.length - 1];
  console.log('');
  console.log(
    `targets: ≤ 5 ms at 1M: ${big.hostMs} ms, ${big.hostMs <= 5 ? 'met' : 'MISSED'}; 1M / 10k ≤ 2: ${ratio}x, ${ratio <= 2 ? 'met' : 'MISSED'}`,
  );
}

// Bundled into main.js too, where `require.main === module` also holds: run alone only as its own file.
if (require.main === module && path.basename(process.argv[1] ?? '') === 'request-path.js')
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
