/**
 * Session economics: each session replayed at each window under strategies (a)-(d) (see
 * strategies.ts), with the extractive summarizer's notes, priced as the session's own model bills
 * the product's summary requests (summary-pricing.ts: the agent's prefix at the cached rate when it
 * fits, framed batches otherwise); (d) also with a model summarizer
 * (OpenAISummarizer against the loopback scripted server, which answers with plausible sectioned
 * notes and reports exact usage) on the longest session.
 */
import { extractIdentifiers } from '../src/compaction/summary/identifiers/identifiers';
import { OpenAISummarizer } from '../src/summarizers/openai';
import { formatParts } from '../src/summarizers/multi-span';
import { start } from '../src/demo/modelserver/wire';
import { text } from '../src/demo/modelserver/replies';
import type { ChatRequestBody } from '../src/demo/modelserver/wire';
import type { Session } from './corpus';
import { runFoldOverflow, runTruncation, runUnmanaged, type StrategyReport } from './strategies';
import { runContextKeeper } from './service-strategy';
import { sig } from './stats';
import { PricedSummarizer, PricingServer } from './summary-pricing';

/** Strategies of one session at one window. */
export interface EconomicsRow {
  session: string;
  window: number;
  /** (a)'s peak is at least {@link LONG_FACTOR} windows. */
  long: boolean;
  reports: StrategyReport[];
  /** Per strategy: prompt tokens and cost relative to (a). */
  promptRatio: Record<string, number>;
  costRatio: Record<string, number>;
  /** Per strategy: cost relative to (a) with the extractive summarizer counted as free (it calls no model). */
  agentCostRatio: Record<string, number>;
}

/** A session is long at a window when its unmanaged peak is at least this many windows. */
export const LONG_FACTOR = 4;

function ratios(
  reports: readonly StrategyReport[],
): Pick<EconomicsRow, 'promptRatio' | 'costRatio' | 'agentCostRatio'> {
  const a = reports[0];
  const promptRatio: Record<string, number> = {};
  const costRatio: Record<string, number> = {};
  const agentCostRatio: Record<string, number> = {};
  for (const r of reports) {
    promptRatio[r.strategy] = sig(r.promptTokens / a.promptTokens);
    costRatio[r.strategy] = sig(r.cost / a.cost);
    agentCostRatio[r.strategy] = sig(r.agentCost / a.agentCost);
  }
  return { promptRatio, costRatio, agentCostRatio };
}

/** Plausible notes for a summarizer request: the sections, with identifiers from the transcript it was given. */
/** Text of each request message (string contents only). */
function requestTexts(body: ChatRequestBody): string[] {
  return (body.messages ?? []).map((m) => {
    const content = (m as { content?: unknown }).content;
    return typeof content === 'string' ? content : '';
  });
}

function scriptedNotes(body: ChatRequestBody): string {
  const data = requestTexts(body).join('\n');
  const ids = extractIdentifiers(data).slice(0, 25);
  const files = ids.filter((i) => /\.\w+$/.test(i)).slice(0, 6);
  return [
    '## Objective',
    'The user asked the agent to finish the feature described in the first request and keep the tests passing.',
    '## Decisions and constraints',
    '- The agent kept the existing module layout and changed only the files it had read first.',
    '## Work completed',
    `- The agent read and edited ${files.length ? files.join(', ') : 'the source files'}; the edits succeeded.`,
    '- The agent ran the test suite after the edits.',
    '## Latest state',
    '- Tests: the last run passed.',
    '## Identifiers',
    ...ids.map((i) => `- ${i.replace(/\n/g, ' ')}`),
    '## Unresolved and next step',
    '- Verify the remaining edge cases, then report to the user.',
  ].join('\n');
}

/** Runs every strategy for every session and window. */
export async function benchEconomics(
  sessions: readonly Session[],
  windows: readonly number[],
  log: (line: string) => void,
): Promise<{ rows: EconomicsRow[]; modelRows: EconomicsRow[] }> {
  const rows: EconomicsRow[] = [];
  const pricing = new PricingServer();
  const url = await pricing.start();
  try {
    // CK_ECON_SESSIONS=name,… plays only the sessions whose name contains one of them (for tracing).
    const only = process.env.CK_ECON_SESSIONS?.split(',').filter((x) => x.length > 0);
    for (const s of sessions) {
      if (only && !only.some((o) => s.name.includes(o))) continue;
      for (const w of windows) {
        const reports = [
          await runUnmanaged(s.entries, s.meter, s.tools, w),
          await runTruncation(s.entries, s.meter, s.tools, w),
          await runFoldOverflow(s.entries, s.meter, s.tools, w, new PricedSummarizer(s.meter, w, url, pricing)),
          await runContextKeeper(s.entries, s.meter, s.tools, w, new PricedSummarizer(s.meter, w, url, pricing)),
        ];
        rows.push({
          session: s.name,
          window: w,
          long: reports[0].peakTokens >= LONG_FACTOR * w,
          reports,
          ...ratios(reports),
        });
        log(`  ${s.name} @${w / 1000}k done`);
      }
    }
  } finally {
    await pricing.close();
  }

  // The model summarizer on the longest session.
  const longest = [...sessions]
    .filter((s) => rows.some((r) => r.session === s.name))
    .sort(
      (x, y) => y.meter.measure(itemsOfEntries(y), y.tools).total - x.meter.measure(itemsOfEntries(x), x.tools).total,
    )[0];
  const modelRows: EconomicsRow[] = [];
  if (longest) {
    const server = await start({
      responder: (body) => {
        // A request for several spans is answered in its parts layout, one set of notes per part.
        const asked =
          requestTexts(body)
            .at(-1)
            ?.match(/"# Notes for part \d+"/g)?.length ?? 0;
        const notes = scriptedNotes(body);
        const content = asked > 1 ? formatParts(Array.from({ length: asked }, () => notes)) : notes;
        const prompt = requestTexts(body).reduce((n, t) => n + 3 + longest.meter.countText(t), 3);
        return text(content, { usage: { prompt_tokens: prompt, completion_tokens: longest.meter.countText(content) } });
      },
      models: ['loopback-summarizer'],
    });
    try {
      const model = new OpenAISummarizer({
        baseURL: server.url,
        model: 'loopback-summarizer',
        contextWindow: 128_000,
        countText: (t) => longest.meter.countText(t),
        maxRetries: 0,
      });
      for (const w of windows) {
        const base = rows.find((r) => r.session === longest.name && r.window === w)!;
        const d = await runContextKeeper(
          longest.entries,
          longest.meter,
          longest.tools,
          w,
          model,
          'd ContextKeeper, model summarizer',
        );
        const reports = [...base.reports, d];
        modelRows.push({ ...base, reports, ...ratios(reports) });
        log(`  ${longest.name} @${w / 1000}k with the model summarizer done`);
      }
    } finally {
      await server.close();
    }
  }
  return { rows, modelRows };
}

function itemsOfEntries(s: Session) {
  return s.entries.map((e) => ({ id: e.id, kind: 'raw' as const, message: e.message, covers: [e.id] }));
}
