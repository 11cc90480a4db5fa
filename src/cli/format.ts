/** Plain-text rendering for the command-line tool. */
import { formatTokens } from '../format/tokens';

/**
 * A bar of `width` cells: `#` for `used` of `base`, `|` at the trigger fraction `at` and `:` at the
 * target fraction `to`. Shared by the command-line tool and the demo.
 */
export function gaugeBar(used: number, base: number, at: number, to: number, width = 40): string {
  const filled = Math.min(width, Math.round((used / base) * width));
  const cells: string[] = Array.from({ length: width }, (_, k) => (k < filled ? '#' : '.'));
  const cell = (f: number) => Math.min(width - 1, Math.max(0, Math.round(f * width)));
  if (cells[cell(to)] !== '#') cells[cell(to)] = ':';
  cells[cell(at)] = '|';
  return `[${cells.join('')}]`;
}

/**
 * The legend of {@link gauge}, printed once above the first gauge line (the demo and `replay` use the
 * same scale: the input budget, the window less the reply reserve).
 */
export const GAUGE_LEGEND =
  'gauge: [#### used, | compaction trigger, : compaction target, . free] over the input budget (the window less the reserved reply), then the percent of it and used/budget tokens';

/** A gauge line: `[#########.....|...:...]  62% 79k/128k` (see {@link gaugeBar}). */
export function gauge(used: number, base: number, at: number, to: number, width = 40): string {
  return `${gaugeBar(used, base, at, to, width)} ${String(Math.round((used / base) * 100)).padStart(3)}% ${formatTokens(used)}/${formatTokens(base)}`;
}
