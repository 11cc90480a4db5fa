/**
 * Token figures as every surface writes them (notifications, the sidebar's gauge, the webview, the
 * status bar, the command line), so a figure reads the same everywhere: compact ("11.9k") where room
 * is short, full ("365,316") where the exact count matters, in the display locale (`display.ts`).
 * Pure: the webview bundle and the command line use it.
 */
import { formatDecimal, formatInteger } from './display';

/**
 * Compact token count as the gauge shows it: 950, 9.5k, 12k, 1.05M. `n` is a count of tokens;
 * negative counts keep their sign.
 */
export function formatTokens(n: number): string {
  if (n < 0) return `-${formatTokens(-n)}`;
  if (n < 1000) return formatDecimal(n, 0);
  if (n < 1_000_000) return `${formatDecimal(n / 1000, n < 10_000 ? 1 : 0)}k`;
  return `${formatDecimal(n / 1_000_000, 2)}M`;
}

/** Full token count, rounded to a whole number, with thousands separators: 365,316. */
export function formatTokensFull(n: number): string {
  return formatInteger(n);
}

/** `n` with the noun in its singular or plural form: "1 checkpoint", "3 checkpoints" (English, no locale grouping). */
export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
