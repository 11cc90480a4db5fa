/**
 * Recall results as text, for the agent's tools, the MCP server and the command-line tool. Every
 * message is cited by position, id, where its text came from and the checkpoints that replaced it;
 * message text is indented under its citation, so text inside a message cannot pose as a citation.
 */
import { groupDigits } from '../compaction/summary/requests-section';
import {
  RECALL_LIMITS,
  type Provenance,
  type ReadResult,
  type RecalledMessage,
  type RecallLimits,
  type SearchResult,
} from './types';

/** Who wrote a message, in words: a tool's text is never called the user's. */
export function describeProvenance(p: Provenance): string {
  switch (p.kind) {
    case 'system':
      return 'system prompt';
    case 'user':
      return "user's message";
    case 'recorded-summary':
      return p.writer === 'context-keeper'
        ? 'summary written by an earlier ContextKeeper compaction'
        : "summary written by the recording agent's own compaction";
    case 'user-role-output':
      return 'tool or environment output sent in the user role (not typed by the user)';
    case 'assistant':
      return p.toolCalls.length === 0 ? 'assistant' : `assistant, calling ${p.toolCalls.join(', ')}`;
    case 'tool':
      return p.toolName === undefined ? 'tool result' : `tool result of ${p.toolName}`;
  }
}

/** `message 37 (id m37), tool result of read_file, replaced by checkpoint ck-1a2b3c4d`. */
export function citation(m: RecalledMessage): string {
  const where =
    m.checkpoints.length === 0
      ? 'still in the context'
      : `replaced by checkpoint${m.checkpoints.length > 1 ? 's' : ''} ${m.checkpoints.join(', ')}`;
  return `message ${m.index} (id ${m.id}), ${describeProvenance(m.provenance)}, ${where}`;
}

/** A search result as text. `readHint` says how to read whole messages with the caller's syntax. */
export function renderSearch(result: SearchResult, readHint: string, limits: RecallLimits = RECALL_LIMITS): string {
  const scope = result.checkpoint
    ? `the ${groupDigits(result.searched)} messages checkpoint ${result.checkpoint} replaced`
    : `${groupDigits(result.searched)} messages of the raw transcript`;
  if (result.matched === 0) return `No message matches "${result.query}" (searched ${scope}).`;
  const lines = [
    `${groupDigits(result.matched)} ${result.matched === 1 ? 'message matches' : 'messages match'} "${result.query}" (searched ${scope}):`,
  ];
  result.hits.forEach((h, k) => {
    lines.push(`[${k + 1}] ${citation(h)}${h.phrase ? '' : ' (all the words, not the phrase)'}`);
    lines.push(`    ${h.snippet}`);
  });
  const left = result.matched - result.hits.length;
  if (left > 0)
    lines.push(
      `[${groupDigits(left)} more not shown: at most ${result.maxResults} results and ${groupDigits(limits.searchChars)} characters of snippets are returned; narrow the query or name a checkpoint]`,
    );
  lines.push(readHint);
  return lines.join('\n');
}

/** A read result as text. `continueWith` writes the call that reads on from `next`. */
export function renderRead(
  result: ReadResult,
  continueWith: (next: { from: number; offset: number }) => string,
  limits: RecallLimits = RECALL_LIMITS,
): string {
  const first = result.messages[0]?.index ?? result.from;
  const last = result.messages[result.messages.length - 1]?.index ?? result.to;
  const lines = [
    `Messages ${first}-${last} of ${groupDigits(result.total)}${result.checkpoint ? ` (those checkpoint ${result.checkpoint} replaced)` : ''}; text is masked where it held credentials.`,
  ];
  for (const m of result.messages) {
    const part =
      m.offset > 0 || m.offset + m.text.length < m.length
        ? ` [characters ${groupDigits(m.offset + 1)}-${groupDigits(m.offset + m.text.length)} of ${groupDigits(m.length)}]`
        : '';
    lines.push(`── ${citation(m)}${part}`);
    lines.push(m.text === '' ? '│ (no text)' : m.text.replace(/\r?\n/g, '\n│ ').replace(/^/, '│ '));
  }
  if (result.next) {
    // Say which cap stopped the read, so the reader knows whether a narrower range would help.
    const cap =
      result.messages.length >= limits.readMessages
        ? `${limits.readMessages} messages, the most one read returns`
        : `${groupDigits(limits.readChars)} characters, the most one read returns`;
    lines.push(`[stopped at ${cap}; continue with ${continueWith(result.next)}]`);
  }
  return lines.join('\n');
}
