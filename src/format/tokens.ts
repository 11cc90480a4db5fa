/**
 * Figures as every surface writes them (notifications, the sidebar's gauge, the webview), so a figure
 * reads the same everywhere. Pure, and imports nothing: the webview bundle and the command line use it.
 */

/**
 * Compact token count as the gauge shows it: 950, 9.5k, 12k, 1.05M. `n` is a count of tokens;
 * negative counts keep their sign.
 */
export function formatTokens(n: number): string {
  if (n < 0) return `-${formatTokens(-n)}`;
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

/** `n` with the noun in its singular or plural form: "1 checkpoint", "3 checkpoints" (English, no locale grouping). */
export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
