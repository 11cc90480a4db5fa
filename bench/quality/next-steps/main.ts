/**
 * Prints and stores a next-steps run: one table per window (all points, then the agent's own
 * compaction points), the targets, and the JSON results file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { benchNextSteps, type NextStepsResult } from './index';
import { END_POINT, nextStepsDetailsPath, nextStepsResultsPath, NEXT_WINDOWS } from './evaluate';
import { windowTable } from './report';

/** The printed report of a run (Markdown). */
export function nextStepsText(r: NextStepsResult): string {
  if (r.skipped) return `Next-steps evaluation skipped: ${r.skipped}`;
  const out: string[] = [];
  for (const w of NEXT_WINDOWS) {
    const n = r.points.filter((p) => p.window === w && p.replaced > 0 && p.point !== END_POINT).length;
    out.push(`\n### ${w / 1000}k window (${n} points)\n`);
    out.push(windowTable(r.pooled, w, 'all') || '(no point reaches this window)');
    const agent = windowTable(r.pooled, w, 'agent');
    if (agent) out.push(`\nAt the agent's own compaction points only:\n\n${agent}`);
    const end = windowTable(r.pooled, w, 'end');
    if (end)
      out.push(
        `\nAt the end of the recording (where \`compact FILE\` runs; no call follows, so no needed tokens; not in the targets):\n\n${end}`,
      );
  }
  out.push('\nTargets:\n');
  for (const t of r.targets) out.push(`- ${t.met ? 'met' : 'MISSED'}: ${t.name}: ${t.value}`);
  return out.join('\n');
}

const rel = (f: string) => path.relative(process.cwd(), f) || f;

/** Runs, prints and writes the results; returns them. */
export async function runNextSteps(root: string): Promise<NextStepsResult> {
  const t0 = Date.now();
  const log = (line: string) => process.stderr.write(`[${Math.round((Date.now() - t0) / 1000)}s] ${line}\n`);
  const r = await benchNextSteps(root, log);
  const file = nextStepsResultsPath(root);
  const details = nextStepsDetailsPath(root);
  if (!r.skipped) {
    // The committed figures hold no text of the recordings (they may not be copied into the project);
    // what was missed and the false-open lines, which quote them, go to a file under out/.
    const figures = {
      ...r,
      points: r.points.map((p) => ({
        ...p,
        methods: p.methods.map((m) => {
          const { falseOpenLines: _lines, missed: _missed, ...scores } = m.scores;
          return { ...m, scores };
        }),
      })),
    };
    fs.writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
    fs.mkdirSync(path.dirname(details), { recursive: true });
    fs.writeFileSync(details, `${JSON.stringify(r.points, null, 2)}\n`);
  }
  console.log(nextStepsText(r));
  if (!r.skipped)
    console.log(`\nWrote ${rel(file)} (figures) and ${rel(details)} (what was missed, quoting the recordings).`);
  return r;
}
