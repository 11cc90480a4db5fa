/**
 * Meter update after appending one message to contexts of growing size: `TokenMeter.measure` (a
 * full pass over the cached per-message counts) against `ContextTally.append` (a running total).
 * The new message is counted beforehand, so only the update itself is timed.
 */
import { ContextTally, TokenMeter } from '../src/compaction/meter';
import type { ContextItem } from '../src/compaction/types';
import type { Session } from './corpus';
import { interleave, median, nowMs, sig } from './stats';

/** One context size. Times in microseconds per update (medians). */
export interface MeterRow {
  tokens: number;
  items: number;
  measureMicros: number;
  tallyMicros: number;
}

/** Results of the meter benchmark. */
export interface MeterResult {
  rows: MeterRow[];
  /** Time per update at the largest size / at the smallest (1 is flat). */
  measureGrowth: number;
  tallyGrowth: number;
}

/** Builds a context of at least `tokens` tokens by cycling through the sessions' messages. */
function buildContext(sessions: readonly Session[], meter: TokenMeter, tokens: number): ContextItem[] {
  const pool = sessions.flatMap((s) => s.entries.map((e) => e.message));
  const items: ContextItem[] = [];
  let total = 0;
  for (let i = 0; total < tokens; i++) {
    // A fresh object per item, as in a real context (counts are cached per message object).
    // A stride through all sessions gives a typical mix of message sizes at every context size.
    const message = { ...pool[(i * 7919) % pool.length] };
    total += meter.countMessage(message);
    items.push({ id: `m${i}`, kind: 'raw', message, covers: [`m${i}`] });
  }
  return items;
}

/** Runs the meter benchmark at `sizes` (tokens). */
export function benchMeter(sessions: readonly Session[], sizes: readonly number[], reps: number): MeterResult {
  const meter = new TokenMeter({ model: 'gpt-4o' });
  const BATCH = 20;
  const TALLY_APPENDS = 2000;
  const fresh = Array.from({ length: BATCH }, (_, k): ContextItem => {
    const message = { role: 'user' as const, content: `Run the tests again and fix test ${k}.` };
    return { id: `new${k}`, kind: 'raw', message, covers: [`new${k}`] };
  });
  for (const f of fresh) meter.countMessage(f.message);
  const rows: MeterRow[] = [];
  for (const size of sizes) {
    const items = buildContext(sessions, meter, size);
    const tally = new ContextTally(meter);
    const times = interleave(
      [
        {
          name: 'measure',
          run: () => {
            // Append, re-read the whole context, per new message.
            const t0 = nowMs();
            for (const f of fresh) {
              items.push(f);
              meter.measure(items);
            }
            const ms = nowMs() - t0;
            items.length -= BATCH;
            return ms / BATCH;
          },
        },
        {
          name: 'tally',
          before: () => tally.reset(items),
          run: () => {
            // O(1) per append: time many appends so the timer's resolution does not matter.
            const t0 = nowMs();
            for (let k = 0; k < TALLY_APPENDS; k++) tally.append(fresh[k % BATCH]);
            return (nowMs() - t0) / TALLY_APPENDS;
          },
        },
      ],
      reps,
    );
    rows.push({ tokens: size, items: items.length, measureMicros: sig(median(times.get('measure')!) * 1000), tallyMicros: sig(median(times.get('tally')!) * 1000) });
  }
  const first = rows[0];
  const last = rows[rows.length - 1];
  return { rows, measureGrowth: sig(last.measureMicros / first.measureMicros), tallyGrowth: sig(last.tallyMicros / first.tallyMicros) };
}
