/**
 * Live watching of another agent's session file, through the code the extension and `watch` run
 * ({@link SessionWatcher} driven by {@link followFile}). Two generated Claude Code session files, 10 MB
 * and 100 MB, with the agent compacting about every 2 MB as it would near a 200k window; then single
 * lines are appended and we measure, per update: the time from the append to the updated gauge
 * (file event → read → gauge), the work of the update alone, and the bytes read. Flat means the
 * 100 MB figures equal the 10 MB ones and bytes read equal the appended bytes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SessionWatcher, followFile } from '../src/watch/watcher';

/** Figures for one file size. Times in milliseconds (medians), sizes in bytes. */
export interface WatchSizeResult {
  fileBytes: number;
  firstReadMs: number;
  appendToGaugeMs: number;
  updateMs: number;
  bytesReadPerUpdate: number;
  appendedBytesPerUpdate: number;
}

/** The benchmark's result: one row per file size. */
export interface WatchResult {
  sizes: WatchSizeResult[];
  /** 100 MB over 10 MB, for the append-to-gauge time and the bytes read per update. */
  timeGrowth: number;
  bytesGrowth: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Writes a Claude Code session of about `bytes` bytes; returns a line maker that continues it. */
function writeSession(file: string, bytes: number): () => string {
  let n = 0;
  let parent: string | null = null;
  const base = {
    sessionId: 'bench',
    cwd: '/w',
    version: '2.1.0',
    isSidechain: false,
    timestamp: '2026-01-01T00:00:00.000Z',
  };
  const rec = (o: Record<string, unknown>) => {
    const uuid = `u${++n}`;
    const line = JSON.stringify({ ...base, uuid, parentUuid: parent, ...o });
    parent = uuid;
    return line;
  };
  const output = (k: number) => `line ${k}: ${'const value = compute(input, options); '.repeat(40)}\n`.repeat(8);
  const step = (k: number) => [
    rec({
      type: 'assistant',
      message: {
        role: 'assistant',
        id: `m${k}`,
        model: 'claude-sonnet-4-5',
        content: [{ type: 'tool_use', id: `t${k}`, name: 'Read', input: { file_path: `src/module${k % 97}.ts` } }],
        usage: { input_tokens: 1000 + k, output_tokens: 20 },
      },
    }),
    rec({
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${k}`, content: output(k) }] },
    }),
  ];
  const fd = fs.openSync(file, 'w');
  let written = 0;
  let sinceCompaction = 0;
  let k = 0;
  const put = (line: string) => {
    fs.writeSync(fd, line + '\n');
    written += line.length + 1;
    sinceCompaction += line.length + 1;
  };
  put(rec({ type: 'user', message: { role: 'user', content: 'Refactor every module to the new options object' } }));
  while (written < bytes) {
    for (const line of step(k++)) put(line);
    if (sinceCompaction > 2_000_000) {
      put(
        JSON.stringify({
          ...base,
          type: 'system',
          subtype: 'compact_boundary',
          uuid: `b${++n}`,
          parentUuid: null,
          logicalParentUuid: parent,
        }),
      );
      parent = `b${n}`;
      put(
        rec({
          type: 'user',
          isCompactSummary: true,
          message: { role: 'user', content: `Summary: modules 0..${k} refactored.` },
        }),
      );
      sinceCompaction = 0;
    }
  }
  fs.closeSync(fd);
  let extra = 0;
  return () =>
    rec({
      type: 'assistant',
      message: {
        role: 'assistant',
        id: `x${++extra}`,
        model: 'claude-sonnet-4-5',
        content: [{ type: 'text', text: `Progress note ${extra}.` }],
        usage: { input_tokens: 5000 + extra, output_tokens: 5 },
      },
    });
}

async function measureSize(dir: string, bytes: number, appends: number): Promise<WatchSizeResult> {
  const file = path.join(dir, `session-${bytes}.jsonl`);
  const nextLine = writeSession(file, bytes);
  const fileBytes = fs.statSync(file).size;
  const watcher = new SessionWatcher(file);
  let t = performance.now();
  watcher.update();
  const firstReadMs = performance.now() - t;

  // The work of one update alone, without file-event latency.
  const updateMs: number[] = [];
  const readBytes: number[] = [];
  const appended: number[] = [];
  for (let i = 0; i < appends; i++) {
    const line = nextLine() + '\n';
    fs.appendFileSync(file, line);
    t = performance.now();
    const u = watcher.update();
    updateMs.push(performance.now() - t);
    readBytes.push(u.bytesRead);
    appended.push(Buffer.byteLength(line));
  }

  // Append to gauge through the follow loop (file event, polling fallback at 1 s).
  const latencies: number[] = [];
  await new Promise<void>((resolve) => {
    let appendedAt = 0;
    let count = 0;
    const appendOne = () => {
      appendedAt = performance.now();
      fs.appendFileSync(file, nextLine() + '\n');
    };
    const follow = followFile(
      watcher,
      (u) => {
        if (!u.changed) return;
        latencies.push(performance.now() - appendedAt);
        if (++count >= appends) {
          follow.dispose();
          resolve();
        } else setTimeout(appendOne, 20);
      },
      () => undefined,
      1000,
    );
    setTimeout(appendOne, 50);
  });
  fs.rmSync(file, { force: true });
  return {
    fileBytes,
    firstReadMs,
    appendToGaugeMs: median(latencies),
    updateMs: median(updateMs),
    bytesReadPerUpdate: median(readBytes),
    appendedBytesPerUpdate: median(appended),
  };
}

/** Runs the watcher benchmark on 10 MB and 100 MB files (`appends` updates each). */
export async function benchWatch(appends = 25): Promise<WatchResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-bench-watch-'));
  try {
    const small = await measureSize(dir, 10_000_000, appends);
    const large = await measureSize(dir, 100_000_000, appends);
    return {
      sizes: [small, large],
      timeGrowth: large.appendToGaugeMs / small.appendToGaugeMs,
      bytesGrowth: large.bytesReadPerUpdate / small.bytesReadPerUpdate,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
