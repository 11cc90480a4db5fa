/**
 * Types of the budget gauge: what the next request would carry against the model's window, and its
 * split by category. Part of the service's public surface (re-exported by `api.ts`); every size is in
 * tokens, fractions are of the threshold base (see `BudgetConfig.thresholdBase` in
 * `src/compaction/types.ts`).
 */

/** A threshold as tokens and as the fraction of the base it was computed from. */
export interface ThresholdMark {
  tokens: number;
  fraction: number;
}

/** Token counts of the active context by category (they add up to `used`). */
export interface BudgetBreakdown {
  /** Leading system/developer messages, the project instructions excepted. */
  system: number;
  /**
   * The workspace's project instructions (AGENTS.md and the like): the leading message that holds
   * them and instruction files re-attached after a summary (see `project-instructions.ts`).
   */
  instructions: number;
  /** Tool schemas sent with each request. */
  tools: number;
  /** Raw messages before the latest real user message (excluding summaries). */
  history: number;
  /** Summary items written by checkpoints (re-attached instruction files excepted). */
  summaries: number;
  /**
   * The latest real user message and everything after it, less {@link BudgetBreakdown.harness}.
   */
  currentTask: number;
  /**
   * Text an agent's harness or IDE wrote into the current task's user messages (Cline's environment
   * details, system reminders, editor context; recognised by `compaction/harness-text.ts`): sent with
   * the task, but not the user's request.
   */
  harness: number;
}

/** The budget gauge: what the next request would carry, against the model's window. */
export interface BudgetSnapshot {
  /** Tokens the next request would carry (system + tools + messages). */
  used: number;
  /** The model's whole context window. */
  window: number;
  /** Output tokens reserved for the reply. */
  reserved: number;
  /** Tokens a prompt may use: `window - reserved`. */
  inputBudget: number;
  /** Level at which automatic compaction fires. */
  compactAt: ThresholdMark;
  /** Level a compaction aims for. */
  compactTo: ThresholdMark;
  /** `used` as a fraction of the threshold base. */
  usedFraction: number;
  breakdown: BudgetBreakdown;
  /**
   * True when `used` is anchored on the provider's reported `usage.prompt_tokens` of the last
   * request (plus counted tokens of what was added since); false when it is a pure estimate.
   */
  exact: boolean;
  /**
   * True while the tokenizer's table is still loading (a moment after a session opens): `used` is
   * then a character-based estimate, to be labelled as such; the exact count follows.
   */
  counting?: boolean;
  /**
   * Which figure `used` rests on, one sentence: the provider's reported prompt tokens, those plus the
   * cached tokens it reported separately, or the local count (with why a reported figure was not used).
   */
  usedSource?: string;
  /** Cached tokens added back to the reported prompt tokens (a proxy that leaves them out); 0 or absent when none. */
  cachedAdded?: number;
  /** Model whose window is shown. */
  model: string;
  /** Configuration warnings (reservation clamped, trigger below fixed overhead…). */
  warnings: string[];
  /** Where the window came from ("32,768 tokens, reported by the server"), when known. */
  windowSource?: string;
  /** An imported recording's provider-reported prompt tokens of its newest request, when recorded. */
  recordedPromptTokens?: number;
  /**
   * Set while automatic compaction is paused (after failures in a row, or when it kept refilling past
   * the trigger): why, as a clause ("paused after 3 failed compactions in a row"). A successful
   * manual compaction resumes it.
   */
  autoPaused?: string;
}
