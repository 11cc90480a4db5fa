/**
 * Identifier back-fill that says where each identifier came from: the exact paths, commands, URLs
 * and error lines a summary left out are appended under a heading naming their source — tool-call
 * arguments, the conversation (what the user and the agent wrote), or tool output, which is never the
 * user's words. A path the session later moved away from says where the file lives now.
 *
 * Pure: no I/O.
 */
import type { ContextItem } from './types';
import { contentText, isToolOutputText, toolCallsOf } from './text';
import { extractIdentifiers, NOISE } from './identifiers';

/** Headings of the back-filled identifiers, by source, in order of priority. */
export const BACKFILL_HEADINGS = {
  args: '## Identifiers from tool-call arguments',
  conversation: '## Identifiers from the conversation',
  output: "## Identifiers from tool output (not the user's words)",
} as const;

/** Source texts of a span, split by where the text came from. */
export function sourcesOf(items: readonly ContextItem[]): { args: string; conversation: string; output: string } {
  const args: string[] = [];
  const conversation: string[] = [];
  const output: string[] = [];
  for (const it of items) {
    if (it.kind === 'summary') continue;
    const m = it.message;
    const text = contentText(m);
    if (m.role === 'tool' || (m.role === 'user' && isToolOutputText(text))) output.push(text);
    else if (m.role === 'user' || m.role === 'assistant') conversation.push(text);
    for (const c of toolCallsOf(m)) args.push(`${c.name} ${c.arguments}`);
  }
  return { args: args.join('\n'), conversation: conversation.join('\n'), output: output.join('\n') };
}

/**
 * Appends identifiers of `items` missing from `summary`, at most `maxChars` characters in all
 * (about 4 characters make a token). `moved` maps old paths to where the files live now.
 * Returns the new text and the identifiers added. Never throws.
 */
export function backfillIdentifiers(summary: string, items: readonly ContextItem[], maxChars: number, moved: ReadonlyMap<string, string> = new Map()): { text: string; added: string[] } {
  const src = sourcesOf(items);
  const added: string[] = [];
  const seen = new Set<string>();
  let budget = maxChars;
  const blocks: string[] = [];
  for (const key of ['args', 'conversation', 'output'] as const) {
    const lines: string[] = [];
    const heading = BACKFILL_HEADINGS[key];
    for (const id of extractIdentifiers(src[key])) {
      if (id.trim().length < 3 || NOISE.has(id.trim()) || seen.has(id) || summary.includes(id)) continue;
      seen.add(id);
      const now = moved.get(id);
      const line = `- ${id.replace(/\r?\n/g, ' ⏎ ')}${now ? ` (moved; now ${now})` : ''}`;
      const cost = line.length + 1 + (lines.length === 0 ? heading.length + 2 : 0);
      if (cost > budget) continue;
      budget -= cost;
      lines.push(line);
      added.push(id);
    }
    if (lines.length) blocks.push(`${heading}\n${lines.join('\n')}`);
  }
  if (blocks.length === 0) return { text: summary, added };
  return { text: `${summary.trimEnd()}\n\n${blocks.join('\n\n')}`, added };
}
