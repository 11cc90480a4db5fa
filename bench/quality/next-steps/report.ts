/**
 * Tables and targets of the next-steps evaluation: per window, each method's share of every gold set
 * pooled over the points (kept / total), its false-open counts and its sizes.
 */
import { END_POINT, type Method, type PointResult } from './evaluate';
import type { Share, Scores } from './score';

/** Pooled figures of one method at one window. */
export interface Pooled {
  window: number;
  method: Method;
  /**
   * `all` points of the evaluation (the agent's compaction points and the first passes of 80% of the
   * window), only the `agent` compaction points (where its own summary exists), or the `end` of the
   * recording (reported apart).
   */
  points: 'all' | 'agent' | 'end';
  n: number;
  shares: Record<ShareKey, Share>;
  falseOpen: number | null;
  neverFailedShownFailing: number | null;
  tokens: number;
  summaryTokens: number;
}

export type ShareKey =
  'typed' | 'constraints' | 'modified' | 'read' | 'codeNames' | 'needed' | 'latestRequest' | 'todoOpen' | 'openErrors';
export const SHARE_KEYS: ShareKey[] = [
  'typed',
  'constraints',
  'modified',
  'read',
  'codeNames',
  'needed',
  'latestRequest',
  'todoOpen',
  'openErrors',
];
const LABEL: Record<ShareKey, string> = {
  typed: 'typed msgs',
  constraints: 'constraints',
  modified: 'files modified',
  read: 'files read',
  codeNames: 'code names',
  needed: 'needed tokens',
  latestRequest: 'latest request',
  todoOpen: 'todo open',
  openErrors: 'open errors named',
};
const METHODS: Method[] = ['product', 'truncation', 'masking', 'agent'];

/** Pools the points of each window by method. */
export function poolPoints(points: readonly PointResult[], windows: readonly number[]): Pooled[] {
  const out: Pooled[] = [];
  for (const window of windows) {
    for (const which of ['all', 'agent', 'end'] as const) {
      // A point where the product replaced nothing (the never-summarised part alone exceeds the
      // target) is listed in the results but not pooled: no method was asked to keep anything.
      const ps = points.filter(
        (p) =>
          p.replaced > 0 &&
          p.window === window &&
          (which === 'end'
            ? p.point === END_POINT
            : p.point !== END_POINT && (which === 'all' || p.point.startsWith('agent'))),
      );
      for (const method of METHODS) {
        const ms = ps.flatMap((p) => p.methods.filter((m) => m.method === method));
        if (ms.length === 0) continue;
        const shares = Object.fromEntries(
          SHARE_KEYS.map((k) => [
            k,
            ms.reduce((s, m) => ({ kept: s.kept + m.scores[k].kept, total: s.total + m.scores[k].total }), {
              kept: 0,
              total: 0,
            }),
          ]),
        ) as Record<ShareKey, Share>;
        const sumOrNull = (f: (s: Scores) => number | null) =>
          ms.some((m) => f(m.scores) !== null) ? ms.reduce((s, m) => s + (f(m.scores) ?? 0), 0) : null;
        out.push({
          window,
          method,
          points: which,
          n: ms.length,
          shares,
          falseOpen: sumOrNull((s) => s.falseOpen),
          neverFailedShownFailing: sumOrNull((s) => s.neverFailedShownFailing),
          tokens: ms.reduce((s, m) => s + m.tokens, 0),
          summaryTokens: ms.reduce((s, m) => s + m.summaryTokens, 0),
        });
      }
    }
  }
  return out;
}

export const ratio = (s: Share): number | null => (s.total === 0 ? null : s.kept / s.total);
const pct = (s: Share) => (s.total === 0 ? '–' : `${Math.round((s.kept / s.total) * 100)}% (${s.kept}/${s.total})`);
const k = (n: number) =>
  n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);

/** The Markdown table of one window (`which` points). */
export function windowTable(pooled: readonly Pooled[], window: number, which: Pooled['points']): string {
  const rows = pooled.filter((p) => p.window === window && p.points === which);
  if (rows.length === 0) return '';
  const head = [
    'method',
    'points',
    ...SHARE_KEYS.map((x) => LABEL[x]),
    'false-open',
    'never-failed shown failing',
    'context tokens',
    'summary tokens',
  ];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const r of rows) {
    lines.push(
      `| ${[
        r.method === 'masking'
          ? 'masking (own size)'
          : r.method === 'agent'
            ? "agent's own summary"
            : r.method === 'truncation'
              ? 'same-size truncation'
              : 'ContextKeeper',
        String(r.n),
        ...SHARE_KEYS.map((x) => pct(r.shares[x])),
        r.falseOpen === null ? 'n/a' : String(r.falseOpen),
        r.neverFailedShownFailing === null ? 'n/a' : String(r.neverFailedShownFailing),
        k(r.tokens),
        r.summaryTokens ? k(r.summaryTokens) : '–',
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

/** One target and its verdict. */
export interface NextTarget {
  name: string;
  met: boolean;
  value: string;
}

/** The targets at 32k and 8k, judged on the pooled figures. */
export function nextTargets(pooled: readonly Pooled[]): NextTarget[] {
  const get = (w: number, m: Method, which: 'all' | 'agent' = 'all') =>
    pooled.find((p) => p.window === w && p.method === m && p.points === which);
  const out: NextTarget[] = [];
  const atLeast = (name: string, s: Share | undefined, min: number) => {
    const r = s ? ratio(s) : null;
    out.push({ name, met: r !== null && r >= min, value: s ? pct(s) : 'no points' });
  };
  const p32 = get(32_000, 'product');
  const t32 = get(32_000, 'truncation');
  out.push({
    name: 'false-open 0 at 32k',
    met: (p32?.falseOpen ?? 1) === 0,
    value: String(p32?.falseOpen ?? 'no points'),
  });
  out.push({
    name: 'no never-failed command shown as failing at 32k',
    met: (p32?.neverFailedShownFailing ?? 1) === 0,
    value: String(p32?.neverFailedShownFailing ?? 'no points'),
  });
  atLeast('files modified ≥ 95% at 32k', p32?.shares.modified, 0.95);
  const above = (name: string, a: Share | undefined, b: Share | undefined, strict: boolean) => {
    const ra = a ? ratio(a) : null;
    const rb = b ? ratio(b) : null;
    out.push({
      name,
      met: ra !== null && rb !== null && (strict ? ra > rb : ra >= rb),
      value: `${a ? pct(a) : '–'} vs ${b ? pct(b) : '–'}`,
    });
  };
  above('needed tokens above same-size truncation at 32k', p32?.shares.needed, t32?.shares.needed, true);
  const pa = get(32_000, 'product', 'agent');
  const aa = get(32_000, 'agent', 'agent');
  if (aa)
    above(
      "needed tokens ≥ the agent's own summary at its compaction points, 32k",
      pa?.shares.needed,
      aa.shares.needed,
      false,
    );
  atLeast('typed messages ≥ 85% at 32k', p32?.shares.typed, 0.85);
  atLeast('code names referenced ≥ 65% at 32k', p32?.shares.codeNames, 0.65);
  const p8 = get(8_000, 'product');
  const t8 = get(8_000, 'truncation');
  atLeast('typed messages ≥ 50% at 8k', p8?.shares.typed, 0.5);
  above('needed tokens above same-size truncation at 8k', p8?.shares.needed, t8?.shares.needed, true);
  out.push({
    name: 'false-open 0 at 8k',
    met: (p8?.falseOpen ?? 1) === 0,
    value: String(p8?.falseOpen ?? 'no points'),
  });
  return out;
}
