/**
 * Runs the next-steps evaluation over every shared recording and returns the points, the pooled
 * figures and the targets. Skips with a message when the shared transcripts are absent.
 */
import path from 'node:path';
import { transcriptFiles } from '../../corpus';
import { readTypedData, typedDataPath } from '../typed';
import { evaluateRecording, NEXT_WINDOWS, type PointResult } from './evaluate';
import { nextTargets, poolPoints, type NextTarget, type Pooled } from './report';

/** The JSON results of one run. */
export interface NextStepsResult {
  input: string;
  skipped?: string;
  windows: number[];
  /** Where each recording's typed messages came from (reviewed list or rule). */
  typedSources: Record<string, string>;
  points: PointResult[];
  pooled: Pooled[];
  targets: NextTarget[];
  seconds: number;
}

/** Runs the evaluation; `root` is the repository root. */
export async function benchNextSteps(root: string, log: (line: string) => void): Promise<NextStepsResult> {
  const started = Date.now();
  const { dir, files } = transcriptFiles();
  const base = { windows: NEXT_WINDOWS, typedSources: {}, points: [], pooled: [], targets: [] };
  if (!dir || files.length === 0) {
    const skipped =
      'no shared transcripts (../shared/transcripts or $CONTEXT_KEEPER_SHARED): the next-steps evaluation reads the recorded sessions';
    log(`next steps: skipped, ${skipped}`);
    return { ...base, input: 'none', skipped, seconds: 0 };
  }
  const data = readTypedData(typedDataPath(root));
  const points: PointResult[] = [];
  const typedSources: Record<string, string> = {};
  for (const f of files) {
    const name = path.relative(dir, f).split(path.sep).join('/');
    const r = await evaluateRecording(
      f,
      name,
      data.transcripts.find((t) => t.file === name),
      log,
    );
    points.push(...r.points);
    typedSources[name] = r.typedSource;
  }
  const pooled = poolPoints(points, NEXT_WINDOWS);
  return {
    ...base,
    input: `${files.length} recorded transcripts in ${dir}`,
    typedSources,
    points,
    pooled,
    targets: nextTargets(pooled),
    seconds: Math.round((Date.now() - started) / 1000),
  };
}
