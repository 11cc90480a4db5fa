/**
 * The raw transcript as recall sees it: each message's position, provenance, the checkpoints that
 * replaced it, and its text with credentials masked (as in summaries and exports).
 */
import type { Entry } from '../compaction/types';
import { isToolOutputText, toolCallsOf, withoutAnsi } from '../compaction/text';
import { textWithPlaceholders } from '../compaction/content-text';
import { maskSecrets } from '../compaction/secrets';
import { RecallError, type Provenance, type RecalledMessage, type RecallSource } from './types';

/** A {@link RecallSource} read once: positions, provenance and checkpoint membership per entry. */
export interface RecallIndex {
  source: RecallSource;
  /** One per entry, in transcript order. */
  messages: RecalledMessage[];
  /** Entry ids by checkpoint id. */
  byCheckpoint: Map<string, Set<string>>;
}

/** Builds the index of a source. Linear in the transcript; reads no message text beyond roles. */
export function indexSource(source: RecallSource): RecallIndex {
  const byCheckpoint = new Map<string, Set<string>>();
  const covering = new Map<string, string[]>();
  for (const cp of source.checkpoints) {
    byCheckpoint.set(cp.id, new Set(cp.replacedIds));
    // A summary ContextKeeper wrote is in the context: it stands for messages the file no longer
    // holds, and nothing replaced it.
    if (cp.writer === 'context-keeper') continue;
    for (const id of cp.replacedIds) {
      const list = covering.get(id);
      if (list) list.push(cp.id);
      else covering.set(id, [cp.id]);
    }
  }
  // Call ids are unique within one step only (`call_0` in every reply): a result is named by the
  // latest assistant message's calls.
  let calls = new Map<string, string>();
  const messages = source.entries.map((entry, i): RecalledMessage => {
    const m = entry.message;
    if (m.role === 'assistant') {
      const own = toolCallsOf(m);
      if (own.length > 0) calls = new Map(own.map((c) => [c.id, c.name]));
    }
    return {
      index: i + 1,
      id: entry.id,
      role: m.role,
      provenance: provenanceOf(entry, calls),
      checkpoints: covering.get(entry.id) ?? [],
    };
  });
  return { source, messages, byCheckpoint };
}

function provenanceOf(entry: Entry, calls: Map<string, string>): Provenance {
  const m = entry.message;
  switch (m.role) {
    case 'system':
    case 'developer':
      return { kind: 'system' };
    case 'assistant':
      return { kind: 'assistant', toolCalls: toolCallsOf(m).map((c) => c.name) };
    case 'tool': {
      const toolName = calls.get(m.tool_call_id);
      return toolName === undefined ? { kind: 'tool' } : { kind: 'tool', toolName };
    }
    case 'function':
      return { kind: 'tool', toolName: m.name };
    default:
      if (entry.meta?.importedSummary)
        return entry.meta.summaryWriter
          ? { kind: 'recorded-summary', writer: entry.meta.summaryWriter }
          : { kind: 'recorded-summary' };
      return isToolOutputText(textWithPlaceholders(m.content)) ? { kind: 'user-role-output' } : { kind: 'user' };
  }
}

/**
 * The unmasked text of an entry: its content, then one `→ name(arguments)` line per tool call.
 * Terminal escape sequences (colour codes in command output) are removed: a read shows the text as
 * the terminal showed it, and its character cap can never fall inside one.
 */
export function rawTextOf(entry: Entry): string {
  const text = withoutAnsi(textWithPlaceholders(entry.message.content));
  const calls = toolCallsOf(entry.message).map((c) => `→ ${c.name}(${c.arguments})`);
  return calls.length === 0 ? text : text ? `${text}\n${calls.join('\n')}` : calls.join('\n');
}

/** The text recall shows of an entry: {@link rawTextOf} with credentials masked. */
export function maskedTextOf(entry: Entry): string {
  return maskSecrets(rawTextOf(entry));
}

/**
 * Entry positions (0-based) a request covers: one checkpoint's replaced messages, or the whole
 * transcript when `checkpoint` is undefined.
 * @throws RecallError naming the checkpoints in force when `checkpoint` is not one of them
 */
export function scopeOf(index: RecallIndex, checkpoint: string | undefined): number[] {
  if (checkpoint === undefined) return index.messages.map((_, i) => i);
  const ids = index.byCheckpoint.get(checkpoint);
  if (!ids) {
    const known = [...index.byCheckpoint.keys()];
    throw new RecallError(
      `no checkpoint "${checkpoint}" in force; ${known.length === 0 ? 'there is none' : `known: ${known.join(', ')}`}`,
    );
  }
  const out: number[] = [];
  index.messages.forEach((m, i) => {
    if (ids.has(m.id)) out.push(i);
  });
  return out;
}
