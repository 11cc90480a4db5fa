/**
 * Meter reading after appending one message to contexts of growing size: `TokenMeter.read`, the call
 * the service's budget view makes on every event (a full pass over the cached per-message counts plus
 * the calibration check), and `TokenMeter.measure` alone. The new message is counted beforehand, so
 * only the update itself is timed. The service reads the meter several times per model call, so its
 * bookkeeping per call is a multiple of this.
 */
import { TokenMeter } from '../src/compaction/meter/meter';
import type { ContextItem } from '../src/compaction/types';
import type { Session } from './corpus';
import { interleave, median, nowMs, sig } from './stats';

/** One context size. Times in microseconds per update (medians). */
export interface MeterRow {
  tokens: number;
  items: number;
  measureMicros: number;
  /** `read()` after a calibration on the context before the append (the service's usual state). */
  readMicros: number;
}

/** Results of the meter benchmark. */
export interface MeterResult {
  rows: MeterRow[];
  /** Time per update at the largest size / at the smallest (1 is flat). */
  measureGrowth: number;
  readGrowth: number;
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
  const fresh = Array.from({ length: BATCH }, (_, k): ContextItem => {
    const message = { role: 'user' as const, content: `Run the tests again and fix test ${k}.` };
    return { id: `new${k}`, kind: 'raw', message, covers: [`new${k}`] };
  });
  for (const f of fresh) meter.countMessage(f.message);
  const rows: MeterRow[] = [];
  for (const size of sizes) {
    const items = buildContext(sessions, meter, size);
    meter.calibrate(meter.measure(items).total, items);
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
          name: 'read',
          run: () => {
            const t0 = nowMs();
            for (const f of fresh) {
              items.push(f);
              meter.read(items);
            }
            const ms = nowMs() - t0;
            items.length -= BATCH;
            return ms / BATCH;
          },
        },
      ],
      reps,
    );
    rows.push({
      tokens: size,
      items: items.length,
      measureMicros: sig(median(times.get('measure')!) * 1000),
      readMicros: sig(median(times.get('read')!) * 1000),
    });
  }
  const first = rows[0];
  const last = rows[rows.length - 1];
  return {
    rows,
    measureGrowth: sig(last.measureMicros / first.measureMicros),
    readGrowth: sig(last.readMicros / first.readMicros),
  };
}
