/**
 * The first follow of a large Claude Code session, as the Agent Sessions view starts it. A 300 MB file
 * is built from the records of the recorded Claude Code sessions in ../shared/transcripts (re-chained
 * and renumbered, repeated, with a compaction every ~2.5 MB as the agent writes one near a 200k
 * window), then followed in a fresh process two ways:
 * - `follow`: {@link followFile} with deferred counters, as the extension host runs it (from the last
 *   compaction, read asynchronously in pieces), until the gauge's counts are exact;
 * - `whole`: the file read whole on the calling thread and its lines fed to the live view, the way a
 *   first follow read before (the figure the large-file follow replaces).
 * Each process reports the longest stall of its event loop (a 5 ms timer's longest lateness, and the
 * most CPU time spent between two of its ticks, which a loaded machine does not inflate), the time
 * to the first and the exact gauge, the bytes read, and its peak resident memory (`maxRSS`).
 *
 * Run by main.ts (`--only=largefollow`) as `node out/bench/large-follow.js <follow|whole> FILE`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { transcriptFiles } from './corpus';
import { SessionWatcher, followFile, type WatchUpdate } from '../src/watch/watcher';
import { FileTail } from '../src/watch/tail';
import { LiveSession } from '../src/watch/live';
import { deferredCounterForModel } from '../src/tokenizer/tokenizer';

/** One child's figures. Times in milliseconds, sizes in bytes (memory in MB). */
export interface LargeFollowRun {
  /** Longest lateness of a 5 ms timer (wall clock: includes time the machine gave other processes). */
  longestStallMs: number;
  /** Most CPU time the process spent between two ticks of that timer: the block without contention. */
  longestStallCpuMs: number;
  firstGaugeMs: number;
  exactGaugeMs: number;
  bytesRead: number;
  peakRssMb: number;
  usedTokens: number;
  messages: number;
  skippedBytes: number;
  error?: string;
}

/** The benchmark's result. */
export interface LargeFollowResult {
  fileBytes: number;
  /** Bytes from the last compaction to the end (what the agent still sends). */
  contextBytes: number;
  source: string;
  follow: LargeFollowRun;
  whole: LargeFollowRun;
}

type Rec = Record<string, unknown>;

/**
 * Writes a Claude Code session of about `bytes` bytes from recorded records. Every repetition gets
 * its own record, response and tool call ids, so records never merge or pair across repetitions.
 * @returns the offset of the last compaction and what the records came from
 */
export function writeRealisticSession(file: string, bytes: number): { lastBoundary: number; source: string } {
  const { files } = transcriptFiles();
  const recorded = files.filter((f) => f.includes(`${path.sep}claude-code${path.sep}`) && f.endsWith('.jsonl'));
  const records: Rec[] = recorded.length
    ? recorded.flatMap((f) =>
        fs
          .readFileSync(f, 'utf8')
          .split('\n')
          .filter((l) => l.trim())
          .map((l) => JSON.parse(l) as Rec),
      )
    : generatedRecords();
  const source = recorded.length
    ? `records of ${recorded.map((f) => path.basename(f)).join(', ')}`
    : 'generated records (no recorded Claude Code session found; set CONTEXT_KEEPER_SHARED)';
  const text = records.map((r) => JSON.stringify(r));
  const fd = fs.openSync(file, 'w');
  let written = 0;
  let since = 0;
  let lastBoundary = 0;
  let parent: string | null = null;
  let n = 0;
  try {
    for (let rep = 0; written < bytes; rep++) {
      const out: string[] = [];
      for (let i = 0; i < records.length; i++) {
        // Suffix every id of the repetition; the record's own text otherwise stays as recorded.
        const line = text[i].replace(/"(toolu_[A-Za-z0-9]+|msg_[A-Za-z0-9]+|call_[A-Za-z0-9]+)"/g, `"$1_${rep}"`);
        const rec = JSON.parse(line) as Rec;
        if ('uuid' in rec) {
          rec.uuid = `r${++n}`;
          rec.parentUuid = parent;
          parent = rec.uuid as string;
        }
        out.push(JSON.stringify(rec));
      }
      if (since > 2_500_000) {
        lastBoundary = written;
        const boundaryId = `b${++n}`;
        const summaryId = `s${++n}`;
        const boundary: Rec = {
          type: 'system',
          subtype: 'compact_boundary',
          content: 'Conversation compacted',
          uuid: boundaryId,
          parentUuid: null,
          logicalParentUuid: parent,
          isSidechain: false,
          sessionId: 'bench',
          timestamp: '2026-05-04T13:40:02.229Z',
          compactMetadata: { trigger: 'auto', preTokens: 155_000 },
        };
        parent = boundaryId;
        const summary: Rec = {
          type: 'user',
          isCompactSummary: true,
          uuid: summaryId,
          parentUuid: parent,
          isSidechain: false,
          sessionId: 'bench',
          timestamp: '2026-05-04T13:40:03.229Z',
          message: {
            role: 'user',
            content: `This session is being continued from a previous conversation. Summary: repetition ${rep}.`,
          },
        };
        parent = summaryId;
        out.unshift(JSON.stringify(boundary), JSON.stringify(summary));
        since = 0;
      }
      const chunk = out.join('\n') + '\n';
      fs.writeSync(fd, chunk);
      const size = Buffer.byteLength(chunk);
      written += size;
      since += size;
    }
  } finally {
    fs.closeSync(fd);
  }
  return { lastBoundary, source };
}

/** Records of a short tool-using session, when no recording is at hand. */
function generatedRecords(): Rec[] {
  const out: Rec[] = [{ type: 'user', uuid: 'x', message: { role: 'user', content: 'Refactor the handlers' } }];
  for (let k = 0; k < 200; k++) {
    out.push({
      type: 'assistant',
      uuid: 'x',
      message: {
        role: 'assistant',
        id: `msg_${k}`,
        model: 'claude-opus-4-7',
        content: [{ type: 'tool_use', id: `toolu_${k}`, name: 'Read', input: { file_path: `src/h${k}.ts` } }],
        usage: { input_tokens: 10, cache_read_input_tokens: 40_000 + k * 100, output_tokens: 30 },
      },
    });
    out.push({
      type: 'user',
      uuid: 'x',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: `toolu_${k}`, content: `export const h${k} = 1;\n`.repeat(120) }],
      },
    });
  }
  return out;
}

/** Measures one way of following `file` in this process (the child's side). */
async function runChild(mode: 'follow' | 'whole', file: string): Promise<LargeFollowRun> {
  let longestStallMs = 0;
  let longestStallCpuMs = 0;
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    longestStallMs = Math.max(longestStallMs, now - last - 5);
    longestStallCpuMs = Math.max(longestStallCpuMs, (cpu.user + cpu.system) / 1000);
    last = now;
    lastCpu = process.cpuUsage();
  }, 5);
  const started = performance.now();
  try {
    if (mode === 'whole') {
      const live = new LiveSession(file, 'claude-code', { counter: (m) => deferredCounterForModel(m) });
      const tail = new FileTail(file);
      const chunk = tail.poll();
      live.append(chunk.lines);
      let g = live.gauge();
      const firstGaugeMs = performance.now() - started;
      await live.exactCounts();
      g = live.gauge();
      await new Promise((r) => setTimeout(r, 20));
      return {
        longestStallMs,
        longestStallCpuMs,
        firstGaugeMs,
        exactGaugeMs: performance.now() - started,
        bytesRead: chunk.bytesRead,
        peakRssMb: 0,
        usedTokens: g.usedTokens,
        messages: g.messages,
        skippedBytes: 0,
      };
    }
    const watcher = new SessionWatcher(file, undefined, { counter: (m) => deferredCounterForModel(m) });
    const updates: { at: number; u: WatchUpdate }[] = [];
    await new Promise<void>((resolve, reject) => {
      const follow = followFile(
        watcher,
        (u) => {
          updates.push({ at: performance.now() - started, u });
          if (!u.gauge.estimated) {
            follow.dispose();
            resolve();
          }
        },
        (err) => {
          follow.dispose();
          reject(err);
        },
        1000,
      );
    });
    await new Promise((r) => setTimeout(r, 20));
    const final = updates[updates.length - 1].u;
    return {
      longestStallMs,
      longestStallCpuMs,
      firstGaugeMs: updates[0].at,
      exactGaugeMs: updates[updates.length - 1].at,
      bytesRead: watcher.totalBytesRead,
      peakRssMb: 0,
      usedTokens: final.gauge.usedTokens,
      messages: final.gauge.messages,
      skippedBytes: final.gauge.skippedBytes ?? 0,
    };
  } finally {
    clearInterval(timer);
  }
}

/** Builds a `bytes`-byte session and follows it in a fresh process each way. */
export function benchLargeFollow(root: string, bytes = 300_000_000): LargeFollowResult {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-bench-large-follow-'));
  const file = path.join(dir, 'session.jsonl');
  try {
    const { lastBoundary, source } = writeRealisticSession(file, bytes);
    const fileBytes = fs.statSync(file).size;
    const child = (mode: 'follow' | 'whole'): LargeFollowRun => {
      try {
        const out = execFileSync(process.execPath, [path.join(root, 'out/bench/large-follow.js'), mode, file], {
          encoding: 'utf8',
          maxBuffer: 1 << 20,
        });
        return JSON.parse(out.trim().split('\n').pop()!) as LargeFollowRun;
      } catch (err) {
        const e = err as Error & { stderr?: string };
        return {
          longestStallMs: NaN,
          longestStallCpuMs: NaN,
          firstGaugeMs: NaN,
          exactGaugeMs: NaN,
          bytesRead: NaN,
          peakRssMb: NaN,
          usedTokens: NaN,
          messages: NaN,
          skippedBytes: NaN,
          error: (e.stderr || e.message).split('\n').slice(0, 3).join(' '),
        };
      }
    };
    const follow = child('follow');
    const whole = child('whole');
    return { fileBytes, contextBytes: fileBytes - lastBoundary, source, follow, whole };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// main.ts bundles this module too: only the large-follow.js bundle run as a script is the child.
if (require.main === module && path.basename(process.argv[1] ?? '') === 'large-follow.js') {
  const [mode, file] = process.argv.slice(2);
  if ((mode !== 'follow' && mode !== 'whole') || !file) {
    process.stderr.write('usage: large-follow.js <follow|whole> FILE\n');
    process.exit(2);
  }
  void runChild(mode, file).then(
    (run) => {
      run.peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
      process.stdout.write(`${JSON.stringify(run)}\n`);
    },
    (err: unknown) => {
      process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
      process.exit(1);
    },
  );
}
