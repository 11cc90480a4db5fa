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
import { identifiersOfPart, mergePartIdentifiers, type PartIdentifiers } from './identifierParts';
import { rootsIn, shortPath } from './pathRoot';

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

/** Identifiers of one message, by source: one part per tool call, and its text (see {@link sourcesOf}). */
interface MessageParts {
  args: PartIdentifiers[];
  source: 'output' | 'conversation' | undefined;
  text: PartIdentifiers | undefined;
}

/** Per message object (messages are never mutated): each message's text is read for identifiers once. */
const partCache = new WeakMap<object, MessageParts>();

function partsOf(item: ContextItem): MessageParts {
  const m = item.message;
  const hit = partCache.get(m);
  if (hit) return hit;
  const text = contentText(m);
  const source = m.role === 'tool' || (m.role === 'user' && isToolOutputText(text)) ? 'output' : m.role === 'user' || m.role === 'assistant' ? 'conversation' : undefined;
  const parts: MessageParts = { args: toolCallsOf(m).map((c) => identifiersOfPart(`${c.name} ${c.arguments}`)), source, text: source ? identifiersOfPart(text) : undefined };
  partCache.set(m, parts);
  return parts;
}

/**
 * `extractIdentifiers` of each source text of {@link sourcesOf}, built from per-message results
 * (cached) when the joins are sealed, else from the joined text. Same lists either way.
 */
function identifiersBySource(items: readonly ContextItem[]): Record<'args' | 'conversation' | 'output', string[]> {
  const lists = { args: [] as PartIdentifiers[], conversation: [] as PartIdentifiers[], output: [] as PartIdentifiers[] };
  for (const it of items) {
    if (it.kind === 'summary') continue;
    const p = partsOf(it);
    if (p.source && p.text) lists[p.source].push(p.text);
    for (const a of p.args) lists.args.push(a);
  }
  let joined: ReturnType<typeof sourcesOf> | undefined;
  const of = (key: 'args' | 'conversation' | 'output') => mergePartIdentifiers(lists[key]) ?? extractIdentifiers((joined ??= sourcesOf(items))[key]);
  return { args: of('args'), conversation: of('conversation'), output: of('output') };
}

/** Smallest cost of one back-filled line: `- ` and an identifier of at least 3 characters, and a newline. */
const MIN_LINE_COST = 6;

/**
 * Appends identifiers of `items` missing from `summary`, at most `maxChars` characters in all
 * (about 4 characters make a token). A path the summary writes from a named folder (`pathRoot.ts`)
 * is not missing. `moved` maps old paths to where the files live now.
 * Returns the new text and the identifiers added. Never throws.
 */
export function backfillIdentifiers(summary: string, items: readonly ContextItem[], maxChars: number, moved: ReadonlyMap<string, string> = new Map()): { text: string; added: string[] } {
  const src = identifiersBySource(items);
  const added: string[] = [];
  const seen = new Set<string>();
  const inSummary = new SummaryIndex(summary);
  // A path the ledger wrote from a named folder (`$A/src/x.ts`) is in the summary already.
  const roots = rootsIn(summary);
  const has = (id: string) => {
    if (inSummary.has(id)) return true;
    const short = roots.list.length ? shortPath(roots, id) : id;
    return short !== id && inSummary.has(short);
  };
  let budget = maxChars;
  const blocks: string[] = [];
  for (const key of ['args', 'conversation', 'output'] as const) {
    const lines: string[] = [];
    const heading = BACKFILL_HEADINGS[key];
    for (const id of src[key]) {
      // Nothing more fits: every later identifier would be skipped for its cost.
      if (budget < MIN_LINE_COST) break;
      if (id.trim().length < 3 || NOISE.has(id.trim()) || seen.has(id)) continue;
      const now = moved.get(id);
      const line = `- ${id.replace(/\r?\n/g, ' ⏎ ')}${now ? ` (moved; now ${now})` : ''}`;
      const cost = line.length + 1 + (lines.length === 0 ? heading.length + 2 : 0);
      // Too long for what is left: skipped, and never offered again (whether or not the summary
      // has it, it would be skipped later too), so the summary is searched only for those that fit.
      if (cost > budget) {
        seen.add(id);
        continue;
      }
      if (has(id)) continue;
      seen.add(id);
      budget -= cost;
      lines.push(line);
      added.push(id);
    }
    if (lines.length) blocks.push(`${heading}\n${lines.join('\n')}`);
  }
  if (blocks.length === 0) return { text: summary, added };
  return { text: `${summary.trimEnd()}\n\n${blocks.join('\n\n')}`, added };
}

/**
 * `summary.includes(id)` for many identifiers: an identifier of at least {@link GRAM} characters can
 * only occur where its first {@link GRAM} characters do, so a set of the summary's substrings of that
 * length rejects most absent identifiers without a search.
 */
class SummaryIndex {
  private grams: Set<string> | undefined;

  constructor(private readonly summary: string) {}

  has(id: string): boolean {
    if (id.length < GRAM) return this.summary.includes(id);
    if (!this.grams) {
      this.grams = new Set();
      for (let i = 0; i + GRAM <= this.summary.length; i++) this.grams.add(this.summary.slice(i, i + GRAM));
    }
    return this.grams.has(id.slice(0, GRAM)) && this.summary.includes(id);
  }
}
const GRAM = 8;
