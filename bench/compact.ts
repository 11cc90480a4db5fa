/**
 * `compact()` on a conversation of real text (bench/real-text.ts `realisticRecording`: pieces of the
 * recorded sessions in `../shared/transcripts` and of real source files, about 75 tokens a message:
 * 100k messages hold about 7.5M tokens) at a 128k window: an automatic compaction with the
 * extractive summarizer, as the service and the CLI run it (the meter's counts taken beforehand, as
 * the service has them; one summarizer for every run, as the service keeps one). A small word list
 * would give the identifier scans, the notes and the tokenizer almost nothing to find.
 *
 * Three figures per size, CPU time of the calling thread (Linux `/proc/thread-self/schedstat`; where
 * that is missing, CPU time of the whole process): the time `compact()` holds its caller, which is
 * what the editor feels. On a shared machine wall time mostly measures the neighbours. The process's
 * CPU time (user + system) is reported beside it: it adds V8's helper threads, chiefly the
 * optimizing compiler, which after each full garbage collection compiles again the loops a
 * compaction runs once (measured: 200-300 ms of helper-thread CPU per 100k-message compaction), and
 * the parallel garbage collector. Wall time is reported too.
 * - grown span (held against the 500 ms target): the previous compaction ran on the same
 *   conversation {@link GROWTH} messages shorter, as in the product, where each compaction covers a
 *   span that grew since the last one (or since the summary prepared ahead, or a preview); the
 *   median of `reps` runs, each on a span {@link GROWTH} messages longer than the one before, the
 *   last at the size itself;
 * - first sight: messages never read before (each message's actions, identifiers and typed request
 *   are read once and kept per message object; the first compaction of a session imported whole);
 * - same span again: the previous compaction ran on exactly these messages (a repeated preview).
 *
 * Also the command-line tool's peak memory on a generated 300k-message recording, in a child
 * process (`/usr/bin/time -v`, else the child's own `resourceUsage().maxRSS`).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadRealText, realisticRecording, TextCutter, type RealText } from './real-text';
import { TokenMeter } from '../src/compaction/meter/meter';
import { itemsFromEntries } from '../src/compaction/context';
import { compact } from '../src/compaction/rewrite/compactor';
import { ExtractiveSummarizer } from '../src/compaction/summary/extractive';
import { growthExponent, median, nowMs, sig, threadCpuMs } from './stats';
import { rng } from '../test/support/generate';
import type { ChatMessage, ContextItem } from '../src/compaction/types';
import { describeCompaction } from '../src/compaction/outcome-text';

/** Messages a span grows by between two compactions in the grown-span figure. */
export const GROWTH = 1000;

/** One size; times in milliseconds of CPU. */
export interface CompactRow {
  messages: number;
  tokens: number;
  /** The figure held against the target: the previous compaction ran on {@link GROWTH} fewer messages. */
  grownMs: number;
  /** Whether the times are the calling thread's (else the whole process's). */
  thread: boolean;
  /** The grown-span runs' CPU time of the whole process (helper threads included), median. */
  grownProcessMs: number;
  /** The grown-span runs' wall time, median. */
  grownWallMs: number;
  firstSightMs: number;
  /** The previous compaction ran on exactly these messages. */
  againMs: number;
  tokensAfter: number;
}

export interface CompactBench {
  rows: CompactRow[];
  /** Where the text came from. */
  text: string;
  /** Growth exponent of `grownMs`, `againMs` and `firstSightMs` between the sizes (1 linear). */
  grownExponent: number;
  againExponent: number;
  firstSightExponent: number;
}

function processCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

const BUDGET = { contextWindow: 128_000, compactAt: 0.8, compactTo: 0.5, reservedOutput: 4096 };

/**
 * The conversation of `n` messages of real text as context items, counted by `meter` (new message
 * objects each call, the same text for the same `n`).
 */
function conversation(text: RealText, n: number, meter: TokenMeter) {
  const entries = realisticRecording(n, new TextCutter(text, 5)).map((message, i) => ({ id: `r5-${i}`, message }));
  const items = itemsFromEntries(entries);
  return { items, tokens: meter.measure(items).total };
}

/**
 * Runs `compact()` at each size (messages) on real text read from `root` (the repository): first
 * sight, then `reps` grown spans and `reps` runs of the same span again (medians).
 */
export async function benchCompact(
  root: string,
  sizes: readonly number[],
  reps: number,
  log: (line: string) => void,
): Promise<CompactBench> {
  const text = await loadRealText(root);
  log(`compact: ${text.source}`);
  const rows: CompactRow[] = [];
  for (const n of sizes) {
    const meter = new TokenMeter({ model: 'gpt-4o' });
    const summarizer = new ExtractiveSummarizer((t) => meter.countText(t), { lineAdditive: meter.lineAdditive });
    const run = async (items: readonly ContextItem[]) => {
      global.gc?.();
      const thread0 = threadCpuMs();
      const process0 = processCpuMs();
      const wall0 = nowMs();
      const r = await compact({ items, meter, summarizer, options: { budget: BUDGET, trigger: 'auto' } });
      const wall = nowMs() - wall0;
      const processMs = processCpuMs() - process0;
      const thread1 = threadCpuMs();
      if (r.status.kind !== 'applied') throw new Error(`bench compaction not applied: ${describeCompaction(r.status)}`);
      const threadMs = thread0 !== undefined && thread1 !== undefined ? thread1 - thread0 : undefined;
      return { ms: threadMs ?? processMs, thread: threadMs !== undefined, processMs, wall, after: r.tokensAfter };
    };
    // First sight on one copy of the conversation; the grown spans on another (new message
    // objects: nothing read at first sight helps them), its first compaction untimed.
    const { items: unread, tokens } = conversation(text, n, meter);
    const first = await run(unread);
    const { items } = conversation(text, n, meter);
    await run(items.slice(0, n - GROWTH * reps));
    const grown: Array<Awaited<ReturnType<typeof run>>> = [];
    for (let k = reps - 1; k >= 0; k--) grown.push(await run(k === 0 ? items : items.slice(0, n - GROWTH * k)));
    const again: number[] = [];
    for (let k = 0; k < reps; k++) again.push((await run(items)).ms);
    const row: CompactRow = {
      messages: n,
      tokens,
      grownMs: Math.round(median(grown.map((g) => g.ms))),
      thread: first.thread,
      grownProcessMs: Math.round(median(grown.map((g) => g.processMs))),
      grownWallMs: Math.round(median(grown.map((g) => g.wall))),
      firstSightMs: Math.round(first.ms),
      againMs: Math.round(median(again)),
      tokensAfter: first.after,
    };
    rows.push(row);
    const clock = row.thread ? 'calling thread' : 'process';
    log(
      `compact ${n} messages (CPU of the ${clock}): grown span ${row.grownMs} ms (runs ${grown.map((g) => Math.round(g.ms)).join(', ')}; process CPU ${grown.map((g) => Math.round(g.processMs)).join(', ')}; wall ${grown.map((g) => Math.round(g.wall)).join(', ')}), first sight ${row.firstSightMs} ms, same span again ${row.againMs} ms`,
    );
  }
  const a = rows[0];
  const b = rows[rows.length - 1];
  const exp = (f: (r: CompactRow) => number) => sig(growthExponent(a.messages, f(a), b.messages, f(b)));
  return {
    rows,
    text: text.source,
    grownExponent: exp((r) => r.grownMs),
    againExponent: exp((r) => r.againMs),
    firstSightExponent: exp((r) => r.firstSightMs),
  };
}

/** Peak memory of one CLI run. */
export interface CliMemory {
  messages: number;
  fileMB: number;
  /** Tokens of the recording as `meter` counts them. */
  tokens: number;
  command: string;
  peakMB: number;
  /** How the peak was read. */
  source: string;
  seconds: number;
}

const WORDS =
  'the build test file src/app.ts error fixed function returns value config npm run lint passes module import path parser token meter window'.split(
    ' ',
  );

/**
 * A recording of `n` messages of about 57 tokens each (300k messages: about 17M tokens, 70 MB of
 * JSON): user requests, agent steps with one tool call, tool results of 10-70 words.
 */
export function cliRecording(n: number, seed = 17): ChatMessage[] {
  const r = rng(seed);
  const words = (k: number) => Array.from({ length: k }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ');
  const msgs: ChatMessage[] = [{ role: 'system', content: `You are a coding agent. ${words(60)}` }];
  let call = 0;
  while (msgs.length < n) {
    msgs.push({ role: 'user', content: `${words(20)}. Keep the public API.` });
    const steps = 2 + Math.floor(r() * 30);
    for (let s = 0; s < steps && msgs.length < n - 2; s++) {
      const id = `call_${call++}`;
      msgs.push({
        role: 'assistant',
        content: r() < 0.5 ? null : words(12),
        tool_calls: [
          {
            id,
            type: 'function',
            function: {
              name: r() < 0.5 ? 'read_file' : 'run_command',
              arguments: JSON.stringify({ path: `src/f${call}.ts` }),
            },
          },
        ],
      });
      msgs.push({ role: 'tool', tool_call_id: id, content: words(10 + Math.floor(r() * 60)) });
    }
    msgs.push({ role: 'assistant', content: words(30) });
  }
  return msgs.slice(0, n);
}

/**
 * Writes the generated recording of `messages` messages ({@link cliRecording}, JSON) and runs
 * `node dist/cli.js compact FILE --window 128000 --json` on it in a child process.
 */
export function benchCliMemory(root: string, messages: number): CliMemory {
  const dir = mkdtempSync(path.join(tmpdir(), 'ck-bench-cli-'));
  try {
    const file = path.join(dir, 'session.json');
    const msgs = cliRecording(messages);
    const text = JSON.stringify(msgs);
    writeFileSync(file, text);
    const cli = path.join(root, 'dist/cli.js');
    if (!existsSync(cli)) execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'ignore' });
    const args = [cli, 'compact', file, '--window', '128000', '--json'];
    const started = Date.now();
    let peakMB: number;
    let source: string;
    let stdout: string;
    if (existsSync('/usr/bin/time')) {
      const r = spawnSync('/usr/bin/time', ['-v', process.execPath, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
      const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
      if (!m) throw new Error(`no peak in /usr/bin/time output: ${r.stderr.slice(-300)}`);
      peakMB = Number(m[1]) / 1024;
      source = '/usr/bin/time -v (maximum resident set size)';
      stdout = r.stdout;
    } else {
      // The child reports its own peak (kilobytes) on exit.
      const r = spawnSync(
        process.execPath,
        [
          '-e',
          `process.on('exit',()=>process.stderr.write('\\nPEAK '+process.resourceUsage().maxRSS+'\\n'));process.argv.splice(1,0,${JSON.stringify(cli)});require(${JSON.stringify(cli)})`,
          ...args.slice(1),
        ],
        { encoding: 'utf8', maxBuffer: 1 << 28 },
      );
      peakMB = Number(/PEAK (\d+)/.exec(r.stderr)?.[1] ?? NaN) / 1024;
      source = 'process.resourceUsage().maxRSS of the child';
      stdout = r.stdout;
    }
    const report = JSON.parse(stdout) as { tokensBefore: number };
    return {
      messages,
      fileMB: sig(Buffer.byteLength(text) / 1e6),
      tokens: report.tokensBefore,
      command: `node dist/cli.js compact <${messages / 1000}k messages> --window 128000 --json`,
      peakMB: Math.round(peakMB),
      source,
      seconds: Math.round((Date.now() - started) / 1000),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
