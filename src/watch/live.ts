/**
 * The live view of another agent's session file (Claude Code or Codex JSONL) as it grows. Only the
 * lines since the agent's last compaction are kept in memory and re-read on an update, because that is
 * all the agent still sends: an update costs work proportional to the agent's current context, not
 * to the size of the file. Pure apart from the tokenizer; the file reading is {@link FileTail}'s job.
 */
import type { ChatMessage, Checkpoint, ContextItem, TokenBreakdown } from '../compaction/types';
import { TokenMeter } from '../compaction/meter/meter';
import type { TokenCounter } from '../tokenizer/tokenizer';
import { itemsFromEntries } from '../compaction/context';
import { repairToolPairing } from '../compaction/plan/repair';
import { applyRecordedCompactions } from '../compaction/rewrite/imported';
import { resolveContextWindow } from '../compaction/plan/budget';
import { importTranscriptTextSync } from '../transcripts';
import type { ImportedTranscript } from '../transcripts/types';
import { latestReportedPrompt } from '../transcripts/reported';
import { agentCompactionThreshold, type AgentThreshold } from './thresholds';
import type { WatchedFormat } from './formats';
import { renderContext } from './handoff';
import { parseJsonObject } from '../format/json';
import { SYNTHETIC_MODEL } from '../transcripts/formats/claude-code';

/** A compaction the watched agent made, as seen so far. */
export interface WatchedCompaction {
  /** 1-based line of the file where the agent's compaction record starts. */
  line: number;
  /** The agent's summary text ('' until its summary record has arrived). */
  summary: string;
  /** Prompt tokens (meter count) of the context just before this compaction, when it was seen live. */
  tokensBefore?: number;
  /** Prompt tokens (meter count) of the context right after it (summary plus what followed at once). */
  tokensAfter?: number;
  /** Messages of the context it replaced, when measured. */
  replacedMessages?: number;
  /** The replaced context rendered as Markdown (capped), when measured: the left side of its diff. */
  replacedText?: string;
  /**
   * The agent's own prompt-token figure before the compaction: Claude Code's
   * `compactMetadata.preTokens`; for Codex (whose `compacted` record holds no figures) the prompt
   * tokens of its last `token_count` before the record. Undefined when the file records none.
   */
  recordedBefore?: number;
  /**
   * The agent's own figure after it: Claude Code's `compactMetadata.postTokens` (newer versions); for
   * Codex the prompt tokens of the first `token_count` after the record (its next request, so the
   * summary plus what that request added). Undefined until recorded.
   */
  recordedAfter?: number;
  /** What started it, as the agent records it (Claude Code's `compactMetadata.trigger`). */
  trigger?: 'auto' | 'manual';
}

/**
 * The token figures of a compaction as the row shows them: the agent's recorded figures when the
 * file holds them (they measure what the agent sent, system prompt and tools included), else the
 * meter's counts; `source` says which. Undefined figures were not seen.
 */
export function compactionFigures(c: WatchedCompaction): {
  before?: number;
  after?: number;
  source: 'recorded' | 'counted';
} {
  if (c.recordedBefore !== undefined) return { before: c.recordedBefore, after: c.recordedAfter, source: 'recorded' };
  return { before: c.tokensBefore, after: c.tokensAfter, source: 'counted' };
}

/** Compactions per read batch that are measured and rendered (see {@link LiveSession.append}). */
const DETAILED_COMPACTIONS = 3;
/** Characters counted per turn of the event loop by {@link LiveSession.gaugeAsync}. */
const COUNT_SLICE_CHARS = 50_000;
/** Characters kept of a replaced context's rendering. */
const MAX_REPLACED_CHARS = 200_000;

/** What the gauge shows for a watched session. All token figures are prompt tokens. */
export interface WatchedGauge {
  format: WatchedFormat;
  /** The model named by the recording, or undefined when none is recorded yet. */
  model?: string;
  /** Meter count of what the agent sends now: its context since its last compaction. */
  tokens: number;
  breakdown: TokenBreakdown;
  /**
   * The provider's reported prompt tokens of the newest response that recorded usage (exact; records
   * whose usage is all zero, which agents write for their own notes, are not usage). Right after the
   * agent compacted and before its next response, the agent's own figure after the compaction.
   */
  reportedTokens?: number;
  /** Where `reportedTokens` comes from: a response's usage, or the compaction's recorded figure. */
  reportedFrom?: 'response' | 'compaction';
  /**
   * What the agent's next request holds, as well as the file tells: the reported prompt tokens plus
   * the counted messages written since that response (`basis: 'exact+new'`), or the count alone
   * (`basis: 'counted'`) when no usage is recorded. The count alone misses what the file does not
   * record (the agent's system prompt and tool schemas), so the reported figure is preferred.
   */
  usedTokens: number;
  basis: 'exact+new' | 'counted';
  /** Context window in tokens: recorded by the agent, else from the model table. */
  window: number;
  windowSource: 'recording' | 'table';
  /** Where the agent itself compacts, when known (tokens), with where that figure comes from. */
  agentCompactsAt?: AgentThreshold;
  /** Compactions the agent made so far (its own checkpoints). */
  checkpoints: number;
  /** Messages in the current context. */
  messages: number;
  /** Complete lines read so far. */
  lines: number;
  /** Lines that were not valid JSON and were skipped. */
  badLines: number;
  /**
   * Bytes at the start of the file that were not read: a large file is followed from the agent's last
   * compaction (see `resume.ts`). `lines`, `checkpoints` and compaction line numbers then count from
   * the first line read. Absent when the file was read from its start.
   */
  skippedBytes?: number;
  /**
   * True while the token counts are estimates (4 characters a token) because the tokenizer's table
   * is still loading in the background (a watcher made with deferred counters); absent when exact.
   */
  estimated?: boolean;
}

/** Options of a {@link LiveSession}. */
export interface LiveSessionOptions {
  /**
   * The counter for a model id. Default: `tokenCounterForModel`, whose first count loads the table
   * synchronously (fine for a short-lived command-line process). In the extension host pass
   * `deferredCounterForModel`: estimates until the table is read in the background, never a block.
   */
  counter?: (model: string) => TokenCounter;
}

type Rec = Record<string, unknown>;

/**
 * Follows one session. Feed it complete lines with {@link append}; read the gauge with {@link gauge}.
 * A line that is not JSON is skipped and counted (an agent crash can leave one), never fatal.
 */
export class LiveSession {
  private head: string[] = [];
  private segment: string[] = [];
  private segmentStartLine = 1;
  private lineCount = 0;
  private bad = 0;
  private turnContext: string | undefined;
  /** The newest model named anywhere in the file: the records after a compaction may name none yet. */
  private lastModel: string | undefined;
  /** Codex records its window in token_count events; the latest one may lie before the segment. */
  private recordedWindow: number | undefined;
  /** Codex: prompt tokens of the newest non-zero token_count (the figure before a compaction). */
  private codexPrompt: number | undefined;
  /** Codex: total tokens of the previous token_count (an unchanged total repeats the last request). */
  private codexTotal: number | undefined;
  private readonly compactions: WatchedCompaction[] = [];
  private skippedBytes = 0;
  private cached:
    | { gauge: WatchedGauge; items: ContextItem[]; transcript: ImportedTranscript; checkpoints: Checkpoint[] }
    | undefined;
  /**
   * The current context imported, until lines arrive: shared by {@link gaugeAsync} and
   * {@link measure}. `applied` (the agent's compactions applied, which counts the context) is made on
   * first need and dropped when the counts turn exact.
   */
  private prepared:
    | {
        transcript: ImportedTranscript;
        model: string | undefined;
        meter: TokenMeter;
        items: ContextItem[];
        applied?: ReturnType<typeof applyRecordedCompactions>;
      }
    | undefined;
  private readonly meters = new Map<string, TokenMeter>();

  /**
   * @param file the session file (named in errors and entry sources)
   * @param format the agent's format; see {@link detectWatchedFormat}
   */
  constructor(
    readonly file: string,
    readonly format: WatchedFormat,
    private readonly options: LiveSessionOptions = {},
  ) {}

  /**
   * Settles when the counts of the newest gauge, now estimates, can be made exact (call
   * {@link gauge} again then); undefined when they are exact already.
   */
  exactCounts(): Promise<void> | undefined {
    const meter = this.cached ? this.meterFor(this.cached.gauge.model) : undefined;
    if (!meter || meter.exact) return undefined;
    return (meter.counter.ready ?? Promise.resolve()).then(() => {
      this.cached = undefined;
      // The import stands; what was counted with estimates is counted again.
      if (this.prepared) this.prepared.applied = undefined;
    });
  }

  /** Starts over (the file was replaced or truncated). */
  reset(): void {
    this.head = [];
    this.segment = [];
    this.segmentStartLine = 1;
    this.lineCount = 0;
    this.bad = 0;
    this.turnContext = undefined;
    this.recordedWindow = undefined;
    this.codexPrompt = undefined;
    this.codexTotal = undefined;
    this.lastModel = undefined;
    this.compactions.length = 0;
    this.skippedBytes = 0;
    this.cached = undefined;
    this.prepared = undefined;
  }

  /**
   * Starts over at a line other than the first: the first `skippedBytes` bytes of the file are not
   * read. `contextLines` are records from before that point that still describe the session (the
   * model, and Codex's session record, turn context and window); they set those and nothing else.
   */
  resume(skippedBytes: number, contextLines: readonly string[]): void {
    this.reset();
    this.skippedBytes = skippedBytes;
    for (const line of contextLines) {
      const rec = parseJsonObject(line);
      if (!rec) continue;
      const model = modelOf(rec, this.format);
      if (model) this.lastModel = model;
      if (this.format !== 'codex') continue;
      if (rec.type === 'session_meta') this.head = [line];
      if (rec.type === 'turn_context') this.turnContext = line;
      const window = codexWindow(rec);
      if (window) this.recordedWindow = window;
      // The usage before the boundary read next is that compaction's figure before.
      this.noteCodexUsage(rec);
    }
  }

  /** Adds complete lines in file order. O(bytes of the lines) plus nothing else until the next read. */
  append(lines: readonly string[]): void {
    if (!lines.length) return;
    // Reading a long file from the start meets many old compactions: only the last few of a batch are
    // measured and rendered (each costs a read of its whole context), so catching up stays linear.
    let boundariesLeft = countBoundaryLines(lines, this.format);
    for (const line of lines) {
      this.lineCount++;
      const rec = parseJsonObject(line);
      if (!rec) {
        this.bad++;
        continue;
      }
      const model = modelOf(rec, this.format);
      if (model) this.lastModel = model;
      if (this.isBoundary(rec)) {
        const detailed = boundariesLeft-- <= DETAILED_COMPACTIONS && this.segment.length > 0;
        const before = detailed ? this.measure() : undefined;
        const seen: WatchedCompaction = { line: this.lineCount, summary: '', ...this.recordedFigures(rec) };
        if (before) {
          seen.tokensBefore = before.gauge.tokens;
          seen.replacedMessages = before.items.length;
          seen.replacedText = renderContext(before.items, 2_000).slice(0, MAX_REPLACED_CHARS);
        }
        this.compactions.push(seen);
        this.segment = [];
        this.segmentStartLine = this.lineCount;
        // The measure above is of the context just replaced: a later boundary of this batch measures its own.
        this.cached = undefined;
        this.prepared = undefined;
        if (this.format === 'codex' && this.turnContext)
          this.head = this.head.filter((l) => l !== this.turnContext).concat(this.turnContext);
      }
      if (this.format === 'codex') {
        if (rec.type === 'session_meta') {
          this.head = [line];
          continue;
        }
        if (rec.type === 'turn_context') this.turnContext = line;
        const window = codexWindow(rec);
        if (window) this.recordedWindow = window;
        this.noteCodexUsage(rec);
      }
      this.segment.push(line);
    }
    this.cached = undefined;
    this.prepared = undefined;
  }

  /** The gauge for everything appended so far (re-read only when lines arrived since the last call). */
  gauge(): WatchedGauge {
    return this.measure().gauge;
  }

  /**
   * {@link gauge} without one long block of counting: with an exact tokenizer, the current context's
   * messages are counted first, about {@link COUNT_SLICE_CHARS} characters per turn of the event loop
   * (the meter keeps each message's count), so the gauge then only adds them up. Importing the
   * context stays one step, proportional to its bytes.
   */
  async gaugeAsync(): Promise<WatchedGauge> {
    if (this.cached) return this.cached.gauge;
    const p = this.importCurrent();
    if (p.meter.exact) {
      let chars = 0;
      for (const item of p.items) {
        if (this.prepared !== p) break;
        chars += messageChars(item.message);
        p.meter.countMessage(item.message);
        if (chars >= COUNT_SLICE_CHARS) {
          chars = 0;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      }
    }
    return this.measure().gauge;
  }

  /** The agent's compactions seen so far, oldest first, with their summaries. */
  compactionsSeen(): WatchedCompaction[] {
    this.measure();
    return this.compactions.map((c) => ({ ...c }));
  }

  /** The current context as the agent sends it (after its last compaction), for a handoff. */
  context(): { items: ContextItem[]; transcript: ImportedTranscript; meter: TokenMeter } {
    const m = this.measure();
    return { items: m.items, transcript: m.transcript, meter: this.meterFor(m.gauge.model) };
  }

  /** The figures a boundary record carries (Claude Code) or the last usage before it (Codex). */
  private recordedFigures(rec: Rec): Pick<WatchedCompaction, 'recordedBefore' | 'recordedAfter' | 'trigger'> {
    if (this.format === 'codex') return this.codexPrompt !== undefined ? { recordedBefore: this.codexPrompt } : {};
    const meta = rec.compactMetadata as Rec | undefined;
    if (!meta || typeof meta !== 'object') return {};
    const out: Pick<WatchedCompaction, 'recordedBefore' | 'recordedAfter' | 'trigger'> = {};
    if (isCount(meta.preTokens)) out.recordedBefore = meta.preTokens;
    if (isCount(meta.postTokens)) out.recordedAfter = meta.postTokens;
    if (meta.trigger === 'auto' || meta.trigger === 'manual') out.trigger = meta.trigger;
    return out;
  }

  /** Codex: a new, non-zero request in a token_count event (the first after a compaction is its after figure). */
  private noteCodexUsage(rec: Rec): void {
    const info = codexUsage(rec);
    if (!info) return;
    const repeated = info.total === this.codexTotal;
    this.codexTotal = info.total;
    if (repeated || info.prompt <= 0) return;
    this.codexPrompt = info.prompt;
    const last = this.compactions[this.compactions.length - 1];
    if (last && last.recordedAfter === undefined && last.line >= this.segmentStartLine)
      last.recordedAfter = info.prompt;
  }

  private isBoundary(rec: Rec): boolean {
    if (this.format === 'claude-code') return rec.type === 'system' && rec.subtype === 'compact_boundary';
    return rec.type === 'compacted';
  }

  private meterFor(model: string | undefined): TokenMeter {
    const key = model ?? 'gpt-4o';
    let meter = this.meters.get(key);
    if (!meter) {
      meter = new TokenMeter({ model: key, counter: this.options.counter?.(key) });
      this.meters.set(key, meter);
    }
    return meter;
  }

  private importCurrent(): NonNullable<LiveSession['prepared']> {
    if (this.prepared) return this.prepared;
    const text = [...this.head, ...this.segment].join('\n') + '\n';
    const transcript =
      this.segment.length || this.head.length
        ? importSegment(text, this.file, this.format)
        : emptyTranscript(this.file, this.format);
    const repaired = repairToolPairing(transcript.entries, { closeTrailing: true });
    const model = transcript.model ?? this.lastModel;
    this.prepared = { transcript, model, meter: this.meterFor(model), items: itemsFromEntries(repaired.entries) };
    return this.prepared;
  }

  private prepare(): Required<NonNullable<LiveSession['prepared']>> {
    const p = this.importCurrent();
    p.applied ??= applyRecordedCompactions(p.items, p.transcript.compactions, p.meter, p.transcript.tools);
    return p as Required<typeof p>;
  }

  private measure(): NonNullable<LiveSession['cached']> {
    if (this.cached) return this.cached;
    const { transcript, model, meter, applied } = this.prepare();
    const m = meter.measure(applied.items, transcript.tools);
    const latest = latestReportedPrompt(transcript.entries);
    const reported = latest?.tokens;
    const reportedAt = latest?.index ?? -1;
    const recorded = transcript.contextWindow ?? this.recordedWindow;
    const window = recorded ?? resolveContextWindow(model);
    const last = this.compactions[this.compactions.length - 1];
    if (last && transcript.compactions.length) {
      last.summary = transcript.compactions[transcript.compactions.length - 1].summary;
      if (last.tokensAfter === undefined && last.summary) last.tokensAfter = m.total;
    }
    // The reported figure is the prompt of the request that produced entry `reportedAt`: that reply
    // and everything after it come on top.
    let used = m.total;
    if (reported !== undefined) {
      used = reported;
      for (let i = reportedAt; i < transcript.entries.length; i++)
        used += meter.countMessage(transcript.entries[i].message);
    }
    // Compacted, and no response since: the agent's own figure after the compaction (it holds the
    // summary, the kept messages, the system prompt and tools) plus what was written after the summary.
    const after = reported === undefined && this.compactions.length ? last?.recordedAfter : undefined;
    if (after !== undefined) {
      const summaryAt = transcript.entries.findIndex((e) => e.meta?.importedSummary);
      used = after;
      for (let i = summaryAt + 1; i < transcript.entries.length; i++)
        used += meter.countMessage(transcript.entries[i].message);
    }
    const gauge: WatchedGauge = {
      format: this.format,
      model,
      tokens: m.total,
      usedTokens: used,
      basis: reported !== undefined || after !== undefined ? 'exact+new' : 'counted',
      breakdown: m.breakdown,
      window,
      windowSource: recorded ? 'recording' : 'table',
      checkpoints: this.compactions.length,
      messages: applied.items.length,
      lines: this.lineCount,
      badLines: this.bad,
    };
    if (reported !== undefined) {
      gauge.reportedTokens = reported;
      gauge.reportedFrom = 'response';
    } else if (after !== undefined) {
      gauge.reportedTokens = after;
      gauge.reportedFrom = 'compaction';
    }
    if (this.skippedBytes) gauge.skippedBytes = this.skippedBytes;
    if (!meter.exact) gauge.estimated = true;
    const threshold = agentCompactionThreshold(this.format, window);
    if (threshold) gauge.agentCompactsAt = threshold;
    this.cached = { gauge, items: applied.items, transcript, checkpoints: applied.checkpoints };
    return this.cached;
  }

  /** 1-based file line where the current context's records start. */
  get currentSegmentLine(): number {
    return this.segmentStartLine;
  }
}

function importSegment(text: string, file: string, format: WatchedFormat): ImportedTranscript {
  return importTranscriptTextSync(text, file, { format });
}

function emptyTranscript(file: string, format: WatchedFormat): ImportedTranscript {
  return {
    format,
    file,
    entries: [],
    tools: [],
    skipped: {},
    compactions: [],
    stats: { messages: 0, toolCalls: 0, toolResults: 0, images: 0 },
    warnings: [],
  };
}

function modelOf(rec: Rec, format: WatchedFormat): string | undefined {
  if (format === 'claude-code') {
    const message = rec.type === 'assistant' ? (rec.message as Rec | undefined) : undefined;
    return typeof message?.model === 'string' && message.model !== SYNTHETIC_MODEL ? message.model : undefined;
  }
  const payload = rec.type === 'turn_context' ? (rec.payload as Rec | undefined) : undefined;
  return typeof payload?.model === 'string' ? payload.model : undefined;
}

function countBoundaryLines(lines: readonly string[], format: WatchedFormat): number {
  const marker = format === 'claude-code' ? '"compact_boundary"' : '"compacted"';
  let n = 0;
  for (const l of lines) if (l.includes(marker)) n++;
  return n;
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0;
}

/** A Codex token_count event's prompt tokens of its request and running total, when it has them. */
function codexUsage(rec: Rec): { prompt: number; total: number } | undefined {
  if (rec.type !== 'event_msg') return undefined;
  const payload = rec.payload as Rec | undefined;
  const info = payload?.type === 'token_count' ? (payload.info as Rec | undefined) : undefined;
  const prompt = (info?.last_token_usage as Rec | undefined)?.input_tokens;
  const total = (info?.total_token_usage as Rec | undefined)?.total_tokens;
  return isCount(prompt) && isCount(total) ? { prompt, total } : undefined;
}

function codexWindow(rec: Rec): number | undefined {
  if (rec.type !== 'event_msg') return undefined;
  const payload = rec.payload as Rec | undefined;
  const info = payload?.type === 'token_count' ? (payload.info as Rec | undefined) : undefined;
  return typeof info?.model_context_window === 'number' ? info.model_context_window : undefined;
}

/** About how many characters counting `message` reads: its text parts and tool-call arguments. */
function messageChars(message: ChatMessage): number {
  let n = 0;
  const content = message.content as unknown;
  if (typeof content === 'string') n += content.length;
  else if (Array.isArray(content))
    for (const part of content as { text?: unknown }[]) n += typeof part?.text === 'string' ? part.text.length : 1_000;
  const calls = (message as { tool_calls?: { function?: { arguments?: unknown } }[] }).tool_calls;
  if (Array.isArray(calls))
    for (const c of calls) n += typeof c?.function?.arguments === 'string' ? c.function.arguments.length : 0;
  return n;
}
