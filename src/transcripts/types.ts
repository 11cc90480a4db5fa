/**
 * Public shapes of the transcript importers. Plain data only; see `index.ts` for the entry points.
 */
import type { Entry, ToolSchema } from '../compaction/types';

/** The recorded-session formats the importers read. `openai-chat` also covers plain message arrays. */
export type TranscriptFormat =
  'claude-code' | 'codex' | 'openhands' | 'swe-agent' | 'aider' | 'cline' | 'openai-chat' | 'context-keeper';

/** All formats, in detection-report order. */
export const TRANSCRIPT_FORMATS: readonly TranscriptFormat[] = [
  'claude-code',
  'codex',
  'openhands',
  'swe-agent',
  'aider',
  'cline',
  'openai-chat',
  'context-keeper',
];

/**
 * A compaction the recorded agent made itself. The core turns each one into a checkpoint with trigger
 * `import`, in file order.
 *
 * `replacedIds` are the entries that were in the agent's context just before it compacted and were
 * forgotten by it (never leading system messages). A later compaction lists the earlier summary entry
 * among its `replacedIds` when the agent summarized its own summary again (nested compaction).
 */
export interface ImportedCompaction {
  /** Entry ids the agent's compaction had forgotten, in entry order. */
  replacedIds: string[];
  /** The summary text the agent wrote (may be empty when the file does not keep it). */
  summary: string;
  /** The entry holding the summary, when it is one of `entries` (it then follows the replaced span). */
  summaryEntryId?: string;
  /**
   * `context-keeper`: the summary is one ContextKeeper wrote (a file of `compact --out` read back),
   * recognised by its header (`summary-header.ts`); absent: the recording agent wrote it.
   */
  writer?: 'context-keeper';
}

/** Counts over the imported entries. */
export interface TranscriptStats {
  /** Entries emitted (all roles). */
  messages: number;
  /** Entries of `tool_calls` over all assistant messages. */
  toolCalls: number;
  /** `tool` messages. */
  toolResults: number;
  /** `image_url` parts over all messages. */
  images: number;
}

/** The result of importing one recorded session. */
export interface ImportedTranscript {
  format: TranscriptFormat;
  /** The file name given to the importer. */
  file: string;
  /** Model of the session (the first one recorded), when known. */
  model?: string;
  /** Canonical entries in conversation order; tool pairing is valid (see `pairing.ts`). */
  entries: Entry[];
  /** Tool schemas recorded in the file (empty when the format does not keep them). */
  tools: ToolSchema[];
  /** Records and blocks that carry no message, by type, with counts. */
  skipped: Record<string, number>;
  compactions: ImportedCompaction[];
  stats: TranscriptStats;
  /** Repairs and oddities worth telling the user about; never fatal. */
  warnings: string[];
  /** The model's context window, when the file records it (Codex `model_context_window`). */
  contextWindow?: number;
}

/** Options of an import. */
export interface ImportOptions {
  /** Skip detection and read the file as this format. */
  format?: TranscriptFormat;
}
