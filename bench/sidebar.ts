/**
 * The sidebar's update path on long sessions, measured through the code the extension runs: a real
 * `ContextService` (loopback OpenAI-compatible model streaming a reply chunk by chunk) with a
 * generated session imported, `feedSidebar` forwarding its events into a `SidebarModel`, and each
 * update built with `takeDelta()` and serialized as `postMessage` would (JSON). The only difference
 * from the extension is that each event is flushed at once instead of being coalesced over 50 ms,
 * which gives the most messages and the smallest batches: the per-delta worst case.
 *
 * Figures at two session sizes side by side (20k and 300k tokens) show whether the cost is flat.
 */
import { feedSidebar } from '../src/views/sidebar/sidebar-feed';
import { SidebarModel } from '../src/views/sidebar/view-model';
import type { BudgetView } from '../src/webview/shared/protocol';
import type { Entry } from '../src/compaction/types';
import { median } from './stats';
import { openBenchService } from './service-harness';

/** Figures for one session size. Bytes are UTF-8 bytes of the JSON message; times in milliseconds. */
export interface SidebarRow {
  targetTokens: number;
  /** Tokens of the session as the service's meter counts them. */
  tokens: number;
  entries: number;
  /** Transcript lines the model holds. */
  items: number;
  streamedDeltas: number;
  deltaBytesMedian: number;
  deltaBytesMax: number;
  /** Event received → message built and serialized, per streamed text delta. */
  buildMsMedian: number;
  buildMsP95: number;
  /** Every other update of the task (tool lines, entries, gauge, state): largest message. */
  otherBytesMax: number;
  /** The complete snapshot sent on ready / visible / gap. */
  snapshotBytes: number;
  snapshotMs: number;
}

export interface SidebarResult {
  rows: SidebarRow[];
  /** buildMsMedian at the largest size / at the smallest. */
  buildGrowth: number;
  deltaBytesGrowth: number;
}

const emptyBudget = { used: 0 } as BudgetView;
const WORDS =
  'the parser reads each token of the input and the meter counts what the next request would carry so compaction can run before the window fills'.split(
    ' ',
  );

/**
 * A session of about `tokens` tokens in steps of three transcript lines (assistant text, its tool
 * call, the tool result) of about 150 tokens each: 300k tokens give 2,000 lines, 20k give 133.
 */
export function lineSession(tokens: number): Entry[] {
  const text = (n: number, salt: number) =>
    Array.from({ length: n }, (_, i) => WORDS[(i * 7 + salt) % WORDS.length]).join(' ');
  const entries: Entry[] = [
    { id: 's0', message: { role: 'user', content: 'Fix the parser and keep the meter exact.' } },
  ];
  const steps = Math.round(tokens / 450);
  for (let s = 0; s < steps; s++) {
    const id = `call_${s}`;
    entries.push({
      id: `a${s}`,
      message: {
        role: 'assistant',
        content: text(60, s),
        tool_calls: [
          {
            id,
            type: 'function',
            function: {
              name: 'read_file',
              arguments: JSON.stringify({ path: `src/mod${s % 40}/file${s}.ts`, note: text(40, s + 1) }),
            },
          },
        ],
      },
    });
    entries.push({ id: `t${s}`, message: { role: 'tool', tool_call_id: id, content: text(190, s + 2) } });
  }
  return entries;
}

async function measure(targetTokens: number, chunks: number): Promise<SidebarRow> {
  const words = Array.from({ length: chunks }, (_, i) => `word${i} `);
  // A window far above the session: the bench measures updates, not compaction.
  const { service, close } = await openBenchService(
    () => ({ content: words.join(''), chunks: words, chunkDelayMs: 1 }),
    4_000_000,
  );
  try {
    const entries = lineSession(targetTokens);
    await service.importTranscript({ source: 'bench', entries });
    const model = new SidebarModel(
      service,
      { source: 'bench', hasApiKey: true, sessions: [], readOnly: false },
      () => ({ autoCompact: true, emptyBudget }),
    );
    model.snapshot(); // the first one also counts the session's tokens for the gauge
    const snapStarted = performance.now();
    const snapshot = JSON.stringify(model.snapshot());
    const snapshotMs = performance.now() - snapStarted;
    const stream: { bytes: number; ms: number }[] = [];
    const other: number[] = [];
    let started = 0;
    let streaming = false;
    // Subscribed before the feed: listeners run in subscription order, so this marks the event's arrival.
    const marks = [
      service.onDidStreamText(() => {
        started = performance.now();
        streaming = true;
      }),
    ];
    const feed = feedSidebar(service, model, () => {
      const message = model.takeDelta();
      if (!message) return;
      const bytes = Buffer.byteLength(JSON.stringify(message));
      if (streaming) stream.push({ bytes, ms: performance.now() - started });
      else other.push(bytes);
      streaming = false;
    });
    const outcome = await service.runTask('Write the report.');
    if (outcome.status !== 'done') throw new Error(`bench task ended ${outcome.status}: ${outcome.error ?? ''}`);
    feed.dispose();
    for (const mark of marks) mark.dispose();
    const ms = stream.map((s) => s.ms).sort((a, b) => a - b);
    const bytes = stream.map((s) => s.bytes);
    return {
      targetTokens,
      tokens: service.getBudget().used,
      entries: entries.length,
      items:
        (JSON.parse(snapshot) as { state: { earlier: number; transcript: unknown[] } }).state.earlier +
        (JSON.parse(snapshot) as { state: { transcript: unknown[] } }).state.transcript.length,
      streamedDeltas: stream.length,
      deltaBytesMedian: median(bytes),
      deltaBytesMax: Math.max(...bytes),
      buildMsMedian: Number(median(ms).toFixed(4)),
      buildMsP95: Number((ms[Math.floor(ms.length * 0.95)] ?? 0).toFixed(4)),
      otherBytesMax: Math.max(0, ...other),
      snapshotBytes: Buffer.byteLength(snapshot),
      snapshotMs: Number(snapshotMs.toFixed(2)),
    };
  } finally {
    await close();
  }
}

/** Runs the sidebar benchmark at each size in `sizes` (tokens), `chunks` streamed pieces per reply. */
export async function benchSidebar(sizes: readonly number[], chunks: number): Promise<SidebarResult> {
  // One warm-up run so the first size does not pay for JIT and tokenizer loading.
  await measure(sizes[0], 50);
  const rows: SidebarRow[] = [];
  for (const size of sizes) rows.push(await measure(size, chunks));
  const first = rows[0];
  const last = rows[rows.length - 1];
  return {
    rows,
    buildGrowth: Number((last.buildMsMedian / first.buildMsMedian).toFixed(2)),
    deltaBytesGrowth: Number((last.deltaBytesMedian / first.deltaBytesMedian).toFixed(2)),
  };
}
