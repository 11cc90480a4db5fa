/**
 * Canonical data of the compaction core. Plain data only: no `vscode`, no I/O.
 *
 * Messages are OpenAI Chat Completions messages. Provider-specific fields (for example DeepSeek's
 * `reasoning_content`) are kept untouched on the message object; metadata that must never reach the
 * model lives on the {@link Entry} beside the message, not inside it.
 */
import type {
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionMessageToolCall,
} from 'openai/resources/chat/completions';

/** An OpenAI Chat Completions message, sendable as-is. */
export type ChatMessage = ChatCompletionMessageParam;
/** A tool (function) schema as sent in the request's `tools` array. */
export type ToolSchema = ChatCompletionTool;
/** One entry of an assistant message's `tool_calls`. */
export type ToolCall = ChatCompletionMessageToolCall;

/** Where an entry came from in a recorded file, for error messages and inspection. */
export interface EntrySource {
  /** Path of the file the entry was read from. */
  file?: string;
  /** 1-based line (JSONL, Markdown) or array index + 1 (JSON) of the record. */
  line?: number;
  /** The record's own id in the source format (uuid, event id, call id). */
  recordId?: string;
}

/** Metadata kept beside a message. Never sent to the model. */
export interface EntryMeta {
  source?: EntrySource;
  /** ISO 8601 time the message was produced, when known. */
  timestamp?: string;
  /** True when this message is a summary written by an agent's own compaction (imported). */
  importedSummary?: boolean;
  /**
   * With `importedSummary`: `context-keeper` when the summary is one ContextKeeper wrote, read back
   * from a file it wrote (`compact --out`), not the recording agent's.
   */
  summaryWriter?: 'context-keeper';
  /** Pixel sizes of image parts, in part order, when known (used by the image token estimate). */
  imageSizes?: Array<{ width: number; height: number } | undefined>;
  /** Prompt tokens reported by the provider for the request that produced this assistant message. */
  reportedPromptTokens?: number;
  /** Model that produced this assistant message, when recorded. */
  model?: string;
  /**
   * For a tool result: whether the tool call succeeded, as the agent's tool host reported it or as an
   * imported format recorded it (Claude Code's and Cline's `is_error`, Codex's `success` or exit code,
   * OpenHands' error and rejection events). Undefined when nothing recorded it.
   */
  toolOk?: boolean;
  /**
   * For a tool result: true when the recorded format marks it as the person's reply (Cline's
   * answer to `ask_followup_question`, feedback on a result it denied or completed). Only such a
   * result can hold a typed request; tags inside other tool output never make one.
   */
  humanReply?: boolean;
  /**
   * For a person's reply (`humanReply`): true when its words are one of the options the agent's
   * question offered (Cline's `ask_followup_question` `options`), so the person clicked them rather
   * than typed them. Such a reply is a choice, never a typed request.
   */
  chosenOption?: boolean;
  /**
   * For a user message: true when the recording marks it as written by the agent's harness, not
   * typed by the person (Claude Code's `isMeta`: command caveats, local command output, injected
   * instructions). Such a message is never a typed request nor the latest request, whatever it says.
   */
  harnessText?: boolean;
  /**
   * An Aider reply whose applied edits are listed in its text by the `> Applied edit to <path>`
   * notices Aider printed (kept by the importer): an edit block with no notice for its file was a
   * proposal Aider did not apply (a file not in the chat, a block that did not match).
   */
  editsListed?: boolean;
  /**
   * True for a message this product's agent appended in its own session, in the workspace the session
   * belongs to (its tool calls ran there). Entries taken over by an import or a continued recording
   * never carry it: their paths name another project's files, so they are never re-attached.
   */
  local?: boolean;
}

/** A raw transcript entry: one message with a stable id. Raw entries are never edited. */
export interface Entry {
  /** Stable, unique within a session (for imports: derived from the source record). */
  id: string;
  message: ChatMessage;
  meta?: EntryMeta;
}

/** How an active-context item came to be. */
export type ItemKind = 'raw' | 'summary' | 'collapsed' | 'clipped';

/**
 * One element of the active context (what the model is sent next).
 *
 * - `raw`: the raw entry `covers[0]`, sent verbatim (`message` is the raw entry's message object).
 * - `summary`: stands for the raw entries in `covers`, written by checkpoint `checkpointId`.
 * - `collapsed` / `clipped`: a shortened form of the single raw tool/user message `covers[0]`.
 *
 * Invariant 4 (no loss): every raw entry id appears in `covers` of exactly one active item, or is
 * covered by a checkpoint whose summary item is itself covered by a later checkpoint.
 */
export interface ContextItem {
  /** Unique id of this item. For `raw` items it equals the raw entry id. */
  id: string;
  kind: ItemKind;
  message: ChatMessage;
  /** Raw entry ids this item stands for, oldest first. */
  covers: string[];
  /** The checkpoint that created this item (absent for `raw`). */
  checkpointId?: string;
  /** Pinned items are never summarized, collapsed or clipped. */
  pinned?: boolean;
  /**
   * Typed requests of the raw messages a summary stands for, oldest first, when its own text does
   * not hold them all verbatim (a recorded agent's summary, imported; a summary of ours whose requests
   * section shortened or left some out, see `carriedRequests`): a later compaction of this summary
   * carries them forward in its requests section, whole where its room allows. Never sent to the model.
   */
  requests?: string[];
  /**
   * Lines the user added by hand to this summary before applying it (a preview's edit), oldest first,
   * with those carried from the earlier summaries it folds: a later summary of this one keeps them
   * whole (see `hand-lines.ts`). Absent on summaries no one edited and on those saved before it existed.
   */
  handLines?: string[];
  /**
   * Set on a file re-attached after a summary (live sessions): its workspace-relative path. Such an
   * item is a `summary` item covering no raw entry; a later summary drops it rather than summarising
   * a stale copy of the file (see `reattach.ts`).
   */
  attachedFile?: string;
}

/**
 * Why a checkpoint was made: `auto` at the trigger, `manual` on the user's request (Compact),
 * `continue` when a recording was continued in a new task over its budget, `import` recorded by the
 * original agent.
 */
export type CheckpointTrigger = 'auto' | 'manual' | 'import' | 'continue';
export type CheckpointStrategy = 'collapse' | 'summary' | 'extractive' | 'clip';

/** Token usage of the summarizer's model calls for one checkpoint. */
export interface SummarizerUsage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens the provider reported as served from its prompt cache (`prompt_tokens_details.cached_tokens`). */
  cachedPromptTokens?: number;
  /** Calls that sent the agent's own prefix unchanged (see `SummaryRequest.context`). */
  prefixCalls?: number;
}

/**
 * One applied rewrite of the active context. Undoing it puts `replaced` back where `inserted` stand.
 * Tokens are counted by the session's meter, in tokens, for the whole context before and after.
 */
export interface Checkpoint {
  id: string;
  /** ISO 8601 time of application. */
  time: string;
  trigger: CheckpointTrigger;
  strategy: CheckpointStrategy;
  /** Raw entry ids the rewrite stands for (union of `covers` of `replaced`), oldest first. */
  replacedIds: string[];
  /** The active items this rewrite removed, in order (may include earlier summary items). */
  replaced: ContextItem[];
  /** The items it put in their place, in order. */
  inserted: ContextItem[];
  /** Summary text (for `collapse`/`clip`: a description of what was shortened). */
  summary: string;
  tokensBefore: number;
  tokensAfter: number;
  /** Summarizer model name (`extractive` when no model was used). */
  summarizerModel?: string;
  usage?: SummarizerUsage;
  durationMs?: number;
  /**
   * What a summary covers and which summarizer wrote which part (summaries only). Every replaced
   * message is covered (invariant 7): what the call limit leaves the model cannot read is written
   * without a model and said so here. Checkpoints saved before this field carry a `dropped` count
   * instead, which is no longer read.
   */
  coverage?: SummaryCoverage;
  /** Focus text given for a manual compaction. */
  focus?: string;
  /** True when the user edited the summary text in the preview before applying it (summaries only). */
  editedByHand?: boolean;
  /** Why it ran when neither the threshold nor the user asked (the provider refused an oversized request). */
  cause?: string;
  /** Typed requests the summary keeps: whole, shortened in the middle, left out (summaries only). */
  requests?: { whole: number; shortened: number; omitted: number; missingFromModel?: number };
  /** Files re-attached after the summary (live sessions), with their tokens. */
  attachedFiles?: Array<{ path: string; tokens: number }>;
  /**
   * What the text it wrote keeps of the span it replaced, by the quality benchmark's rules; absent on
   * checkpoints saved before it existed, on imported ones and where the span held nothing to score.
   */
  retention?: RetentionScorecard;
}

/**
 * What a compaction kept of the span it replaced (see `retention/scorecard.ts`): counts of the span's
 * gold sets by the quality benchmark's rules, and what was left out by name.
 */
export interface RetentionScorecard {
  /**
   * Typed requests of the span: `whole` (verbatim), `shortened` (some run of 8 words, or a short
   * request's words in order, still there), `leftOut` (nothing of it). whole + shortened + leftOut = total.
   */
  requests: { total: number; whole: number; shortened: number; leftOut: number };
  /** Files created, edited, moved or deleted in the span, and how many of them the text names. */
  filesChanged: { total: number; named: number };
  /** Files only read in the span, and how many the text names. */
  filesRead: { total: number; named: number };
  /**
   * Failures of the span's tool calls: `open` at the end of the span (work of the latest request)
   * and how many of those the text still names (`openNamed`); `resolved` later in the span and how many the text presents as open
   * or failing (`shownOpen`, which should be 0).
   */
  errors: {
    open: number;
    openNamed: number;
    resolved: number;
    shownOpen: number;
    /**
     * Failures unresolved when an earlier turn ended (the person typed a newer request after them;
     * `earlier-turn.ts`), counted apart from `open` and how many of them the text still names.
     * Absent when there are none (and on checkpoints saved before they were counted apart).
     */
    earlierTurn?: number;
    earlierTurnNamed?: number;
  };
  /** Commands of the span that never failed, shown as failing by the text (should be 0). */
  neverFailedShownFailing: number;
  /**
   * Open failures (command, or `tool path`) beside which a model's summary said the work is done: the
   * summary contradicts the tool results (it then carries a correction line naming them). Absent when not.
   */
  contradicted?: string[];
  /** Names of the code the agent worked with (functions, classes, services) and how many the text keeps. */
  identifiers: { total: number; kept: number };
  /**
   * Files and commits named by earlier summaries in the span (a recording agent's or the product's
   * own), and how many the text still names; absent on checkpoints saved before it was counted.
   */
  earlier?: {
    total: number;
    kept: number;
    /** How many of `total` are commit ids (the rest are files). */ commits?: number;
  };
  /**
   * Commits made in the span (Aider's commit notices, `git commit` output) and how many the text
   * names by id; absent when the span made none.
   */
  commits?: { total: number; named: number };
  /**
   * Programs (and Python modules) the span's commands found missing or found with a version or path,
   * the environment an agent runs in (`retention/environment.ts`), and how many the text names.
   * Absent on a card of a span with none, and on cards saved before it was counted.
   */
  environment?: { total: number; named: number };
  /** What was left out, by name: at most 8 of each kind (`SCORECARD_NAMES`), in span order. */
  missing: {
    /** Requests not kept whole, each cut to 80 characters, prefixed `shortened: ` or `left out: `. */
    requests: string[];
    filesChanged: string[];
    /** Command (or `tool path`) of each open error the text no longer names. */
    openErrors: string[];
    /** The same for failures unresolved when an earlier turn ended (see `errors.earlierTurn`). */
    earlierTurnErrors?: string[];
    /** Command of each resolved error the text presents as open. */
    shownOpen: string[];
    identifiers: string[];
    /** Commands that never failed and that the text shows as failing. */
    neverFailed?: string[];
    /** Files and commits of earlier summaries the text no longer names. */
    earlier?: string[];
    /** Ids of the span's commits the text does not name. */
    commits?: string[];
    /** Programs of {@link RetentionScorecard.environment} the text does not name. */
    environment?: string[];
  };
}

/** Token counts of the active context by category, in tokens. */
export interface TokenBreakdown {
  system: number;
  tools: number;
  user: number;
  assistant: number;
  toolResults: number;
  summaries: number;
}

/** How a threshold fraction is turned into tokens (see {@link BudgetConfig.thresholdBase}). */
export type ThresholdBase = 'budget' | 'window';

/** Context-window budget of one model. All sizes in tokens. */
export interface BudgetConfig {
  /** The model's context window (resolved: user override > provider metadata > built-in table). */
  contextWindow: number;
  /** Output tokens reserved for the reply; clamped (see `budget.ts`). */
  reservedOutput: number;
  /** Fraction of the base at which automatic compaction fires. Default 0.8. */
  compactAt: number;
  /** Fraction of the base that a compaction aims for. Default 0.5. */
  compactTo: number;
  /**
   * `budget` (default): fractions apply to `contextWindow - reservedOutput`, what the prompt may use.
   * `window`: fractions apply to the whole `contextWindow`.
   */
  thresholdBase?: ThresholdBase;
}

/** Options of one compaction run. */
export interface CompactionOptions {
  budget: BudgetConfig;
  trigger: CheckpointTrigger;
  /** Newest agent steps of the current task that are never summarized. Default 1. */
  keepRecentSteps?: number;
  /** Upper bound on model calls of one compaction. Default 4. */
  maxSummaryCalls?: number;
  /**
   * Target length of one summary's notes, in tokens. When absent the notes get
   * `summaryBudget` of the compaction target (see `budget.ts`, {@link summaryBudgets}).
   */
  approximateSummaryTokens?: number;
  /** Share of the compaction target for the typed requests kept verbatim (default 0.25, at most 20k tokens). */
  userBudget?: number;
  /** Share of the compaction target for a summary's notes and work-state ledger (default 0.25). */
  summaryBudget?: number;
  /** Manual compaction: run even below the threshold. */
  force?: boolean;
  /** Summarize every eligible unit, not only enough to reach the target (a full manual compaction). */
  all?: boolean;
  /** Focus text for the summarizer ("focus on the migration"). */
  focus?: string;
  /** Emit the summary as a user/assistant pair for chat templates that require alternation. */
  summaryAsPair?: boolean;
  /**
   * The line that ends each summary, saying where the messages it replaced can be read
   * (`recall-pointer.ts`). True (default): its checkpoint and the history tools, for a session that
   * keeps its checkpoints (the extension). `{ recording }`: their positions in the recording file
   * named, read with `context-keeper recall` (the command-line tool, whose checkpoints live only in
   * its output). False: no line, for text that leaves the session (a handoff), where neither can be
   * looked up.
   */
  recallPointer?: boolean | { recording: string };
  /**
   * Where the run's checkpoint ids come from, one call per id; default `newId` of `context.ts` (random, so the
   * ids of a long-lived session never meet). The command-line tool passes ordinals, so the same
   * input gives the same output (see `sequentialIds` in `context.ts`). In-process only (a function).
   */
  newCheckpointId?: () => string;
  /** Skip the collapse tier. */
  noCollapse?: boolean;
  /**
   * Tokens the plan leaves free below the target for what the caller adds after the summary (files
   * re-attached in live sessions), so that the result with them still meets the target. Default 0.
   */
  reserveTokens?: number;
  /**
   * Most prompt tokens the plan may be estimated to leave, before any summarizer call; a plan that
   * leaves more is not run (outcome `cannot-reach`). A summary prepared ahead sets it to what it can
   * still be used at, so that a summary bound to be thrown away costs no model call.
   */
  maxEstimatedAfter?: number;
  /**
   * A lower `compactTo` (fraction of the base) to aim at instead when the plan at the budget's own
   * target summarises anyway; a compaction the collapse tier alone completes keeps the budget's
   * target. Set by callers whose summaries cost about the same whatever they replace (a summary
   * over the agent's cached prefix, `src/service/compaction/landing.ts`).
   */
  deeperCompactTo?: number;
  /**
   * Secret values of the transcript's messages outside the context (those earlier checkpoints
   * replaced; from `spanSecretValues` over the raw transcript). An earlier summary holds masks, not
   * the values, so a later message that repeats a value without its assignment (a table of settings)
   * would otherwise reach a summary unmasked. Merged with the span's own values.
   */
  knownSecretValues?: readonly string[];
  /** Clock, for deterministic tests. */
  now?: () => Date;
  /** Cancels a running compaction; the context is then left unchanged. */
  signal?: AbortSignal;
  /** Streamed summary text, for progress display. */
  onDelta?: (text: string) => void;
}

/** A request to a summarizer: the span to replace, rendered for it by the core. */
export interface SummaryRequest {
  /** The active items being replaced, oldest first (may include earlier summaries). */
  items: ContextItem[];
  /** Real user requests in the span, verbatim, oldest first (for goal/constraint retention). */
  userRequests: string[];
  /** Target length, in tokens. */
  approximateSummaryTokens: number;
  /**
   * Tokens the core keeps beside the summary for identifiers it back-fills after it (0 or absent: none
   * kept). A summarizer may write the environment's few lines (programs found missing, versions found)
   * in them: they decide what the agent can run next and outrank back-filled identifiers.
   */
  identifierReserveTokens?: number;
  /**
   * Upper bound on model calls for this request: what the compaction's limit (`maxSummaryCalls`)
   * leaves after its earlier summaries. 0: no call is left, the span is written without a model.
   */
  maxCalls: number;
  focus?: string;
  signal?: AbortSignal;
  /** Streamed summary text, for progress display. */
  onDelta?: (text: string) => void;
  /**
   * The whole context the span is part of, as the agent sends it now: a summarizer running on the
   * session's own model may send this prefix unchanged (a provider prompt-cache hit) with its
   * instruction appended, instead of the span framed as data. Absent for recordings and tests.
   */
  context?: SummaryContext;
  /**
   * One object per compaction run, shared by all of its requests (absent outside a compaction): a
   * summarizer may keep state for the run under it, such as which summarizers already failed.
   */
  compactionRun?: object;
}

/** The agent's current request around a span (see {@link SummaryRequest.context}). */
export interface SummaryContext {
  /** The active context, in order, exactly as the agent's next request sends it. */
  items: readonly ContextItem[];
  /** The request's tool schemas (the same array the agent sends). */
  tools?: readonly ToolSchema[];
  /** The span being replaced: `items.slice(start, end)`. */
  start: number;
  end: number;
  /** Prompt tokens of `items` and `tools` as the session's meter counts them. */
  tokens: number;
  /** Tokens of each item (same order), so a leading part's size is known without recounting. */
  itemTokens?: readonly number[];
}

/** What a summarizer returns. Throws {@link SummarizerError} on any failure. */
export interface SummaryResult {
  text: string;
  model: string;
  usage: SummarizerUsage;
  /**
   * Which part of the span which writer read, when not all of it was read by `model` (batches beyond
   * `maxCalls` written without a model). Absent: the whole span was read by `model`'s writer.
   */
  coverage?: SummaryCoverage;
}

/**
 * One part of a summary's span and what wrote it. Positions are 1-based positions of raw messages
 * in the conversation, in order (the positions recall cites): a summarizer returns them counted
 * from 1 within its request, and the compaction places them where the span starts, so the ranges
 * of the summaries of one conversation never overlap. A summary of summaries counts every older
 * message it stands for. Checkpoints saved before the placement count from 1 in each summary.
 */
export interface SummaryPart {
  /** First and last raw message of the part (inclusive, 1-based). */
  first: number;
  last: number;
  /** `model`: read by the summarizer's model; `extractive`: notes extracted without a model. */
  writer: 'model' | 'extractive';
  /** Model calls that read this part (0 for `extractive`). */
  calls: number;
  /**
   * Why a part had no model when the summarizer has one: `call-limit`, the compaction needed more
   * calls than `maxSummaryCalls` and the oldest batches beyond it were written extractively;
   * `model-failed`, the model call failed and the extractive summarizer wrote the part instead
   * (the fallback; `failure` says why).
   */
  reason?: 'call-limit' | 'model-failed';
  /** For `model-failed`: the model's failure, one line (as the summarizer reported it). */
  failure?: string;
}

/**
 * What one summary covers, part by part, oldest first; the parts tile `messages` consecutive
 * positions (from 1 as a summarizer returns it; from the span's first position once placed).
 */
export interface SummaryCoverage {
  /** Raw messages the summary covers. */
  messages: number;
  parts: SummaryPart[];
  /** The compaction's call limit (`maxSummaryCalls`), when it left part of the span without a model. */
  maxCalls?: number;
}

/** Writes the summary of a span. Implementations: extractive (no model), OpenAI-compatible. */
export interface Summarizer {
  /** Name shown in checkpoints (`extractive`, or the model id). */
  readonly name: string;
  /** Its own context window, in tokens (input it can take per call, before its reply). */
  readonly contextWindow?: number;
  /**
   * True when its requests are sent to the session's own model over the agent's prefix where that
   * fits (a prompt-cache hit: the input costs the cached rate whatever the span's size).
   */
  readonly reusesPrefix?: boolean;
  summarize(request: SummaryRequest): Promise<SummaryResult>;
  /**
   * Optional: the summaries of several spans of one compaction (the same `context`, spans in order,
   * not overlapping) in one model call, when one request can hold them all. Returns one result per
   * request, in the same order (the shared call's usage on the first), or undefined, before any
   * call, when no single request can: the caller then asks span by span. Throws
   * {@link SummarizerError} as `summarize` does.
   */
  summarizeSpans?(requests: readonly SummaryRequest[]): Promise<SummaryResult[] | undefined>;
  /**
   * Optional: model calls {@link summarize} would need for `request` without its call limit, and that
   * limit (`request.maxCalls`), without making any. Absent, or undefined, for summarizers that make
   * no model call.
   */
  callsNeeded?(request: SummaryRequest): { needed: number; limit: number } | undefined;
}

/** Any failure of a summarizer; `kind` names the fault for the user. */
export class SummarizerError extends Error {
  constructor(
    message: string,
    readonly kind:
      | 'http'
      | 'timeout'
      | 'aborted'
      | 'empty'
      | 'truncated'
      | 'tool-call'
      | 'refusal'
      | 'invalid'
      | 'no-shrink'
      | 'overflow',
    options?: { cause?: unknown; status?: number },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SummarizerError';
    if (options?.status !== undefined) this.status = options.status;
  }

  /** The HTTP status of an `http` failure, when the server answered with one. */
  readonly status?: number;
}
