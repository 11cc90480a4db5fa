/** Plain-text rendering for the command-line tool. */

/** `12.3k` style figure for a token count. */
export function kTokens(n: number): string {
  return n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

/**
 * A gauge line: `[#########.....|...:...] 62% 79k/128k`, with `|` at the trigger and `:` at the
 * target, 40 characters wide.
 */
export function gauge(used: number, base: number, at: number, to: number, width = 40): string {
  const cells: string[] = Array.from({ length: width }, (_, k) => (k < Math.round((used / base) * width) ? '#' : '.'));
  const mark = (f: number, ch: string) => {
    const k = Math.min(width - 1, Math.round(f * width));
    cells[k] = ch;
  };
  mark(to, ':');
  mark(at, '|');
  return `[${cells.join('')}] ${String(Math.round((used / base) * 100)).padStart(3)}% ${kTokens(used)}/${kTokens(base)}`;
}
