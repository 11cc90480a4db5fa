/**
 * The context service's own bookkeeping per model call, on the path the extension runs: a real
 * `ContextService` with a session of 10k or 1M tokens imported, an agent task whose model (a
 * loopback OpenAI-compatible server) makes tool calls step by step, the service's compaction check
 * at each safe point, the usage report of each reply, and the sidebar's model fed by the service's
 * events (each update taken at once, as a flush would). The model server runs in a worker thread, so
 * its parsing of each request stays off the heap whose collections the timings include.
 *
 * Timed: what the service does itself around each model call: the appends (assistant message, tool
 * results) with the budget read and the sidebar update they trigger, the compaction check before the
 * call, and the usage report with its budget read. Timed apart: the durable write of each appended
 * entry (a JSON line and an fsync). Not timed: building and sending the request (the messages array
 * handed to the client), the model server, the tool itself. The window is far above the session, so
 * no compaction runs. Per-call medians over interleaved rounds (see {@link benchServiceCall}): a
 * pause of this process by others on a shared machine lands in one call, not in the figure.
 *
 * The model takes {@link TIME_TO_FIRST_TOKEN_MS} before each reply, far below any hosted model's
 * time to first token. Measured on this machine with no such wait: right after a 1M-token request
 * (a 4 MB body built, sent and freed) the next 0.1 ms of any JavaScript runs about 0.15 ms slower,
 * whatever it is; a 4 MB `JSON.stringify` of unrelated objects does the same to a 10k session, and
 * the 1M session with its request cut to the last 60 messages costs the same as 10k (1.0x). Replies
 * that came back at once put that cost of sending the request into the timed appends of 1M only.
 */
import { Compactions } from '../src/service/compaction/compactions';
import { feedSidebar } from '../src/views/sidebar/sidebar-feed';
import { SidebarModel } from '../src/views/sidebar/view-model';
import type { BudgetView } from '../src/webview/shared/protocol';
import type { Conversation } from '../src/agent/session';
import type { Entry } from '../src/compaction/types';
import { lineSession } from './sidebar';
import { median } from './stats';
import { openBenchService } from './service-harness';

/** One session size. Times in milliseconds per model call (median over the calls of every round). */
export interface ServiceCallRow {
  targetTokens: number;
  /** Tokens of the context as the service's gauge shows them. */
  tokens: number;
  modelCalls: number;
  bookkeepingMs: number;
  /** The parts: appends (with the budget read and view update they trigger), compaction check, usage report. */
  appendMs: number;
  checkMs: number;
  usageMs: number;
  /** Not in `bookkeepingMs`: the durable writes of the appended entries to the session file (fsync), per call (median). */
  writeMs: number;
}

export interface ServiceCallResult {
  /** The model's wait before each reply, in milliseconds. */
  timeToFirstTokenMs: number;
  rows: ServiceCallRow[];
  /** bookkeepingMs at the largest size / at the smallest (1 is flat). */
  growth: number;
}

const emptyBudget = { used: 0 } as BudgetView;

/** The model's wait before each reply, in milliseconds (see the module comment). */
export const TIME_TO_FIRST_TOKEN_MS = 20;

/** Raw timings of one task, per model call, in milliseconds. */
interface TaskSamples {
  tokens: number;
  modelCalls: number;
  /** Per model call: its appends (see below) without their durable writes. */
  append: number[];
  /** The compaction check before each model call. */
  check: number[];
  /** The usage report of each reply. */
  usage: number[];
  /** Per model call: the durable writes of its appends. */
  write: number[];
}

async function measure(targetTokens: number, steps: number, timeToFirstTokenMs: number): Promise<TaskSamples> {
  // The model runs in a worker thread: as with a remote model, parsing each request (4 MB at 1M
  // tokens) is not work of this heap. One tool call per step until `steps` results of this task are
  // in, then the final answer.
  const { service, close } = await openBenchService(
    {
      worker: {
        steps,
        name: 'read_file',
        arguments: JSON.stringify({ path: 'notes.txt' }),
        final: 'Done: the notes are read.',
        delayMs: timeToFirstTokenMs,
      },
    },
    40_000_000,
    { 'notes.txt': 'The parser reads each token; the meter counts what the next request carries.\n' },
  );
  // Appends are charged to the model call whose reply they carry (the task's request to the first).
  const times = { append: [0], check: [] as number[], usage: [] as number[], write: [0] };
  const restore: Array<() => void> = [];
  try {
    const entries = lineSession(targetTokens);
    await service.importTranscript({ source: 'bench', entries });
    const model = new SidebarModel(
      service,
      { source: 'bench', hasApiKey: true, sessions: [], readOnly: false },
      () => ({ autoCompact: true, emptyBudget }),
    );
    model.snapshot();
    const feed = feedSidebar(service, model, () => void model.takeDelta());
    // Timers around the service's own entry points (the same objects the agent calls).
    const internals = service as unknown as {
      conversation: Conversation;
      recordUsage(tokens: number): void;
      files: { append(entry: Entry): void };
    };
    const conversation = internals.conversation;
    const call = () => Math.max(0, times.usage.length - 1);
    const charge = (list: number[], ms: number) => {
      const i = call();
      while (list.length <= i) list.push(0);
      list[i] += ms;
    };
    // The durable write (a JSON line and an fsync) is disk time, the same at every size: timed apart.
    const write = internals.files.append.bind(internals.files);
    internals.files.append = (entry) => {
      const t0 = performance.now();
      write(entry);
      charge(times.write, performance.now() - t0);
    };
    const append = conversation.append.bind(conversation);
    conversation.append = async (entry) => {
      const t0 = performance.now();
      await append(entry);
      charge(times.append, performance.now() - t0);
    };
    const recordUsage = internals.recordUsage.bind(service);
    internals.recordUsage = (tokens) => {
      const t0 = performance.now();
      recordUsage(tokens);
      times.usage.push(performance.now() - t0);
    };
    const proto = Compactions.prototype as unknown as {
      atSafePoint: (this: Compactions, signal: AbortSignal, auto?: boolean) => Promise<void>;
    };
    const atSafePoint = proto.atSafePoint;
    proto.atSafePoint = async function (this: Compactions, signal: AbortSignal, auto?: boolean) {
      const t0 = performance.now();
      await atSafePoint.call(this, signal, auto);
      times.check.push(performance.now() - t0);
    };
    restore.push(
      () => (proto.atSafePoint = atSafePoint),
      () => feed.dispose(),
    );
    const outcome = await service.runTask('Read the notes, one step at a time.');
    if (outcome.status !== 'done') throw new Error(`bench task ended ${outcome.status}: ${outcome.error ?? ''}`);
    const calls = outcome.modelCalls;
    if (times.usage.length !== calls)
      throw new Error(`bench task: ${times.usage.length} usage reports for ${calls} model calls`);
    return {
      tokens: service.getBudget().used,
      modelCalls: calls,
      append: times.append.map((ms, i) => ms - (times.write[i] ?? 0)),
      check: times.check.slice(0, calls),
      usage: times.usage,
      write: times.write,
    };
  } finally {
    for (const r of restore) r();
    await close();
  }
}

const round = (ms: number) => Number(ms.toFixed(4));

/**
 * Runs the benchmark at each size (tokens), `steps` tool-call steps per task, `rounds` tasks per size,
 * the model waiting `timeToFirstTokenMs` before each reply (0: at once), interleaved (the order alternates each round) so load from other processes falls on every size
 * alike. Each part is the median over the model calls of every round: per call, its appends (the
 * assistant message and its tool results, with the budget reads and sidebar updates they trigger;
 * the task's request goes to the first call), the compaction check before it, and its usage report.
 */
export async function benchServiceCall(
  sizes: readonly number[],
  steps: number,
  rounds = 3,
  timeToFirstTokenMs = TIME_TO_FIRST_TOKEN_MS,
): Promise<ServiceCallResult> {
  await measure(sizes[0], 5, timeToFirstTokenMs);
  const samples = sizes.map(() => [] as TaskSamples[]);
  for (let r = 0; r < rounds; r++) {
    const order = sizes.map((_, i) => i);
    if (r % 2 === 1) order.reverse();
    for (const i of order) samples[i].push(await measure(sizes[i], steps, timeToFirstTokenMs));
  }
  const rows = sizes.map((targetTokens, i): ServiceCallRow => {
    const all = (key: 'append' | 'check' | 'usage' | 'write') => samples[i].flatMap((t) => t[key]);
    const appendMs = median(all('append'));
    const checkMs = median(all('check'));
    const usageMs = median(all('usage'));
    return {
      targetTokens,
      tokens: samples[i][0].tokens,
      modelCalls: samples[i][0].modelCalls,
      bookkeepingMs: round(appendMs + checkMs + usageMs),
      appendMs: round(appendMs),
      checkMs: round(checkMs),
      usageMs: round(usageMs),
      writeMs: round(median(all('write'))),
    };
  });
  return {
    timeToFirstTokenMs,
    rows,
    growth: Number((rows[rows.length - 1].bookkeepingMs / rows[0].bookkeepingMs).toFixed(2)),
  };
}
