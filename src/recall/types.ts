/**
 * Shapes of recall: read-only search and reading over a conversation's raw transcript, including
 * what compactions replaced. Plain data only; no `vscode`, no I/O.
 */
import type { ChatMessage, Entry } from '../compaction/types';

/** A compaction whose replaced messages recall can name: one of ours, or a recording agent's own. */
export interface RecallCheckpoint {
  /**
   * `ck-…` for ContextKeeper's checkpoints, `import-N` for the compactions a recorded file holds (the
   * recording agent's own, or a summary ContextKeeper wrote into a file it output).
   */
  id: string;
  /** Raw entry ids the compaction replaced, oldest first. */
  replacedIds: readonly string[];
  /**
   * `context-keeper`: a summary ContextKeeper wrote (a file of `compact --out` or `replay --out` read
   * back): `replacedIds` is the summary message itself, which stands in the context for messages the
   * file no longer holds; absent: the recording agent's own compaction, or one of ours.
   */
  writer?: 'context-keeper';
}

/** What recall reads: the raw transcript (every message, never edited) and the compactions in force. */
export interface RecallSource {
  entries: readonly Entry[];
  checkpoints: readonly RecallCheckpoint[];
}

/**
 * Where a message's text came from, decided by its role and the format's own markers, never by tags
 * or headings inside the text (text a tool returned is never presented as the user's).
 */
export type Provenance =
  | { kind: 'system' }
  | { kind: 'user' }
  /**
   * A summary a recording agent wrote at its own compaction (it stands in the user role); `writer`
   * `context-keeper` when ContextKeeper wrote it (a file of `compact --out` read back).
   */
  | { kind: 'recorded-summary'; writer?: 'context-keeper' }
  /** Tool or environment output that a harness sent in the user role. */
  | { kind: 'user-role-output' }
  | { kind: 'assistant'; toolCalls: string[] }
  | { kind: 'tool'; toolName?: string };

/** One message of the raw transcript as recall cites it. */
export interface RecalledMessage {
  /** 1-based position in the raw transcript. */
  index: number;
  /** The raw entry's id. */
  id: string;
  role: ChatMessage['role'];
  provenance: Provenance;
  /** Checkpoints in force that replaced it, oldest first; empty when it is still in the context. */
  checkpoints: string[];
}

/** One search result. */
export interface RecallHit extends RecalledMessage {
  /** Masked text around the first match, on one line, at most `snippetChars` characters. */
  snippet: string;
  /** True when the whole query occurs as a phrase; false when only all of its words do. */
  phrase: boolean;
}

/** Outcome of {@link searchHistory}. */
export interface SearchResult {
  query: string;
  /** The checkpoint searched, when one was named. */
  checkpoint?: string;
  /** Messages searched. */
  searched: number;
  /** Messages that match, shown or not. */
  matched: number;
  /** The cap on hits this search applied. */
  maxResults: number;
  /** The hits shown, best first: replaced messages, whole phrases and newer messages first. */
  hits: RecallHit[];
  /** Why hits were left out, when some were. */
  cut?: 'results' | 'characters';
}

/** One message as {@link readHistory} returns it. */
export interface ReadMessage extends RecalledMessage {
  /** Masked text (tool calls written as `→ name(arguments)` lines), from `offset` on. */
  text: string;
  /** Characters of the masked text skipped before `text` (the `offset` asked for). */
  offset: number;
  /** Length of the whole masked text, in characters. */
  length: number;
}

/** Outcome of {@link readHistory}. */
export interface ReadResult {
  checkpoint?: string;
  /** Messages in the raw transcript. */
  total: number;
  /** First and last message position asked for (after defaults and clamping). */
  from: number;
  to: number;
  messages: ReadMessage[];
  /** Where to continue when the character cap stopped the read: a message position and offset. */
  next?: { from: number; offset: number };
}

/** Caps of one search or read. Characters are UTF-16 code units of the text returned. */
export interface RecallLimits {
  /** Most hits a search returns. */
  maxResults: number;
  /** Most characters of snippet text a search returns in all. */
  searchChars: number;
  /** Characters of one snippet. */
  snippetChars: number;
  /** Most messages one read returns. */
  readMessages: number;
  /** Most characters of message text one read returns in all. */
  readChars: number;
}

/** The caps stated in the tools' descriptions. */
export const RECALL_LIMITS: RecallLimits = {
  maxResults: 10,
  searchChars: 4_000,
  snippetChars: 300,
  readMessages: 20,
  readChars: 8_000,
};

/** Bad arguments to recall (unknown checkpoint, empty query, range outside the transcript). */
export class RecallError extends Error {
  override readonly name = 'RecallError';
}
