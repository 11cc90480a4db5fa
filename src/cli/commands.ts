/**
 * The command-line tool's commands: `meter`, `compact`, `replay`. Each prints a human report or
 * JSON and returns nothing; errors propagate to the entry point, which prints one line and exits 2.
 */
import fs from 'node:fs';
import path from 'node:path';
import type {
  BudgetConfig,
  ChatMessage,
  Checkpoint,
  CompactionOptions,
  ContextItem,
  Summarizer,
} from '../compaction/types';
import { parsesAsJson } from '../format/json';
import type { CompactionResult } from '../compaction/outcome';
import { sequentialIds, toMessages } from '../compaction/context';
import { maskMessage } from '../compaction/masked-messages';
import { maskSecretValues, spanSecretValues } from '../compaction/secret-values';
import { describeCoverage, unreadByModel } from '../compaction/summary/coverage';
import { scorecardLeftOut, scorecardLine } from '../compaction/retention/scorecard';
import { compact } from '../compaction/rewrite/compactor';
import { keepMessageMemos } from '../compaction/message-memo';
import { describeAnchored, describeCompaction, describeSmallSpans } from '../compaction/outcome-text';
import { holdersOf, type CompactionStatus } from '../compaction/outcome';
import { thresholds } from '../compaction/plan/budget';
import { checkContext, describeViolation, type Violation } from '../compaction/plan/invariants';
import { describeFixedOverBudget, describeHolders, tokenHolders } from '../compaction/plan/holders';
import { summarizerFromFlags } from '../summarizers/from-options';
import { replay } from '../replay/replay';
import { loadSession, type LoadedSession } from './load';
import { gauge, GAUGE_LEGEND } from './format';
import { formatTokens, formatTokensFull as full, plural } from '../format/tokens';
import { writeJsonLines } from './json-lines';
import { encodingWarning } from './encoding';
import { latestReportedPrompt, RECORDING_COUNT_BASIS, recordedK, recordedReason } from '../transcripts/reported';
import { replyStartTokens } from '../compaction/meter/meter';

/** Options shared by `compact` and `replay`. */
export interface BudgetOptions {
  window: number;
  at: number;
  to: number;
  reserve?: number;
  keepSteps: number;
  /** Share of the compaction target for typed requests (`--user-budget`). */
  userBudget?: number;
  /** Share of the compaction target for notes and ledger (`--summary-budget`). */
  summaryBudget?: number;
  summarizer: string;
  baseUrl?: string;
  summaryModel?: string;
  summaryWindow?: number;
  maxSummaryCalls?: number;
  /** `--extractive-fallback`: a failed model summary is written without a model instead. */
  extractiveFallback?: boolean;
  model?: string;
  json?: boolean;
}

type Out = (line: string) => void;

/** Notes beside the result (what import repaired): standard error, so standard output holds only the result. */
const toStderr: Out = (line) => process.stderr.write(`${line}\n`);

function budgetOf(o: BudgetOptions): BudgetConfig {
  return { contextWindow: o.window, reservedOutput: o.reserve ?? 0, compactAt: o.at, compactTo: o.to };
}

/** Builds the summarizer named by `--summarizer`. Throws Error for an unknown name or a missing key. */
export function summarizerFor(o: BudgetOptions, session: LoadedSession): Summarizer {
  return summarizerFromFlags(
    {
      summarizer: o.summarizer,
      baseUrl: o.baseUrl,
      summaryModel: o.summaryModel,
      summaryWindow: o.summaryWindow,
      lineAdditive: session.meter.lineAdditive,
      extractiveFallback: o.extractiveFallback,
    },
    (t) => session.meter.countText(t),
  );
}

/**
 * The warning for a model whose tokenizer encoding is not known (see {@link encodingWarning}):
 * `flagModel` is `--model`, else the name is the recording's. Null when the encoding is known.
 */
function sessionEncodingWarning(s: LoadedSession, flagModel: string | undefined): string | null {
  return encodingWarning(s.model, s.meter.encoding, flagModel !== undefined ? 'flag' : 'recording');
}

/** `meter FILE`: format, messages, tool calls and tokens by category. `note` gets the encoding warning and what import repaired (standard error), as `compact` and `replay` do. */
export async function meterCommand(
  file: string,
  o: { model?: string; json?: boolean },
  out: Out,
  note: Out = toStderr,
): Promise<void> {
  const s = await loadSession(file, o.model);
  const encodingNote = sessionEncodingWarning(s, o.model);
  const m = s.meter.measure(s.items, s.transcript.tools);
  const rawTotal = s.meter.measure(s.rawItems, s.transcript.tools).total;
  const report = {
    file,
    format: s.transcript.format,
    model: s.model,
    encoding: s.meter.encoding,
    // The sentence printed as a warning when the model's own encoding is not known, else null.
    encodingWarning: encodingNote,
    messages: s.entries.length,
    activeMessages: s.items.length,
    toolCalls: s.transcript.stats.toolCalls,
    toolResults: s.transcript.stats.toolResults,
    images: s.transcript.stats.images,
    tokens: m.total,
    tokensAllMessages: rawTotal,
    byCategory: m.breakdown,
    importedCompactions: s.importCheckpoints.length,
    // Of those, the summaries ContextKeeper wrote (a file `compact --out` or `replay --out` wrote).
    contextKeeperSummaries: s.importCheckpoints.filter(writtenByContextKeeper).length,
    // The provider's figure for the newest recorded request (as `watch` reports it), or null.
    reportedTokens: latestReportedPrompt(s.transcript.entries)?.tokens ?? null,
    skipped: s.transcript.skipped,
    warnings: s.warnings,
  };
  if (o.json) {
    if (encodingNote) note(`warning: ${encodingNote}`);
    return out(JSON.stringify(report, null, 2));
  }
  printWarnings(s, encodingNote, note);
  out(
    `${path.basename(file)}: ${report.format}, ${s.transcript.model || o.model ? `model ${report.model}` : `model not recorded (counting as ${report.model})`}, encoding ${report.encoding}`,
  );
  out(
    `messages ${report.messages} (${report.activeMessages} in the active context), tool calls ${report.toolCalls}, tool results ${report.toolResults}, images ${report.images}`,
  );
  out(
    `prompt tokens ${m.total}${s.importCheckpoints.length ? ` after ${importedCompactionsText(s.importCheckpoints)}; ${rawTotal} with every message` : ''}`,
  );
  if (report.reportedTokens !== null) out(recordedByProvider(report.reportedTokens, m.total));
  for (const [k, v] of Object.entries(m.breakdown)) out(`  ${k.padEnd(12)} ${String(v).padStart(9)}`);
  out(
    `  ${'reply start'.padEnd(12)} ${String(replyStartTokens(m)).padStart(9)}  (tokens that prime the reply, once per request)`,
  );
  const skipped = Object.entries(s.transcript.skipped);
  if (skipped.length) out(`skipped records: ${skipped.map(([k, v]) => `${k} ${v}`).join(', ')}`);
}

/**
 * The provider's reported prompt tokens of the recording's newest request, as one line beside the
 * meter's own count `counted`, saying why they differ (see `recordedReason`): above the count, the
 * request held what the recording does not (system prompt, tool schemas, hidden reasoning); well
 * below it, the agent had condensed or cut its own context.
 */
export function recordedByProvider(tokens: number, counted: number): string {
  return `recorded by the provider: ${recordedK(tokens)} prompt tokens (${tokens}) for the newest request, ${recordedReason(tokens, counted)}; the count above is ${RECORDING_COUNT_BASIS}`;
}

/** What holds the anchored tokens of an applied compaction, or the kinds of message when not measured. */
function anchoredText(status: CompactionStatus): string {
  return status.kind === 'applied' && status.anchored
    ? `${describeAnchored(status.anchored)} tokens`
    : 'system prompt, tool schemas, latest request, newest steps';
}

function checkpointJson(c: Checkpoint) {
  return {
    id: c.id,
    trigger: c.trigger,
    strategy: c.strategy,
    replacedIds: c.replacedIds,
    tokensBefore: c.tokensBefore,
    tokensAfter: c.tokensAfter,
    summary: c.summary,
    ...(c.coverage
      ? { coverage: { ...c.coverage, withoutModel: unreadByModel(c.coverage), text: describeCoverage(c.coverage) } }
      : {}),
    ...(c.summarizerModel ? { summarizerModel: c.summarizerModel } : {}),
    ...(c.usage ? { usage: c.usage } : {}),
    ...(c.retention ? { retention: { ...c.retention, text: scorecardLine(c.retention) } } : {}),
  };
}

/**
 * The compaction `compact` runs on a loaded session: the options' budget and summarizer, trigger
 * `manual`, forced (it applies even when the result stays above `--at`). Exported so the quality
 * benchmark measures exactly this path on any prefix of a recording.
 * @throws Error for an unknown summarizer name or a missing key (see {@link summarizerFor})
 */
export async function compactSession(s: LoadedSession, o: BudgetOptions): Promise<CompactionResult> {
  // One compaction per process: per-message facts kept for a next one would only raise the peak.
  keepMessageMemos(false);
  return compact({
    items: s.items,
    tools: s.transcript.tools,
    meter: s.meter,
    summarizer: summarizerFor(o, s),
    options: {
      budget: budgetOf(o),
      trigger: 'manual',
      force: true,
      keepRecentSteps: o.keepSteps,
      maxSummaryCalls: o.maxSummaryCalls,
      userBudget: o.userBudget,
      summaryBudget: o.summaryBudget,
      knownSecretValues: spanSecretValues(s.rawItems),
      ...cliOutput(s),
    },
  });
}

/**
 * What the command-line tool's summaries and checkpoints say where they are read: the positions of
 * the replaced messages in the recording read (its checkpoints live only in the output, where
 * nothing can open them later: `recall` on the recording reads those positions), and ids counted
 * from `ck-00000001`, so the same input gives the same output.
 */
function cliOutput(s: LoadedSession): Pick<CompactionOptions, 'recallPointer' | 'newCheckpointId'> {
  return { recallPointer: { recording: path.basename(s.transcript.file) }, newCheckpointId: sequentialIds() };
}

/**
 * True for an import checkpoint whose summary ContextKeeper wrote (read back from a file `compact
 * --out` or `replay --out` wrote, `rewrite/imported.ts`), not the recording agent's own compaction.
 */
function writtenByContextKeeper(cp: Checkpoint): boolean {
  return cp.summarizerModel === 'ContextKeeper';
}

/**
 * The compactions recorded in a file, named by who wrote them: "the recording's 2 own compactions",
 * "2 summaries written by ContextKeeper (an earlier compaction's output)", or both.
 */
export function importedCompactionsText(checkpoints: readonly Checkpoint[]): string {
  const ours = checkpoints.filter(writtenByContextKeeper).length;
  const agents = checkpoints.length - ours;
  const parts: string[] = [];
  if (agents) parts.push(`the recording's ${agents} own compaction${agents === 1 ? '' : 's'}`);
  if (ours)
    parts.push(
      `${ours} ${ours === 1 ? 'summary' : 'summaries'} written by ContextKeeper (an earlier compaction's output, read back)`,
    );
  return parts.join(' and ');
}

/**
 * `compact FILE --window N`: a compaction on request of the conversation as it stands at the end of
 * FILE, with an automatic compaction's plan (collapse first, stop at `--to`). Its checkpoints are
 * labelled `manual`: run whatever the level, it applies even when the result stays above `--at`,
 * where an automatic compaction refuses (see `prepareCompaction`).
 */
export async function compactCommand(
  file: string,
  o: BudgetOptions & { out?: string },
  out: Out,
  note: Out = toStderr,
): Promise<void> {
  if (o.out !== undefined) checkOutPath(o.out);
  if (o.out && sameFile(o.out, file))
    throw new Error(`--out ${o.out} is the input file; the recording is never overwritten`);
  const s = await loadSession(file, o.model);
  // Nothing to compact is a usage error with or without --out (a script must not read "nothing changed" as success).
  if (!s.entries.some((e) => e.message.role !== 'system' && e.message.role !== 'developer')) {
    throw new Error(
      `${file}: the conversation holds no user or assistant message; nothing to compact${o.out ? ` and nothing sendable to write to ${o.out}` : ''}`,
    );
  }
  const th = thresholds(budgetOf(o));
  const result = await compactSession(s, o);
  const { status, context: items } = result;
  const holders = () =>
    holdersOf(status) ?? tokenHolders(items, s.meter, s.transcript.tools, o.keepSteps, th.inputBudget);
  const violations = checkContext(items, s.entries, { keepRecentSteps: o.keepSteps, rawItems: s.rawItems });
  // A failed compaction writes nothing: a script that checks for the file must not get the input back.
  // The document is built only to be written: without --out its copy of every message is not needed.
  if (o.out && status.kind !== 'summarizer-failed')
    writeContext(
      o.out,
      contextDocument(s, o.window, result.tokensBefore, result.tokensAfter, items, [
        ...s.importCheckpoints,
        ...result.checkpoints,
      ]),
      note,
    );
  const fits = result.tokensAfter <= th.inputBudget;
  if (status.kind === 'summarizer-failed' || !fits) process.exitCode = 1;
  failOnViolations(violations, note);
  const encodingNote = sessionEncodingWarning(s, o.model);
  if (o.json) {
    if (encodingNote) note(`warning: ${encodingNote}`);
    // Written in pieces: the report lists every replaced message id (megabytes for a long recording).
    writeJsonLines(
      {
        applied: status.kind === 'applied',
        status,
        fits,
        inputBudget: th.inputBudget,
        ...(fits ? {} : { holders: holders() }),
        reason: describeCompaction(status),
        tokensBefore: result.tokensBefore,
        tokensAfter: result.tokensAfter,
        target: th.targetTokens,
        checkpoints: result.checkpoints.map(checkpointJson),
        importedCompactions: s.importCheckpoints.length,
        violations,
        out: o.out,
        ...modelFields(s, encodingNote),
      },
      out,
    );
    return;
  }
  out(
    `${path.basename(file)}: ${s.transcript.format}, ${plural(s.entries.length, 'message', 'messages')}, window ${formatTokens(o.window)} (target ${formatTokens(th.targetTokens)})`,
  );
  out(
    status.kind === 'applied'
      ? `compacted: ${full(result.tokensBefore)} → ${full(result.tokensAfter)} tokens`
      : `nothing changed: ${describeCompaction(status)}`,
  );
  for (const c of result.checkpoints) printCheckpoint(c, out);
  const small = status.kind === 'applied' || status.kind === 'does-not-fit' ? status.smallSpans : undefined;
  if (small && status.kind === 'applied') out(`  ${describeSmallSpans(small)}`);
  if (s.importCheckpoints.length)
    out(`  (${s.importCheckpoints.length} compaction(s) recorded in the file became import checkpoints)`);
  printWarnings(s, encodingNote, note);
  if (!fits)
    out(
      `does not fit: ${full(result.tokensAfter)} tokens remain against a budget of ${full(th.inputBudget)}${status.kind === 'summarizer-failed' ? '' : `; ${describeHolders(holders(), th.inputBudget)}`}`,
    );
  else if (status.kind === 'applied' && result.tokensAfter > th.targetTokens)
    out(
      `note: ${full(result.tokensAfter)} tokens is above the target of ${full(th.targetTokens)}; what remains is anchored (${anchoredText(status)})`,
    );
  if (violations.length) out(`invariant violations: ${violations.length}; first: ${violations[0].message}`);
  if (o.out && status.kind !== 'summarizer-failed') out(`wrote ${o.out}`);
}

/**
 * A broken invariant means the context is not one the agent may be sent: a script must see it, as
 * `replay` exits with 1 on one. Sets exit code 1 and says on `note` (standard error) which invariant
 * broke and on which message; nothing when `violations` is empty.
 */
export function failOnViolations(violations: readonly Violation[], note: Out): void {
  if (violations.length === 0) return;
  process.exitCode = 1;
  const more = violations.length - 1;
  note(
    `error: the compacted context breaks ${describeViolation(violations[0])}${more ? ` (and ${plural(more, 'more violation', 'more violations')})` : ''}`,
  );
}

/** One checkpoint of `compact`'s printed result: its figures, then its scorecard and what it left out by name. */
function printCheckpoint(c: Checkpoint, out: Out): void {
  out(
    `  checkpoint ${c.id} ${c.strategy} (${c.trigger}): ${plural(c.replacedIds.length, 'message', 'messages')}, ${full(c.tokensBefore)} → ${full(c.tokensAfter)} tokens${c.coverage ? `; ${describeCoverage(c.coverage)}` : ''}${c.usage?.calls ? `; ${c.usage.calls} model call${c.usage.calls === 1 ? '' : 's'}` : ''}`,
  );
  // A line with nothing to say is not printed: an empty indented line reads as a missing scorecard.
  if (c.retention)
    for (const l of [scorecardLine(c.retention), ...scorecardLeftOut(c.retention)]) if (l.trim()) out(`    ${l}`);
}

/**
 * The JSON written by `compact --out` and `replay --out`: the context an agent would be sent, with
 * every secret value the masking recognises masked in the messages kept as they were (summaries are
 * masked when written). The file may be shared; the recording it was made from keeps the originals
 * and is never overwritten, so nothing is lost. `tokensAfter` is counted on the messages written,
 * so `meter` on the file gives the same figure.
 */
function contextDocument(
  s: LoadedSession,
  window: number,
  tokensBefore: number,
  tokensAfter: number,
  items: readonly ContextItem[],
  checkpoints: readonly Checkpoint[],
) {
  const values = spanSecretValues(s.rawItems);
  let changed = false;
  const written = items.map((it) => {
    const message = maskMessage(it.message, values);
    if (message === it.message) return it;
    changed = true;
    return { ...it, message };
  });
  return {
    format: s.transcript.format,
    model: s.model,
    window,
    tokensBefore,
    tokensAfter: changed ? s.meter.measure(written, s.transcript.tools).total : tokensAfter,
    messages: toMessages(written),
    // The tool schemas go with the messages: they are sent with every request and counted in `tokensAfter`.
    ...(s.transcript.tools.length > 0 ? { tools: s.transcript.tools } : {}),
    // A checkpoint's summary is part of the file too: masked by the same values as the messages.
    checkpoints: checkpoints.map((c) => checkpointJson({ ...c, summary: maskSecretValues(c.summary, values) })),
    rawCount: s.entries.length,
  };
}

/** `replay FILE --window N`: plays the recording as if the agent were running. */
export async function replayCommand(
  file: string,
  o: BudgetOptions & { out?: string },
  out: Out,
  note: Out = toStderr,
): Promise<void> {
  if (o.out && sameFile(o.out, file))
    throw new Error(`--out ${o.out} is the input file; the recording is never overwritten`);
  // Each compaction of a replay reads what the previous one left (a summary and the newer messages):
  // per-message facts kept for messages already summarised would only raise the peak.
  keepMessageMemos(false);
  const s = await loadSession(file, o.model);
  const budget = budgetOf(o);
  const th = thresholds(budget);
  const summarizer = summarizerFor(o, s);
  if (!o.json) {
    out(
      `${path.basename(file)}: ${s.transcript.format}, ${plural(s.entries.length, 'message', 'messages')}, window ${formatTokens(o.window)} less ${full(budget.reservedOutput)} tokens reserved for the reply (--reserve), compact at ${Math.round(o.at * 100)}% → ${Math.round(o.to * 100)}% of the ${formatTokens(th.inputBudget)} left, summarizer ${summarizer.name}`,
    );
    out(GAUGE_LEGEND);
  }
  const report = await replay(s.entries, s.meter, summarizer, {
    budget,
    keepRecentSteps: o.keepSteps,
    maxSummaryCalls: o.maxSummaryCalls,
    userBudget: o.userBudget,
    summaryBudget: o.summaryBudget,
    tools: s.transcript.tools,
    keepCheckpointItems: false,
    // Only the file --out writes lists the checkpoints: without it, none is kept.
    keepCheckpoints: o.out !== undefined,
    ...cliOutput(s),
    onFixedOverBudget: o.json
      ? undefined
      : (f) =>
          out(
            `warning: from call ${f.call} on, ${describeFixedOverBudget(f.tokens, f.inputBudget, f.contextWindow, f.reservedOutput)}`,
          ),
    onCall: o.json
      ? undefined
      : (c) =>
          out(
            `call ${String(c.index).padStart(4)} ${gauge(c.tokens, th.base, o.at, o.to)}${c.compacted ? '  (after compaction)' : ''}`,
          ),
    onCompaction: o.json
      ? undefined
      : (cps, before, after) =>
          out(
            `  compaction: ${full(before)} → ${full(after)} tokens (${cps.map((c) => `${c.strategy} of ${plural(c.replacedIds.length, 'message', 'messages')}`).join(', ')})`,
          ),
  });
  const saved = report.promptTokensUnmanaged - report.promptTokens;
  // What stands at the end counts as much as the peak: a recording ending on a request leaves a
  // call pending, and the context after it must fit as every sent request must.
  const peakFits = report.peakTokens <= th.inputBudget;
  const endFits = report.finalTokens <= th.inputBudget;
  const fits = peakFits && endFits;
  const finalHolders = endFits
    ? undefined
    : tokenHolders(report.finalContext, s.meter, s.transcript.tools, o.keepSteps, th.inputBudget);
  const summary = {
    file,
    format: s.transcript.format,
    window: o.window,
    modelCalls: report.modelCalls,
    compactions: report.compactions,
    failedCompactions: report.failedCompactions,
    summarizerCalls: report.summarizerCalls,
    peakTokens: report.peakTokens,
    largestCompactedTokens: report.largestCompactedTokens,
    promptTokens: report.promptTokens,
    promptTokensWithoutCompaction: report.promptTokensUnmanaged,
    promptTokensSaved: saved,
    finalTokens: report.finalTokens,
    finalCompacted: report.endCompacted,
    invariantViolations: report.violations.length,
    fits,
    ...(report.peakHolders ? { peakHolders: report.peakHolders } : {}),
    ...(report.fixedOverBudget ? { fixedOverBudget: report.fixedOverBudget } : {}),
    ...(finalHolders ? { finalHolders } : {}),
    errors: report.errors,
    compactionWarnings: report.warnings,
    notices: report.notices,
  };
  if (report.violations.length || report.failedCompactions || !fits) process.exitCode = 1;
  const encodingNote = sessionEncodingWarning(s, o.model);
  if (o.out)
    writeContext(
      o.out,
      contextDocument(
        s,
        o.window,
        report.finalTokensUnmanaged,
        report.finalTokens,
        report.finalContext,
        report.checkpoints,
      ),
      note,
    );
  if (o.json) {
    if (encodingNote) note(`warning: ${encodingNote}`);
    return out(JSON.stringify({ ...summary, out: o.out, ...modelFields(s, encodingNote) }, null, 2));
  }
  out(
    `model calls ${report.modelCalls}, compactions ${report.compactions}${report.failedCompactions ? ` (${report.failedCompactions} failed)` : ''}, ${summarizerCallsText(summarizer, report.summarizerCalls)}`,
  );
  out(
    `peak ${full(report.peakTokens)} tokens over the model calls${report.largestCompactedTokens > report.peakTokens ? ` (sent; compaction ran first on contexts of up to ${full(report.largestCompactedTokens)})` : ''}; ${full(report.finalTokens)} tokens at the end of the recording (${report.endCompacted ? 'its last message is a request: compacted before that pending call' : 'after its last message'})`,
  );
  out(
    `prompt tokens over all calls: ${full(report.promptTokens)} with compaction, ${full(report.promptTokensUnmanaged)} without (${report.promptTokensUnmanaged ? Math.round((saved / report.promptTokensUnmanaged) * 100) : 0}% saved)`,
  );
  if (!peakFits)
    out(
      `does not fit: the peak of ${full(report.peakTokens)} tokens is over the budget of ${full(th.inputBudget)}${report.peakHolders ? `; at that call ${describeHolders(report.peakHolders, report.fixedOverBudget ? undefined : th.inputBudget)}` : ''}${report.fixedOverBudget ? ' (the system prompt and tool schemas alone are over it: see the warning above)' : ''}`,
    );
  out(
    `invariant violations: ${report.violations.length}${report.violations.length ? `; first: ${report.violations[0].message}` : ''}`,
  );
  printWarnings(s, encodingNote, note);
  if (finalHolders)
    out(
      `does not fit: the context at the end of the recording${report.endCompacted ? ', compacted before the request it ends on,' : ''} holds ${full(report.finalTokens)} tokens, over the budget of ${full(th.inputBudget)}; ${describeHolders(finalHolders, report.fixedOverBudget ? undefined : th.inputBudget)}`,
    );
  for (const w of report.warnings.slice(0, 5)) out(`warning: ${w}`);
  if (report.warnings.length > 5) out(`warning: … ${report.warnings.length - 5} more (compactionWarnings in --json)`);
  for (const e of report.errors.slice(0, 5)) out(`error: ${e}`);
  for (const n of report.notices) out(`note: ${n}`);
  if (o.out) out(`wrote ${o.out} (the context after the whole replay)`);
}

/**
 * `--out` must name a regular file or a path that does not exist yet: a named pipe, a device, a
 * symbolic link or a folder is refused (writing through a rename would replace it with a file).
 * @throws Error naming the path and what it is
 */
export function checkOutPath(out: string): void {
  if (out.trim() === '') throw new Error('--out needs a file path (it was empty)');
  let st: fs.Stats;
  try {
    st = fs.lstatSync(out);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new Error(`--out ${out}: ${(err as Error).message}`);
  }
  if (st.isFile()) return;
  const what = st.isSymbolicLink()
    ? 'a symbolic link'
    : st.isDirectory()
      ? 'a folder'
      : st.isFIFO()
        ? 'a named pipe'
        : st.isCharacterDevice() || st.isBlockDevice()
          ? 'a device'
          : st.isSocket()
            ? 'a socket'
            : 'not a regular file';
  throw new Error(`--out ${out} is ${what}; give a regular file or a new path`);
}

function sameFile(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  return real(a) === real(b);
}

/**
 * The encoding warning, then what import repaired or cleaned, one line each (at most 10; `--json`
 * lists all), to `note` (standard error).
 */
function printWarnings(s: LoadedSession, encodingNote: string | null, out: Out): void {
  if (encodingNote) out(`warning: ${encodingNote}`);
  for (const w of s.warnings.slice(0, 10)) out(`repaired: ${w}`);
  if (s.warnings.length > 10) out(`… ${s.warnings.length - 10} more (--json lists all)`);
}

/**
 * Fields of `compact --json` and `replay --json` beside the figures: the model and encoding that
 * counted, the encoding warning (null when the encoding is known) and every repair import made
 * (the `repaired:` lines of the text output; tool pairing, reused ids, interruptions, cleaned fields).
 */
function modelFields(s: LoadedSession, encodingNote: string | null) {
  return { model: s.model, encoding: s.meter.encoding, encodingWarning: encodingNote, warnings: s.warnings };
}

/**
 * Writes the `--out` document `doc`, then says on `note` (standard error) which of its tool calls
 * keep arguments that are not valid JSON, by their place in the file: they are written as the
 * recording has them (the model's own text; its recorded result answers that text), and a server
 * that parses arguments may refuse them.
 */
function writeContext(file: string, doc: { messages: readonly ChatMessage[] }, note: Out): void {
  writeJsonAtomically(file, doc);
  const unparsed = unparsedArguments(doc.messages);
  if (unparsed.length === 0) return;
  const more = unparsed.length > 5 ? `; and ${unparsed.length - 5} more` : '';
  note(
    `note: ${file} keeps ${plural(unparsed.length, 'tool call', 'tool calls')} whose arguments are not valid JSON, as the recording has them: ${unparsed.slice(0, 5).join('; ')}${more}`,
  );
}

/** The tool calls of `messages` whose arguments are not valid JSON, by place: `messages[4].tool_calls[0] (bash)`. */
function unparsedArguments(messages: readonly ChatMessage[]): string[] {
  const out: string[] = [];
  messages.forEach((m, i) => {
    if (m.role !== 'assistant') return;
    (m.tool_calls ?? []).forEach((c, k) => {
      if (c.type !== 'function') return;
      const args = c.function.arguments;
      // Empty arguments are what some servers record for a call without parameters: not a fault.
      if (args.trim() !== '' && !parsesAsJson(args)) out.push(`messages[${i}].tool_calls[${k}] (${c.function.name})`);
    });
  });
  return out;
}

/** Writes JSON through a temporary file and a rename, so a reader never sees half a file. */
function writeJsonAtomically(file: string, value: unknown): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, JSON.stringify(value, null, 2) + '\n');
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw new Error(
      `cannot write ${file}: ${(err as NodeJS.ErrnoException).code === 'EISDIR' ? 'it is a directory' : (err as Error).message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, '')}`,
    );
  }
}

/**
 * What the replay's summaries cost, in words: the model calls of a model summarizer ("summarizer
 * calls 3 (qwen2.5-coder)"), or for the extractive one, which calls no model, how many summaries it
 * wrote and that no model was called. `calls` counts one per summarized span for the extractive one.
 */
export function summarizerCallsText(summarizer: Pick<Summarizer, 'name'>, calls: number): string {
  return summarizer.name === 'extractive'
    ? `${plural(calls, 'summary', 'summaries')} written by the extractive summarizer (0 model calls)`
    : `summarizer calls ${calls} (${summarizer.name})`;
}
