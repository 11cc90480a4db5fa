/**
 * Targets and the Markdown table of the quality benchmark. Every figure has the context size beside
 * it (tokens before → after, and the compaction target).
 */
import type { Share } from './measure';
import { CLASSES, type IdClass } from './identifiers';
import type { QualityRun } from './run';

/** One target with its verdict (same shape as bench/report.ts). */
export interface QualityTarget {
  name: string;
  met: boolean;
  value: string;
}

/** The quality section of bench/results.json. */
export interface QualityResult {
  input: string;
  /** Why the section did not run, when it did not. */
  skipped?: string;
  windows: number[];
  replayWindow: number;
  runs: QualityRun[];
  pooled: Array<{
    window: number;
    typed: Share;
    identifiers: Record<IdClass, Share>;
    state: Share;
    insideTarget: Share;
  }>;
  targets: QualityTarget[];
  seconds: number;
}

const add = (a: Share, b: Share): Share => ({ kept: a.kept + b.kept, total: a.total + b.total });
const zero = (): Share => ({ kept: 0, total: 0 });
export const share = (s: Share): number | null => (s.total === 0 ? null : s.kept / s.total);
const pct = (s: Share) => (s.total === 0 ? '–' : `${Math.round((s.kept / s.total) * 100)}% (${s.kept}/${s.total})`);
const k = (n: number) =>
  n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);

/** Pools the compact runs of each window, leaving out exempt runs (see `QualityRun.exempt`). */
export function pool(runs: readonly QualityRun[], windows: readonly number[]): QualityResult['pooled'] {
  return windows.map((window) => {
    const rs = runs.filter((r) => r.mode === 'compact' && r.window === window && !r.exempt);
    const ids = Object.fromEntries(
      CLASSES.map((c) => [c, rs.reduce((s, r) => add(s, r.figures.identifiers[c]), zero())]),
    ) as Record<IdClass, Share>;
    return {
      window,
      typed: rs.reduce((s, r) => add(s, r.figures.typedReplaced), zero()),
      identifiers: ids,
      state: rs.reduce(
        (s, r) => add(s, { kept: r.figures.state.filter((x) => x.kept).length, total: r.figures.state.length }),
        zero(),
      ),
      insideTarget: { kept: rs.filter((r) => r.insideTarget).length, total: rs.length },
    };
  });
}

/** Sizes of the runs a pooled figure comes from, in words. */
function sizes(runs: readonly QualityRun[]): string {
  const before = runs.reduce((s, r) => s + r.tokensBefore, 0);
  const after = runs.reduce((s, r) => s + r.tokensAfter, 0);
  return `${k(before)} → ${k(after)} tokens over ${runs.length} transcripts, target ${k(runs[0]?.target ?? 0)} each`;
}

/** Short name of a run: `openhands@32k` (`replay` added for replays). */
const runName = (r: QualityRun) =>
  `${r.transcript.split('/')[0]}@${k(r.window)}${r.mode === 'replay' ? ' replay' : ''}`;

/**
 * Checks the quality targets on the measured runs. Runs where the never-summarised part alone
 * exceeded the target are exempt (the targets do not apply to that recording):
 * judged apart, listed by name with their figures, never silently dropped.
 */
export function qualityTargets(
  all: readonly QualityRun[],
  pooled: QualityResult['pooled'],
  replayWindow: number,
): QualityTarget[] {
  const out: QualityTarget[] = [];
  const runs = all.filter((r) => !r.exempt);
  const exempt = all.filter((r) => r.exempt);
  const at = (w: number) => pooled.find((p) => p.window === w);
  const compactAt = (w: number) => runs.filter((r) => r.mode === 'compact' && r.window === w);
  for (const [w, min] of [
    [128_000, 0.95],
    [32_000, 0.7],
    [8_000, 0.4],
  ] as const) {
    const p = at(w);
    if (!p) continue;
    const s = share(p.typed);
    out.push({
      name: `typed messages of the replaced span kept (verbatim or 90% of words) ≥ ${min * 100}% at ${k(w)}, pooled`,
      met: s !== null && s >= min,
      value: `${pct(p.typed)}; ${sizes(compactAt(w))}`,
    });
  }
  const replays = runs.filter((r) => r.mode === 'replay' && r.window === replayWindow);
  if (replays.length) {
    const low = replays.filter((r) => (share(r.figures.typedAll) ?? 1) < 0.9);
    out.push({
      name: `${k(replayWindow)} replay: ≥ 90% of all typed requests in the final context, each replayed transcript`,
      met: low.length === 0,
      value: replays
        .map(
          (r) =>
            `${r.transcript.split('/')[0]} ${pct(r.figures.typedAll)} after ${r.compactions} compactions, final ${k(r.tokensAfter)} tokens`,
        )
        .join('; '),
    });
  }
  const p32 = at(32_000);
  if (p32) {
    const stateRuns = [...compactAt(32_000), ...replays];
    const items = stateRuns.flatMap((r) => r.figures.state);
    const kept = items.filter((x) => x.kept).length;
    const missed = stateRuns.flatMap((r) =>
      r.figures.state
        .filter((x) => !x.kept)
        .map((x) => `${r.transcript.split('/')[0]}${r.mode === 'replay' ? ' (replay)' : ''}: ${x.item}`),
    );
    out.push({
      name: 'current-state items kept (latest request, latest failure line, latest command, last three edited files) = 100% at 32k',
      met: kept === items.length,
      value: `${pct({ kept, total: items.length })}${missed.length ? `; missed ${missed.slice(0, 8).join(', ')}${missed.length > 8 ? ` and ${missed.length - 8} more` : ''}` : ''}`,
    });
    out.push({
      name: 'paths of the replaced span kept ≥ 70% at 32k, pooled',
      met: (share(p32.identifiers.paths) ?? 0) >= 0.7,
      value: `${pct(p32.identifiers.paths)}; ${sizes(compactAt(32_000))}`,
    });
    out.push({
      name: 'function/class names of the replaced span kept ≥ 60% at 32k, pooled',
      met: (share(p32.identifiers.symbols) ?? 0) >= 0.6,
      value: `${pct(p32.identifiers.symbols)}; ${sizes(compactAt(32_000))}`,
    });
  }
  const outside = runs.filter((r) => (r.mode === 'compact' ? r.compactions > 0 : true) && !r.insideTarget);
  const after = (r: QualityRun) => (r.mode === 'replay' ? (r.maxAfterCompaction ?? 0) : r.tokensAfter);
  out.push({
    name: 'every compaction ends inside its target (compactTo), runs where the never-summarised part fits the target',
    met: outside.length === 0,
    value:
      outside.length === 0
        ? `all ${runs.length} runs`
        : `outside on ${outside.map((r) => `${runName(r)} (${after(r)} > ${r.target} tokens)`).join(', ')}`,
  });
  if (exempt.length) {
    const state = (r: QualityRun) =>
      pct({ kept: r.figures.state.filter((x) => x.kept).length, total: r.figures.state.length });
    out.push({
      name: '(exempt, not judged) runs where the never-summarised part alone exceeds the target',
      met: true,
      value: exempt
        .map(
          (r) =>
            `${runName(r)}: ${r.exempt}; ${k(r.tokensBefore)} → ${k(r.tokensAfter)} tokens, typed ${pct(r.mode === 'replay' ? r.figures.typedAll : r.figures.typedReplaced)}, paths ${pct(r.figures.identifiers.paths)}, names ${pct(r.figures.identifiers.symbols)}, current state ${state(r)}`,
        )
        .join('; '),
    });
  }
  return out;
}

/** The Markdown section. */
export function qualityTable(q: QualityResult): string {
  const lines: string[] = [];
  const push = (...l: string[]) => lines.push(...l);
  if (q.skipped) return `### Summary quality\n\nSkipped: ${q.skipped}\n`;
  push(
    '### Summary quality (forced `compact` through the CLI, default settings, extractive; kept = still in the context sent next)',
    '',
  );
  push(
    '| transcript | window | tokens before → after (target) | inside target | typed messages of the replaced span kept | paths | commands | error lines | function/class names | URLs | current state |',
  );
  push('|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of q.runs) {
    const f = r.figures;
    const st = { kept: f.state.filter((x) => x.kept).length, total: f.state.length };
    const name = r.mode === 'replay' ? `${r.transcript} (replay, ${r.compactions} compactions)` : r.transcript;
    const typed = r.mode === 'replay' ? `${pct(f.typedAll)} of all` : pct(f.typedReplaced);
    push(
      `| ${name} | ${k(r.window)} | ${k(r.tokensBefore)} → ${k(r.tokensAfter)} (${k(r.target)})${r.outcome.startsWith('applied') ? '' : `; ${r.outcome}`} | ${r.insideTarget ? 'yes' : r.exempt ? `no, exempt: ${r.exempt}` : '**no**'} | ${typed} | ${pct(f.identifiers.paths)} | ${pct(f.identifiers.commands)} | ${pct(f.identifiers.errors)} | ${pct(f.identifiers.symbols)} | ${pct(f.identifiers.urls)} | ${pct(st)} |`,
    );
  }
  push(
    '',
    'Pooled over the runs that are not exempt (exempt: the never-summarised part alone exceeds the target; listed under the targets):',
    '',
    '| window | typed kept (pooled) | paths | commands | error lines | function/class names | URLs | current state | inside target |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const p of q.pooled)
    push(
      `| ${k(p.window)} | ${pct(p.typed)} | ${pct(p.identifiers.paths)} | ${pct(p.identifiers.commands)} | ${pct(p.identifiers.errors)} | ${pct(p.identifiers.symbols)} | ${pct(p.identifiers.urls)} | ${pct(p.state)} | ${pct(p.insideTarget)} |`,
    );
  push('', '| target | measured | met |', '|---|---|---|');
  for (const t of q.targets) push(`| ${t.name} | ${t.value} | ${t.met ? 'yes' : '**no (missed)**'} |`);
  push('', `Input: ${q.input}. ${q.seconds} s.`);
  return lines.join('\n');
}
