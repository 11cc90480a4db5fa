/**
 * Search over the raw transcript: which messages hold a phrase (or all of its words), cited by
 * position, id, provenance and the checkpoints that replaced them, each with a masked snippet.
 */
import { indexSource, maskedTextOf, rawTextOf, scopeOf, type RecallIndex } from './messages';
import {
  RECALL_LIMITS,
  RecallError,
  type RecallHit,
  type RecallLimits,
  type RecallSource,
  type SearchResult,
} from './types';

/** Options of {@link searchHistory}. */
export interface SearchOptions {
  /** Text to find, case-insensitive: a phrase (white space between its words may differ), else all its words. */
  query: string;
  /** Search only the messages this checkpoint replaced. */
  checkpoint?: string;
  /** Most hits returned; clamped to `limits.maxResults`. */
  maxResults?: number;
  limits?: RecallLimits;
}

/** Most characters of a query. */
export const MAX_QUERY_CHARS = 500;

/**
 * Finds the messages holding `query`. Matching runs on masked text, so a credential is never
 * confirmed by a query. Best first: messages replaced by a checkpoint (the ones out of the agent's
 * sight), then whole-phrase matches, then newer messages. The hits shown stop at `maxResults` or when
 * their snippets reach `limits.searchChars` characters; `cut` says which.
 * @param source the raw transcript and checkpoints, or an index built by {@link indexSource}
 * @throws RecallError for an empty or too long query, or an unknown checkpoint
 */
export function searchHistory(source: RecallSource | RecallIndex, options: SearchOptions): SearchResult {
  const index = 'messages' in source ? source : indexSource(source);
  const limits = options.limits ?? RECALL_LIMITS;
  const query = options.query.replace(/\s+/g, ' ').trim();
  if (query === '') throw new RecallError('the query is empty: give a word or phrase to find');
  if (query.length > MAX_QUERY_CHARS)
    throw new RecallError(`the query has ${query.length} characters; at most ${MAX_QUERY_CHARS}`);
  const max = Math.max(1, Math.min(options.maxResults ?? limits.maxResults, limits.maxResults));
  const scope = scopeOf(index, options.checkpoint);
  const words = [...new Set(query.toLowerCase().split(' '))];
  const phrase = new RegExp(words.length === 1 ? escape(query) : query.split(' ').map(escape).join('\\s+'), 'i');

  const found: Array<{ at: number; pos: number; phrase: boolean; text: string }> = [];
  for (const at of scope) {
    const entry = index.source.entries[at];
    // Cheap test on the raw text first; masking runs only on candidates.
    const raw = rawTextOf(entry).toLowerCase();
    if (!words.every((w) => raw.includes(w))) continue;
    const text = maskedTextOf(entry);
    const m = phrase.exec(text);
    if (m) {
      found.push({ at, pos: m.index, phrase: true, text });
      continue;
    }
    const lower = text.toLowerCase();
    if (!words.every((w) => lower.includes(w))) continue;
    found.push({
      at,
      pos: words.reduce((least, w) => Math.min(least, lower.indexOf(w)), Infinity),
      phrase: false,
      text,
    });
  }
  found.sort((a, b) => {
    const ra = index.messages[a.at].checkpoints.length > 0 ? 0 : 1;
    const rb = index.messages[b.at].checkpoints.length > 0 ? 0 : 1;
    return ra - rb || Number(b.phrase) - Number(a.phrase) || b.at - a.at;
  });

  const hits: RecallHit[] = [];
  let chars = 0;
  let cut: SearchResult['cut'];
  for (const f of found) {
    if (hits.length >= max) {
      cut = 'results';
      break;
    }
    const snippet = snippetAt(f.text, f.pos, limits.snippetChars);
    if (chars + snippet.length > limits.searchChars) {
      cut = 'characters';
      break;
    }
    chars += snippet.length;
    hits.push({ ...index.messages[f.at], snippet, phrase: f.phrase });
  }
  return {
    query,
    ...(options.checkpoint !== undefined ? { checkpoint: options.checkpoint } : {}),
    searched: scope.length,
    matched: found.length,
    maxResults: max,
    hits,
    ...(cut ? { cut } : {}),
  };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * About `size` characters of `text` around position `pos`, white space folded to single spaces so a
 * snippet is one line, with `…` where text was left out on either side.
 */
export function snippetAt(text: string, pos: number, size: number): string {
  const start = Math.max(0, pos - Math.floor(size / 3));
  // Fold white space generously past the window, then cut: folding shortens the text.
  const window = text.slice(start, start + size * 2).replace(/\s+/g, ' ');
  const body = window.slice(0, size - 2).trim();
  const before = start > 0 ? '…' : '';
  const after = start + size * 2 < text.length || window.length > size - 2 ? '…' : '';
  return `${before}${body}${after}`;
}
