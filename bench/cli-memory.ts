/**
 * Peak memory of the command-line tool on a large recording of real text, in both shapes of an
 * OpenAI chat recording: a bare JSON array of messages and the `{model, messages}` object. Runs
 * `node dist/cli.js compact FILE --window 128000 --json` and `node dist/cli.js replay FILE --window
 * 128000 --json` in child processes, one at a time, and prints the peaks side by side (maximum
 * resident set size from `/usr/bin/time -v`, else the child's own `process.resourceUsage().maxRSS`).
 *
 * Usage: `node bench/build.mjs && node out/bench/cli-memory.js [--messages=300000] [--only=compact|replay]
 * [--write=DIR]` (`--write` only writes the two recordings into DIR, for profiling, and runs nothing).
 * Text: bench/real-text.ts (recorded sessions and real source files). Target: ≤ 600 MB each.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadRealText, realisticRecording, TextCutter } from './real-text';
import type { ChatMessage } from '../src/compaction/types';

/** Peak memory target, in MB. */
export const CLI_PEAK_TARGET_MB = 600;

/** One measured run. */
export interface CliPeak {
  command: 'compact' | 'replay';
  shape: 'array' | 'object';
  peakMB: number;
  seconds: number;
  tokens: number | undefined;
}

/** Every run of {@link benchCliPeaks} on one recording. */
export interface CliPeaks {
  messages: number;
  rows: CliPeak[];
  /** Size of the recording in each shape, MB. */
  fileMB: Record<'array' | 'object', number>;
  /** Where the text came from. */
  source: string;
}

/** Writes `messages` as a JSON array (or a `{model, messages}` object), one message a line, without one big string. */
function writeRecording(file: string, messages: readonly ChatMessage[], shape: 'array' | 'object'): number {
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, shape === 'array' ? '[\n' : '{"model":"gpt-4o","messages":[\n');
    let batch: string[] = [];
    for (let i = 0; i < messages.length; i++) {
      batch.push(JSON.stringify(messages[i]) + (i < messages.length - 1 ? ',\n' : '\n'));
      if (batch.length === 1000) {
        writeSync(fd, batch.join(''));
        batch = [];
      }
    }
    writeSync(fd, batch.join('') + (shape === 'array' ? ']\n' : ']}\n'));
  } finally {
    closeSync(fd);
  }
  return statSync(file).size;
}

/** Runs the CLI on `file` and returns its peak RSS (MB) and its JSON report. */
function runCli(cli: string, command: string, file: string): { peakMB: number; seconds: number; stdout: string } {
  const args = [cli, command, file, '--window', '128000', '--json'];
  const started = Date.now();
  if (existsSync('/usr/bin/time')) {
    const r = spawnSync('/usr/bin/time', ['-v', process.execPath, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
    const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
    if (!m || r.status === null) throw new Error(`${command} failed: ${r.stderr.slice(-600)}`);
    return { peakMB: Number(m[1]) / 1024, seconds: (Date.now() - started) / 1000, stdout: r.stdout };
  }
  const r = spawnSync(
    process.execPath,
    [
      '-e',
      `process.on('exit',()=>process.stderr.write('\\nPEAK '+process.resourceUsage().maxRSS+'\\n'));process.argv.splice(1,0,${JSON.stringify(cli)});require(${JSON.stringify(cli)})`,
      ...args.slice(1),
    ],
    { encoding: 'utf8', maxBuffer: 1 << 28 },
  );
  return {
    peakMB: Number(/PEAK (\d+)/.exec(r.stderr)?.[1] ?? NaN) / 1024,
    seconds: (Date.now() - started) / 1000,
    stdout: r.stdout,
  };
}

/** Tokens before, from a report of either command (`compact`: tokensBefore; `replay`: the largest prompt). */
function tokensOf(stdout: string): number | undefined {
  try {
    const report = JSON.parse(stdout) as {
      tokensBefore?: number;
      unmanagedTokens?: number;
      finalTokensUnmanaged?: number;
    };
    return report.tokensBefore ?? report.finalTokensUnmanaged ?? report.unmanagedTokens;
  } catch {
    return undefined;
  }
}

/** Measures every command on both shapes of one generated recording of `messages` messages. */
export async function benchCliPeaks(
  root: string,
  messages: number,
  commands: ReadonlyArray<'compact' | 'replay'> = ['compact', 'replay'],
): Promise<CliPeaks> {
  const text = await loadRealText(root);
  const recording = realisticRecording(messages, new TextCutter(text, 29));
  const cli = path.join(root, 'dist/cli.js');
  if (!existsSync(cli)) execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'ignore' });
  const dir = mkdtempSync(path.join(tmpdir(), 'ck-bench-cli-peak-'));
  try {
    const files = { array: path.join(dir, 'array.json'), object: path.join(dir, 'object.json') };
    const fileMB = {
      array: writeRecording(files.array, recording, 'array') / 1e6,
      object: writeRecording(files.object, recording, 'object') / 1e6,
    };
    recording.length = 0;
    const rows: CliPeak[] = [];
    for (const command of commands)
      for (const shape of ['array', 'object'] as const) {
        const r = runCli(cli, command, files[shape]);
        rows.push({
          command,
          shape,
          peakMB: Math.round(r.peakMB),
          seconds: Math.round(r.seconds),
          tokens: tokensOf(r.stdout),
        });
      }
    return { messages, rows, fileMB, source: text.source };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const messages = Number(arg('messages') ?? 300_000);
  const only = arg('only');
  const commands = only ? [only as 'compact' | 'replay'] : (['compact', 'replay'] as const);
  const root = path.resolve(__dirname, '../..');
  const writeTo = arg('write');
  if (writeTo) {
    const recording = realisticRecording(messages, new TextCutter(await loadRealText(root), 29));
    for (const shape of ['array', 'object'] as const)
      console.log(writeRecording(path.join(writeTo, `${shape}.json`), recording, shape), `bytes: ${shape}.json`);
    return;
  }
  const { rows, fileMB, source } = await benchCliPeaks(root, messages, commands);
  console.log(`CLI peak memory, ${messages.toLocaleString('en')} messages of real text (${source})`);
  console.log(
    `files: array ${fileMB.array.toFixed(1)} MB, {model, messages} ${fileMB.object.toFixed(1)} MB; --window 128000 --json`,
  );
  console.log('');
  console.log(`| command | bare array | {model, messages} | target |`);
  console.log(`| --- | --- | --- | --- |`);
  for (const command of commands) {
    const a = rows.find((r) => r.command === command && r.shape === 'array')!;
    const o = rows.find((r) => r.command === command && r.shape === 'object')!;
    const met = (r: CliPeak) => (r.peakMB <= CLI_PEAK_TARGET_MB ? 'met' : 'MISSED');
    console.log(
      `| ${command} | ${a.peakMB} MB (${a.seconds} s) | ${o.peakMB} MB (${o.seconds} s) | ≤ ${CLI_PEAK_TARGET_MB} MB: ${met(a)}, ${met(o)} |`,
    );
  }
  if (rows.some((r) => r.tokens !== undefined))
    console.log(`\ntokens in the recording: ${rows.find((r) => r.tokens)?.tokens?.toLocaleString('en')}`);
}

// Bundled into main.js too, where `require.main === module` also holds: run alone only as its own file.
if (require.main === module && path.basename(process.argv[1] ?? '') === 'cli-memory.js')
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
