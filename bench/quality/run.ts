/**
 * Runs the product on the shared transcripts the way a user does: `compact` through the command-line
 * tool itself (dist/cli.js, default settings, `--out` for the resulting context), and `replay`
 * through the CLI's replay loop with the CLI's defaults, then measures each result.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSession } from '../../src/cli/load';
import { replay } from '../../src/replay/replay';
import { summarizerFor } from '../../src/cli/commands';
import { thresholds } from '../../src/compaction/plan/budget';
import { measure, recordingOf, type QualityFigures, type Recording } from './measure';
import type { PlainMessage } from './text';
import { resolveTyped, type TypedTranscript } from './typed';

/** Context sizes beside the figures, in prompt tokens. */
export interface Sizes {
  window: number;
  /** Prompt tokens before the compaction (compact) or without any compaction at the end (replay). */
  tokensBefore: number;
  /** Prompt tokens of the measured context. */
  tokensAfter: number;
  /** The compaction target (compactTo of the budget). */
  target: number;
  /** The budget (window minus reserve). */
  inputBudget: number;
  /** tokensAfter ≤ target (compact); every compaction ended at or below the target (replay). */
  insideTarget: boolean;
}

/** One measured run. */
export interface QualityRun extends Sizes {
  transcript: string;
  mode: 'compact' | 'replay';
  /** What the tool said when nothing was applied or the result does not fit. */
  outcome: string;
  compactions: number;
  /** Highest tokens right after a compaction (replay), for the target check. */
  maxAfterCompaction?: number;
  /**
   * Set when the part no compaction may summarise (system prompt, tool schemas, latest request,
   * newest steps) alone exceeded the target: the quality targets do not apply to such a run, which is
   * reported apart with its figures. Says the tokens against the target.
   */
  exempt?: string;
  figures: QualityFigures;
  seconds: number;
}

/** A transcript loaded once for all its runs. */
export interface Loaded {
  file: string;
  name: string;
  recording: Recording;
  /** Prompt tokens of the whole recording with every message. */
  tokens: number;
}

/** Loads `file` and reads its reviewed typed messages back (throws when the locators are stale). */
export async function loadTranscript(file: string, name: string, t: TypedTranscript): Promise<Loaded> {
  const s = await loadSession(file);
  const entries = s.entries as ReadonlyArray<{ id: string; message: PlainMessage }>;
  const tokens = s.meter.measure(
    s.entries.map((e) => ({ id: e.id, kind: 'raw' as const, message: e.message, covers: [e.id] })),
    s.transcript.tools,
  ).total;
  return { file, name, recording: recordingOf(entries, resolveTyped(t, entries)), tokens };
}

/** Entry indexes of the ids a compaction replaced (summary ids of earlier compactions are skipped). */
function indexesOf(r: Recording, ids: Iterable<string>): Set<number> {
  const at = new Map(r.entries.map((e, i) => [e.id, i]));
  const out = new Set<number>();
  for (const id of ids) {
    const i = at.get(id);
    if (i !== undefined) out.add(i);
  }
  return out;
}

interface CompactJson {
  applied: boolean;
  status?: { anchored?: { total: number } };
  outcome: string;
  fits: boolean;
  inputBudget: number;
  reason?: string;
  tokensBefore: number;
  tokensAfter: number;
  target: number;
  checkpoints: Array<{ replacedIds: string[] }>;
}

/** `context-keeper compact FILE --window W --json --out TMP`, as a user runs it, then measured. */
export function compactRun(cli: string, t: Loaded, window: number): QualityRun {
  const t0 = Date.now();
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ck-quality-')), 'out.json');
  try {
    const p = spawnSync(
      process.execPath,
      [cli, 'compact', t.file, '--window', String(window), '--json', '--out', out],
      { encoding: 'utf8', maxBuffer: 1 << 28 },
    );
    if (p.status !== 0 && p.status !== 1)
      throw new Error(`compact ${t.name} --window ${window} exited with ${p.status}: ${p.stderr.trim()}`);
    const j = JSON.parse(p.stdout) as CompactJson;
    const doc = fs.existsSync(out)
      ? (JSON.parse(fs.readFileSync(out, 'utf8')) as {
          messages: PlainMessage[];
          checkpoints: Array<{ trigger: string; replacedIds: string[] }>;
        })
      : undefined;
    const context = doc?.messages ?? [];
    const replaced = indexesOf(
      t.recording,
      j.checkpoints.flatMap((c) => c.replacedIds),
    );
    // Messages the recording's own compaction had already replaced were not in the context this
    // compaction read (it read the recorded summary instead): their identifiers are not counted.
    const before = indexesOf(
      t.recording,
      (doc?.checkpoints ?? []).filter((c) => c.trigger === 'import').flatMap((c) => c.replacedIds),
    );
    const anchored = j.status?.anchored?.total;
    return {
      transcript: t.name,
      mode: 'compact',
      window,
      tokensBefore: j.tokensBefore,
      tokensAfter: j.tokensAfter,
      target: j.target,
      inputBudget: j.inputBudget,
      insideTarget: j.tokensAfter <= j.target,
      outcome: j.applied ? (j.fits ? 'applied' : 'applied, does not fit') : `not applied: ${j.reason}`,
      compactions: j.applied ? 1 : 0,
      ...(anchored !== undefined && anchored > j.target
        ? { exempt: `never-summarised part ${anchored} > target ${j.target} tokens` }
        : {}),
      figures: measure(t.recording, replaced, context, new Set([...replaced].filter((i) => !before.has(i)))),
      seconds: (Date.now() - t0) / 1000,
    };
  } finally {
    fs.rmSync(path.dirname(out), { recursive: true, force: true });
  }
}

/** The CLI's defaults for `compact` and `replay` (src/cli.ts): compact at 0.8, to 0.5, one kept step, no reserve. */
export const CLI_DEFAULTS = { at: 0.8, to: 0.5, keepSteps: 1 };

/**
 * A replay at `window` with the CLI's defaults through the CLI's own replay loop (src/replay), the
 * final context (after the recording's last message) measured against every typed message.
 */
export async function replayRun(t: Loaded, window: number): Promise<QualityRun> {
  const t0 = Date.now();
  const s = await loadSession(t.file);
  const budget = { contextWindow: window, reservedOutput: 0, compactAt: CLI_DEFAULTS.at, compactTo: CLI_DEFAULTS.to };
  const th = thresholds(budget);
  const summarizer = summarizerFor({ window, ...CLI_DEFAULTS, summarizer: 'extractive' }, s);
  let items: ReadonlyArray<{ message: unknown }> = [];
  let maxAfter = 0;
  let exempt: string | undefined;
  const report = await replay(s.entries, s.meter, summarizer, {
    budget,
    keepRecentSteps: CLI_DEFAULTS.keepSteps,
    tools: s.transcript.tools,
    // The loop appends the remaining recorded messages to the array it last passed here.
    onCall: (_c, current) => (items = current),
    onCompaction: (_cps, _before, after, anchored) => {
      maxAfter = Math.max(maxAfter, after);
      if (anchored !== undefined && anchored > th.targetTokens && after > th.targetTokens)
        exempt ??= `never-summarised part ${anchored} > target ${th.targetTokens} tokens at a compaction`;
    },
  });
  const replaced = indexesOf(
    t.recording,
    report.checkpoints.flatMap((c) => c.replacedIds),
  );
  return {
    transcript: t.name,
    mode: 'replay',
    window,
    tokensBefore: t.tokens,
    tokensAfter: report.finalTokens,
    target: th.targetTokens,
    inputBudget: th.inputBudget,
    insideTarget: report.compactions > 0 && maxAfter <= th.targetTokens,
    maxAfterCompaction: maxAfter,
    outcome: `${report.compactions} compactions${report.failedCompactions ? `, ${report.failedCompactions} failed` : ''}, peak ${report.peakTokens}${report.peakTokens > th.inputBudget ? ' (over the budget)' : ''}`,
    compactions: report.compactions,
    ...(exempt ? { exempt } : {}),
    figures: measure(
      t.recording,
      replaced,
      items.map((i) => i.message as PlainMessage),
    ),
    seconds: (Date.now() - t0) / 1000,
  };
}

/** Builds dist/cli.js (the product's bundle) so the runs use the current sources. */
export function buildCli(root: string): string {
  execFileSync(process.execPath, [path.join(root, 'esbuild.mjs')], { cwd: root, stdio: 'inherit' });
  return path.join(root, 'dist/cli.js');
}
