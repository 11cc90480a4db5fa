/**
 * The extension as shipped: builds dist/extension.js (`npm run build`), times loading and
 * activating it in fresh processes with a stub of the `vscode` module (bench/activate.ts), checks
 * that activation builds no tokenizer rank table, and packages the VSIX (`npm run package`) to
 * report its size. The activation time is compared with loading one rank table in the same run.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { median, sig } from './stats';

/** Results of the extension benchmark. Times in milliseconds (medians over fresh processes). */
export interface ExtensionResult {
  requireMs: number;
  activateMs: number;
  /** Loading js-tiktoken's o200k_base rank table and building its encoder, in a fresh process. */
  encoderLoadMs: number;
  /** (require + activate) / encoder load. */
  activationToEncoderLoad: number;
  /** Heap and external memory added by require + activate, in bytes. */
  activationMemoryBytes: number;
  /** Map.set calls during require + activate, and during one encoder build (about 200,000 per table). */
  activationMapSets: number;
  encoderMapSets: number;
  rankTableLoadedAtActivation: boolean;
  subscriptions: number;
  vsixBytes: number | null;
  bundleBytes: number;
  reps: number;
}

function runChild(root: string, args: string[]): Record<string, number> {
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', path.join(root, 'out/bench/activate.js'), path.join(root, 'dist/extension.js'), ...args],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const line = out.trim().split('\n').pop() ?? '{}';
  return JSON.parse(line) as Record<string, number>;
}

/** Runs `npm run <script>` in `root`; its output is shown only when it fails. */
function npm(root: string, script: string): void {
  const cli = process.env.npm_execpath;
  // Under `npm run`, npm_execpath is npm's own CLI script; otherwise use npm from PATH.
  const [cmd, args] =
    cli && cli.endsWith('.js')
      ? [process.execPath, [cli, 'run', script, '--silent']]
      : [process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', script, '--silent']];
  try {
    execFileSync(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    process.stderr.write(`${err.stdout ?? ''}${err.stderr ?? ''}`);
    throw new Error(`npm run ${script} failed`);
  }
}

/** Runs the extension benchmark from the repository root `root`. `pack`: also build the VSIX. */
export function benchExtension(root: string, reps: number, pack: boolean): ExtensionResult {
  npm(root, 'build');
  const times: Array<Record<string, number>> = [];
  const encoder: number[] = [];
  // Interleaved: activation, then encoder load, in fresh processes.
  for (let r = 0; r < reps; r++) {
    times.push(runChild(root, []));
    encoder.push(runChild(root, ['--encoder']).encoderMs);
  }
  const activation = runChild(root, ['--count']);
  const encoderSets = runChild(root, ['--encoder', '--count']).mapSets;
  let vsixBytes: number | null = null;
  if (pack) {
    npm(root, 'package');
    const vsix = path.join(root, 'context-keeper.vsix');
    vsixBytes = fs.existsSync(vsix) ? fs.statSync(vsix).size : null;
  }
  const requireMs = median(times.map((t) => t.requireMs));
  const activateMs = median(times.map((t) => t.activateMs));
  const encoderLoadMs = median(encoder);
  return {
    requireMs: sig(requireMs),
    activateMs: sig(activateMs),
    encoderLoadMs: sig(encoderLoadMs),
    activationToEncoderLoad: sig(median(times.map((t) => t.totalMs)) / encoderLoadMs),
    activationMemoryBytes: Math.round(median(times.map((t) => t.heap))),
    activationMapSets: activation.mapSets,
    encoderMapSets: encoderSets,
    // An encoder build makes one Map.set per rank; activation making a tenth of that would mean a table.
    rankTableLoadedAtActivation: activation.mapSets >= encoderSets / 10,
    subscriptions: times[0]?.subscriptions ?? 0,
    vsixBytes,
    bundleBytes: fs.statSync(path.join(root, 'dist/extension.js')).size,
    reps,
  };
}
