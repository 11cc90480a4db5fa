/**
 * The summary-quality section of `npm run bench`: forced `compact` of every shared transcript at
 * 8k, 32k and 128k windows and a 32k `replay` of the three longest, each measured against the
 * reviewed list of typed messages. Skips with a message when the shared transcripts are absent.
 */
import path from 'node:path';
import { transcriptFiles } from '../corpus';
import { buildCli, compactRun, loadTranscript, replayRun, type Loaded, type QualityRun } from './run';
import { pool, qualityTargets, type QualityResult } from './report';
import { readTypedData, typedDataPath } from './typed';

/** Windows of the forced compactions, in tokens. */
export const WINDOWS = [8_000, 32_000, 128_000];
/** Window of the chained-compaction replays, in tokens. */
export const REPLAY_WINDOW = 32_000;
/** How many of the longest transcripts are replayed. */
export const REPLAYS = 3;

/** Runs the section. `root` is the repository root; `log` gets progress lines. */
export async function benchQuality(root: string, log: (line: string) => void): Promise<QualityResult> {
  const started = Date.now();
  const { dir, files } = transcriptFiles();
  const base = { windows: WINDOWS, replayWindow: REPLAY_WINDOW, runs: [], pooled: [], targets: [] };
  if (!dir || files.length === 0) {
    const skipped =
      'no shared transcripts (../shared/transcripts or $CONTEXT_KEEPER_SHARED): the quality figures need the recorded sessions and the reviewed typed-message list made from them';
    log(`quality: skipped, ${skipped}`);
    return { ...base, input: 'none', skipped, seconds: 0 };
  }
  const data = readTypedData(typedDataPath(root));
  const cli = buildCli(root);
  const loaded: Loaded[] = [];
  for (const f of files) {
    const name = path.relative(dir, f).split(path.sep).join('/');
    const t = data.transcripts.find((x) => x.file === name);
    if (!t)
      throw new Error(
        `${typedDataPath(root)}: no reviewed typed messages for ${name}; draft them with npm run bench:typed and review them`,
      );
    loaded.push(await loadTranscript(f, name, t));
  }
  const runs: QualityRun[] = [];
  for (const t of loaded) {
    for (const w of WINDOWS) {
      const r = compactRun(cli, t, w);
      runs.push(r);
      log(
        `quality: compact ${t.name} at ${w / 1000}k: ${r.tokensBefore} → ${r.tokensAfter} tokens (${r.seconds.toFixed(1)} s)`,
      );
    }
  }
  const longest = [...loaded].sort((a, b) => b.tokens - a.tokens).slice(0, REPLAYS);
  for (const t of longest) {
    const r = await replayRun(t, REPLAY_WINDOW);
    runs.push(r);
    log(
      `quality: replay ${t.name} at ${REPLAY_WINDOW / 1000}k: ${r.compactions} compactions (${r.seconds.toFixed(1)} s)`,
    );
  }
  const pooled = pool(runs, WINDOWS);
  return {
    ...base,
    input: `${files.length} recorded transcripts in ${dir}, ${data.transcripts.reduce((n, t) => n + t.records.filter((r) => r.typed).length, 0)} reviewed typed messages`,
    runs,
    pooled,
    targets: qualityTargets(runs, pooled, REPLAY_WINDOW),
    seconds: Math.round((Date.now() - started) / 1000),
  };
}
