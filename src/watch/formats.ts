/**
 * The agent session formats a watcher can follow live, and how a session file tells which it is.
 */
import { parseJsonObject } from '../format/json';

/** The agent formats that can be followed live (JSONL written one record per line). */
export type WatchedFormat = 'claude-code' | 'codex';

/** Tells the format from the first record of a session file; undefined when it is neither agent's. */
export function detectWatchedFormat(firstLine: string): WatchedFormat | undefined {
  const r = parseJsonObject(firstLine);
  if (!r) return undefined;
  if (typeof r.type === 'string' && r.payload && typeof r.payload === 'object') return 'codex';
  if (
    'sessionId' in r ||
    'uuid' in r ||
    r.type === 'summary' ||
    r.type === 'user' ||
    r.type === 'assistant' ||
    r.type === 'system'
  )
    return 'claude-code';
  return undefined;
}
