/**
 * A compact line diff for approval prompts: the changed region between the common leading and trailing
 * lines, as `-`/`+` lines with a few lines of context. Enough to judge an edit in a list or a CLI;
 * the extension shows VS Code's full diff editor instead.
 */

const CONTEXT_LINES = 2;
const MAX_SHOWN_LINES = 80;

/** Renders the changed region of `before` → `after`; sizes in lines. */
export function lineDiff(before: string, after: string): string {
  if (before === after) return '(no change)';
  const a = before === '' ? [] : before.split('\n');
  const b = after === '' ? [] : after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const from = Math.max(0, head - CONTEXT_LINES);
  const out: string[] = [`@@ line ${head + 1} @@`];
  for (let i = from; i < head; i++) out.push(`  ${a[i]}`);
  for (let i = head; i < a.length - tail; i++) out.push(`- ${a[i]}`);
  for (let i = head; i < b.length - tail; i++) out.push(`+ ${b[i]}`);
  for (let i = a.length - tail; i < Math.min(a.length, a.length - tail + CONTEXT_LINES); i++) out.push(`  ${a[i]}`);
  if (out.length > MAX_SHOWN_LINES) {
    const hidden = out.length - MAX_SHOWN_LINES;
    return [...out.slice(0, MAX_SHOWN_LINES), `… ${hidden} more diff lines`].join('\n');
  }
  return out.join('\n');
}
