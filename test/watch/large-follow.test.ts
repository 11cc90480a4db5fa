/**
 * The first follow of a large session file: it starts at the agent's last compaction, found from the
 * end, reads a bounded number of bytes in pieces with the event loop turning between them, and shows
 * the gauge a whole read of that context shows. A file with no compaction falls back to its start when
 * small, or to the last FOLLOW_LIMIT_BYTES when large.
 */
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { SessionWatcher } from '../../src/watch/watcher';
import { LiveSession, type WatchedGauge } from '../../src/watch/live';
import { FOLLOW_LIMIT_BYTES, WHOLE_FILE_BYTES } from '../../src/watch/resume';
import { ClaudeLines, CodexLines } from './fixtures';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { writeLargeSession } from './large-session';

const PIECE = 1024 * 1024;

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-large-follow-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The gauge figures a follow from a later start must share with a whole read of the same context. */
function figures(g: WatchedGauge) {
  return {
    tokens: g.tokens,
    usedTokens: g.usedTokens,
    reportedTokens: g.reportedTokens,
    basis: g.basis,
    window: g.window,
    windowSource: g.windowSource,
    model: g.model,
    messages: g.messages,
  };
}

/**
 * Runs `work` while an immediate loop counts turns of the event loop, and records at which turn each
 * batch of lines reached the live session and how many bytes it held.
 */
async function withTurns<T>(watcher: SessionWatcher, work: () => Promise<T>) {
  let turn = 0;
  let running = true;
  const spin = () => {
    turn++;
    if (running) setImmediate(spin);
  };
  setImmediate(spin);
  const batches: { turn: number; bytes: number }[] = [];
  const append = watcher.live.append.bind(watcher.live);
  watcher.live.append = (lines) => {
    batches.push({ turn, bytes: lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0) });
    append(lines);
  };
  const countTurns = new Set<number>();
  const countMessage = Object.getOwnPropertyDescriptor(TokenMeter.prototype, 'countMessage')!;
  Object.defineProperty(TokenMeter.prototype, 'countMessage', {
    ...countMessage,
    value: function (this: TokenMeter, ...args: Parameters<TokenMeter['countMessage']>) {
      countTurns.add(turn);
      return (countMessage.value as TokenMeter['countMessage']).apply(this, args);
    },
  });
  try {
    return { result: await work(), batches, countTurns };
  } finally {
    running = false;
    Object.defineProperty(TokenMeter.prototype, 'countMessage', countMessage);
  }
}

test('a large Claude Code session is followed from its last compaction: bounded reads in pieces, the gauge of that context read whole', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'large.jsonl');
  const s = writeLargeSession(file, { bytes: 48_000_000, compactEvery: 3_000_000, tailBytes: 1_000_000 });
  assert.ok(
    s.lastBoundary !== undefined && s.lastBoundary > s.size - 4_500_000,
    'the generator compacted near the end',
  );
  const context = s.size - s.lastBoundary;

  const watcher = new SessionWatcher(file);
  const { result: u, batches, countTurns } = await withTurns(watcher, () => watcher.updateAsync());
  assert.equal(u.start?.reason, 'compaction');
  assert.equal(u.start?.offset, s.lastBoundary, 'the read starts at the last compact boundary line');
  assert.equal(u.gauge.skippedBytes, s.lastBoundary);
  assert.ok(
    u.bytesRead <= 2 * context + 2 * PIECE,
    `${u.bytesRead} bytes read for a ${context}-byte context in a ${s.size}-byte file`,
  );
  // Off the event loop's critical path: the lines arrive piece by piece, each in its own turn.
  assert.ok(batches.length >= Math.floor(context / PIECE), `${batches.length} batches`);
  assert.ok(
    batches.every((b) => b.bytes <= PIECE),
    'no batch holds more than one piece',
  );
  assert.equal(new Set(batches.map((b) => b.turn)).size, batches.length, 'the event loop turns between batches');
  // The context is counted in slices too (about 50k characters a turn), not in one block.
  assert.ok(countTurns.size >= 10, `counted over ${countTurns.size} turns`);

  // The same context (the newest model-naming record before it, then the boundary on) read whole.
  const reference = path.join(dir, 'reference.jsonl');
  fs.writeFileSync(reference, [s.modelLineBefore!, ...s.fromBoundary].join('\n') + '\n');
  const whole = new SessionWatcher(reference).update();
  assert.equal(whole.start?.reason, 'whole');
  assert.deepEqual(figures(u.gauge), figures(whole.gauge));
  assert.equal(u.gauge.model, 'claude-sonnet-4-5');
  assert.equal(u.gauge.checkpoints, 1);

  // Later updates read only what was appended.
  const line = new ClaudeLines().assistantText('Next handler.', 90_000) + '\n';
  fs.appendFileSync(file, line);
  const next = await watcher.updateAsync();
  assert.equal(next.bytesRead, Buffer.byteLength(line));
  assert.equal(next.gauge.reportedTokens, 90_100);
  assert.equal(next.start, undefined);
});

test('a file without a compaction is read from its start when it fits the limit, else from the first line within the limit', async (t) => {
  const dir = tempDir(t);
  // Small: read whole, as before.
  const small = path.join(dir, 'small.jsonl');
  const c = new ClaudeLines();
  fs.writeFileSync(small, [c.user('Add a flag'), c.assistantText('Done.', 2_000)].join('\n') + '\n');
  const s0 = await new SessionWatcher(small).updateAsync();
  assert.equal(s0.start?.reason, 'whole');
  assert.equal(s0.gauge.skippedBytes, undefined);
  assert.equal(s0.gauge.messages, 2);

  // Over the whole-file size but within the limit, no compaction: still read from the start.
  const medium = path.join(dir, 'medium.jsonl');
  const m = writeLargeSession(medium, { bytes: WHOLE_FILE_BYTES + 500_000, compactEvery: 0, tailBytes: 0 });
  const mu = await new SessionWatcher(medium).updateAsync();
  assert.equal(mu.start?.offset, 0);
  assert.equal(mu.gauge.skippedBytes, undefined);
  const full = new LiveSession(medium, 'claude-code');
  full.append(fs.readFileSync(medium, 'utf8').split('\n').filter(Boolean));
  assert.deepEqual(figures(mu.gauge), figures(full.gauge()));
  assert.equal(mu.bytesRead, m.size + (mu.start?.bytesRead ?? 0));

  // Larger than the limit, no compaction: the last FOLLOW_LIMIT_BYTES from a line start; the
  // provider-reported figure of the newest response is still the one shown.
  const large = path.join(dir, 'large.jsonl');
  const l = writeLargeSession(large, {
    bytes: FOLLOW_LIMIT_BYTES + 2_000_000,
    compactEvery: 0,
    tailBytes: 0,
    lastReported: 123_456,
  });
  const lu = await new SessionWatcher(large).updateAsync();
  assert.equal(lu.start?.reason, 'limit');
  const offset = lu.start.offset;
  assert.ok(offset > 0 && offset >= l.size - FOLLOW_LIMIT_BYTES, `starts at ${offset} of ${l.size}`);
  const fd = fs.openSync(large, 'r');
  const before = Buffer.alloc(1);
  fs.readSync(fd, before, 0, 1, offset - 1);
  fs.closeSync(fd);
  assert.equal(before.toString(), '\n', 'the start is a line start');
  assert.equal(lu.gauge.skippedBytes, offset);
  assert.equal(lu.gauge.badLines, 0);
  assert.equal(lu.gauge.reportedTokens, 123_456);
  assert.equal(lu.gauge.basis, 'exact+new');
  assert.equal(lu.gauge.model, 'claude-sonnet-4-5');
});

test('a large Codex rollout is followed from its last compaction with its instructions, turn context and window', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'rollout.jsonl');
  const x = new CodexLines();
  const lines = [x.meta('/w'), x.turnContext('gpt-5.1-codex'), x.user('Port the parser')];
  let bytes = 0;
  for (let i = 0; bytes < WHOLE_FILE_BYTES + 1_000_000; i++) {
    const step = [x.call(`c${i}`, `cat src/p${i}.rs`), x.output(`c${i}`, `fn parse${i}() {}\n`.repeat(200))];
    for (const s of step) bytes += s.length + 1;
    lines.push(...step);
  }
  // Codex writes a turn context at every turn: the newest is just before the compaction.
  lines.push(x.turnContext('gpt-5.1-codex'), x.tokenCount(150_000, 272_000), x.compacted('Parser ported up to p400.'));
  lines.push(x.user('Now the tests'), x.assistant('Running them.'), x.tokenCount(20_000, 272_000));
  fs.writeFileSync(file, lines.join('\n') + '\n');

  const u = await new SessionWatcher(file).updateAsync();
  assert.equal(u.start?.reason, 'compaction');
  assert.ok(u.bytesRead < 3 * PIECE, `${u.bytesRead} bytes read`);
  const full = new LiveSession(file, 'codex');
  full.append(lines);
  assert.deepEqual(figures(u.gauge), figures(full.gauge()));
  assert.equal(u.gauge.window, 272_000);
  assert.equal(u.gauge.model, 'gpt-5.1-codex');
  assert.ok(u.gauge.skippedBytes! > WHOLE_FILE_BYTES);
});

test('several compactions in one piece: each compaction row measures the context it replaced', () => {
  const c = new ClaudeLines();
  const lines = [c.user('Start'), c.assistantText('short reply')];
  lines.push(...c.compaction('first'), c.user('Long work'));
  for (let i = 0; i < 20; i++) lines.push(c.assistantText(`step ${i} `.repeat(200)));
  lines.push(...c.compaction('second'), c.user('after'));
  const live = new LiveSession('s.jsonl', 'claude-code');
  live.append(lines);
  const [first, second] = live.compactionsSeen();
  assert.ok(first.tokensBefore! > 0 && second.tokensBefore! > 0);
  assert.ok(
    second.tokensBefore! > 10 * first.tokensBefore!,
    `the second compaction replaced the longer context (${first.tokensBefore} then ${second.tokensBefore})`,
  );
});
