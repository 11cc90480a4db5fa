/**
 * The context service's own bookkeeping per model call, on the path the extension runs: a real
 * `ContextService` with a session of 10k or 1M tokens imported, an agent task whose model (a
 * loopback OpenAI-compatible server) makes tool calls step by step, the service's compaction check
 * at each safe point, the usage report of each reply, and the sidebar's model fed by the service's
 * events (each update taken at once, as a flush would).
 *
 * Timed: what the service does itself around each model call: the appends (assistant message, tool
 * results) with the budget read and the sidebar
 * update they trigger, the compaction check before the call, and the usage report with its budget
 * read. Timed apart: the durable write of each appended entry (a JSON line and an fsync). Not timed: building and sending the request (the messages array handed to the client), the
 * model server, the tool itself. The window is far above the session, so no compaction runs.
 */
import { toolCalls } from '../src/modelserver/replies';
import { Compactions } from '../src/service/compactions';
import { feedSidebar } from '../src/views/sidebar-feed';
import { SidebarModel } from '../src/views/view-model';
import type { BudgetView } from '../src/views/protocol';
import type { Conversation } from '../src/agent/session';
import type { Entry } from '../src/compaction/types';
import { lineSession } from './sidebar';
import { median } from './stats';
import { openBenchService } from './serviceHarness';

/** One session size. Times in milliseconds per model call (median over the task's calls). */
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
  /** Not in `bookkeepingMs`: the durable writes of the appended entries to the session file (fsync), per call. */
  writeMs: number;
}

export interface ServiceCallResult {
  rows: ServiceCallRow[];
  /** bookkeepingMs at the largest size / at the smallest (1 is flat). */
  growth: number;
}

const emptyBudget = { used: 0 } as BudgetView;

async function measure(targetTokens: number, steps: number): Promise<ServiceCallRow> {
  let call = 0;
  let baseTools = 0;
  const { service, close } = await openBenchService(
    (body) => {
      const toolResults = (body.messages ?? []).filter((m) => (m as { role?: string }).role === 'tool').length;
      // One tool call per step until `steps` results of this task are in, then the final answer.
      return toolResults - baseTools < steps ? toolCalls([{ id: `call_b${call++}`, name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt' }) }]) : { content: 'Done: the notes are read.' };
    },
    40_000_000,
    { 'notes.txt': 'The parser reads each token; the meter counts what the next request carries.\n' },
  );
  const times = { append: [] as number[], check: [] as number[], usage: [] as number[], write: [] as number[] };
  const restore: Array<() => void> = [];
  try {
    const entries = lineSession(targetTokens);
    baseTools = entries.filter((e) => e.message.role === 'tool').length;
    await service.importTranscript({ source: 'bench', entries });
    const model = new SidebarModel(service, { source: 'bench', hasApiKey: true, sessions: [], readOnly: false }, () => ({ autoCompact: true, emptyBudget }));
    model.snapshot();
    const feed = feedSidebar(service, model, () => void model.takeDelta());
    // Timers around the service's own entry points (the same objects the agent calls).
    const internals = service as unknown as { conversation: Conversation; recordUsage(tokens: number): void; files: { append(entry: Entry): void } };
    const conversation = internals.conversation;
    // The durable write (a JSON line and an fsync) is disk time, the same at every size: timed apart.
    const write = internals.files.append.bind(internals.files);
    internals.files.append = (entry) => {
      const t0 = performance.now();
      write(entry);
      times.write.push(performance.now() - t0);
    };
    const append = conversation.append.bind(conversation);
    conversation.append = async (entry) => {
      const t0 = performance.now();
      await append(entry);
      times.append.push(performance.now() - t0);
    };
    const recordUsage = internals.recordUsage.bind(service);
    internals.recordUsage = (tokens) => {
      const t0 = performance.now();
      recordUsage(tokens);
      times.usage.push(performance.now() - t0);
    };
    const proto = Compactions.prototype as unknown as { atSafePoint: (this: Compactions, signal: AbortSignal, auto?: boolean) => Promise<void> };
    const atSafePoint = proto.atSafePoint;
    proto.atSafePoint = async function (this: Compactions, signal: AbortSignal, auto?: boolean) {
      const t0 = performance.now();
      await atSafePoint.call(this, signal, auto);
      times.check.push(performance.now() - t0);
    };
    restore.push(() => (proto.atSafePoint = atSafePoint), () => feed.dispose());
    const outcome = await service.runTask('Read the notes, one step at a time.');
    if (outcome.status !== 'done') throw new Error(`bench task ended ${outcome.status}: ${outcome.error ?? ''}`);
    const calls = outcome.modelCalls;
    // Per model call: its share of every append (the task's request, then per step the assistant
    // message and its tool result), the check before it, and its usage report.
    const perCall = (list: number[]) => list.reduce((a, b) => a + b, 0) / calls;
    const checks = times.check.slice(0, calls);
    const usage = times.usage;
    const appendMs = perCall(times.append) - perCall(times.write);
    return {
      targetTokens,
      tokens: service.getBudget().used,
      modelCalls: calls,
      bookkeepingMs: Number((appendMs + median(checks) + median(usage)).toFixed(4)),
      appendMs: Number(appendMs.toFixed(4)),
      checkMs: Number(median(checks).toFixed(4)),
      usageMs: Number(median(usage).toFixed(4)),
      writeMs: Number(perCall(times.write).toFixed(4)),
    };
  } finally {
    for (const r of restore) r();
    await close();
  }
}

/** Runs the benchmark at each size (tokens), `steps` tool-call steps per task. */
export async function benchServiceCall(sizes: readonly number[], steps: number): Promise<ServiceCallResult> {
  await measure(sizes[0], 5);
  const rows: ServiceCallRow[] = [];
  for (const size of sizes) rows.push(await measure(size, steps));
  return { rows, growth: Number((rows[rows.length - 1].bookkeepingMs / rows[0].bookkeepingMs).toFixed(2)) };
}
