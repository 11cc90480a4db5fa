import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { SessionWatcher } from '../../src/watch/watcher';
import { agentSentTokens, ClaudeLines, CodexLines } from './fixtures';

function tempFile(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-watch-'));
  return path.join(dir, name);
}

/**
 * The figure `meter FILE --json` reports as `tokens` for the file as it is now, with the agent's own
 * summaries as the agent sends them (see {@link agentSentTokens}); the same figure before any compaction.
 */
async function fullImportTokens(file: string): Promise<{ tokens: number; checkpoints: number }> {
  return agentSentTokens(file);
}

test('watch: a Claude Code session followed line by line matches a fresh full import at every step', async () => {
  const file = tempFile('session.jsonl');
  const c = new ClaudeLines();
  fs.writeFileSync(file, c.user('Add a health endpoint to the server') + '\n');
  const w = new SessionWatcher(file);
  let u = w.update();
  assert.equal(u.gauge.format, 'claude-code');
  assert.equal(u.gauge.basis, 'counted', 'no usage recorded yet: the count is what the gauge shows');
  assert.equal(u.gauge.usedTokens, u.gauge.tokens);
  assert.equal(u.gauge.tokens, (await fullImportTokens(file)).tokens);

  const steps = [
    c.toolCall('t1', 'ls src'),
    c.toolResult('t1', 'server.ts\nroutes.ts\n'.repeat(20)),
    c.assistantText('I will add GET /health in routes.ts.', 4321),
  ];
  for (const line of steps) {
    fs.appendFileSync(file, line + '\n');
    u = w.update();
    assert.ok(u.changed);
    assert.equal(
      u.gauge.tokens,
      (await fullImportTokens(file)).tokens,
      'gauge equals the full import after each appended line',
    );
  }
  assert.equal(u.gauge.reportedTokens, 4321 + 100, 'provider usage (input + cache read) is reported beside the count');
  assert.equal(u.gauge.basis, 'exact+new');
  assert.ok(
    u.gauge.usedTokens > 4421 && u.gauge.usedTokens < 4421 + 40,
    `in use = reported + the reply written since (${u.gauge.usedTokens})`,
  );
  assert.equal(u.gauge.window, 200_000);
  assert.ok(u.gauge.agentCompactsAt && u.gauge.agentCompactsAt.tokens < 200_000);
});

test('watch: a half-written last line is held back until its newline arrives', () => {
  const file = tempFile('session.jsonl');
  const c = new ClaudeLines();
  fs.writeFileSync(file, c.user('first request') + '\n');
  const w = new SessionWatcher(file);
  const before = w.update().gauge;
  const line = c.assistantText('a reply that is being written');
  fs.appendFileSync(file, line.slice(0, 30));
  const partial = w.update();
  assert.equal(partial.changed, false);
  assert.equal(partial.gauge.messages, before.messages);
  assert.equal(partial.gauge.badLines, 0, 'a partial line is not a bad line');
  fs.appendFileSync(file, line.slice(30) + '\n');
  const done = w.update();
  assert.ok(done.changed);
  assert.equal(done.gauge.messages, before.messages + 1);
  assert.equal(done.bytesRead, line.length - 30 + 1, 'only the appended bytes are read');
});

test('watch: a compaction boundary appended live becomes a checkpoint and the gauge drops to the new context', async () => {
  const file = tempFile('session.jsonl');
  const c = new ClaudeLines();
  const early = [
    c.user('Refactor the billing module'),
    c.toolCall('t1', 'cat billing.ts'),
    c.toolResult('t1', 'export function bill() {}\n'.repeat(400)),
    c.assistantText('Read it.'),
  ];
  fs.writeFileSync(file, early.join('\n') + '\n');
  const w = new SessionWatcher(file);
  const peak = w.update().gauge;
  assert.equal(peak.checkpoints, 0);
  fs.appendFileSync(file, c.compaction('The user asked to refactor billing; billing.ts was read.').join('\n') + '\n');
  const after = w.update().gauge;
  assert.equal(after.checkpoints, 1);
  assert.ok(after.tokens < peak.tokens / 4, `gauge dropped (${peak.tokens} → ${after.tokens})`);
  assert.equal(after.model, 'claude-sonnet-4-5', 'the model named before the compaction still applies');
  assert.equal(after.window, peak.window, 'the window does not fall back to a default after the compaction');
  const full = await agentSentTokens(file);
  assert.equal(
    after.tokens,
    full.tokens,
    'same count as the full import after the boundary, summary as the agent sent it',
  );
  assert.ok(
    full.imported > full.tokens,
    'the import adds the request typed before the compaction beside the summary; the agent no longer sends it',
  );
  assert.equal(full.checkpoints, 1);
  fs.appendFileSync(file, c.user('Now add tests') + '\n');
  assert.equal(w.update().gauge.tokens, (await fullImportTokens(file)).tokens);
  const seen = w.live.compactionsSeen();
  assert.equal(seen.length, 1);
  assert.match(seen[0].summary, /refactor billing/);
  assert.equal(seen[0].tokensBefore, peak.tokens);
});

test('watch: a replaced file is read again from its start', async () => {
  const file = tempFile('session.jsonl');
  const c = new ClaudeLines();
  fs.writeFileSync(file, [c.user('one'), c.assistantText('two'), c.user('three')].join('\n') + '\n');
  const w = new SessionWatcher(file);
  assert.equal(w.update().gauge.messages, 3);
  const d = new ClaudeLines();
  const replacement = `${file}.new`;
  fs.writeFileSync(replacement, d.user('a different session') + '\n');
  fs.renameSync(replacement, file);
  const u = w.update();
  assert.ok(u.restarted);
  assert.equal(u.gauge.messages, 1);
  assert.equal(u.gauge.tokens, (await fullImportTokens(file)).tokens);
});

test('watch: a line that is not JSON is skipped and counted, the rest goes on', () => {
  const file = tempFile('session.jsonl');
  const c = new ClaudeLines();
  fs.writeFileSync(file, [c.user('one'), '{"type": broken', c.assistantText('two')].join('\n') + '\n');
  const g = new SessionWatcher(file).update().gauge;
  assert.equal(g.badLines, 1);
  assert.equal(g.messages, 2);
});

test('watch: a Codex rollout followed live keeps its instructions, window and compactions', async () => {
  const file = tempFile('rollout-2026-01-01T00-00-00-x.jsonl');
  const x = new CodexLines();
  fs.writeFileSync(
    file,
    [x.meta('/work/app'), x.turnContext(), x.user('Fix the failing login test')].join('\n') + '\n',
  );
  const w = new SessionWatcher(file);
  let g = w.update().gauge;
  assert.equal(g.format, 'codex');
  assert.equal(g.model, 'gpt-5.1-codex');
  const more = [
    x.tokenCount(9000, 272_000),
    x.call('c1', 'npm test'),
    x.output('c1', 'FAIL login.test.ts\n'.repeat(300)),
    x.assistant('The token check is wrong.'),
  ];
  for (const line of more) {
    fs.appendFileSync(file, line + '\n');
    g = w.update().gauge;
    assert.equal(g.tokens, (await fullImportTokens(file)).tokens);
  }
  assert.equal(g.window, 272_000);
  assert.equal(g.windowSource, 'recording');
  const peak = g.tokens;
  fs.appendFileSync(
    file,
    [x.compacted('Login test fails on the token check.'), x.turnContext(), x.user('continue')].join('\n') + '\n',
  );
  g = w.update().gauge;
  assert.equal(g.checkpoints, 1);
  assert.ok(g.tokens < peak);
  const full = await agentSentTokens(file);
  assert.equal(g.tokens, full.tokens, 'the system instructions stay counted after the compaction');
  assert.ok(full.imported > full.tokens, 'the import adds the request the agent compacted away; the gauge does not');
  assert.equal(g.window, 272_000, 'the window recorded before the compaction still applies');
});

test('watch: after the first read, each update reads only the appended bytes', () => {
  const file = tempFile('session.jsonl');
  const c = new ClaudeLines();
  const lines = Array.from({ length: 200 }, (_, k) => (k % 2 ? c.assistantText(`reply ${k}`) : c.user(`request ${k}`)));
  fs.writeFileSync(file, lines.join('\n') + '\n');
  const w = new SessionWatcher(file);
  const first = w.update();
  assert.equal(first.bytesRead, fs.statSync(file).size);
  const line = c.user('one more') + '\n';
  fs.appendFileSync(file, line);
  assert.equal(w.update().bytesRead, Buffer.byteLength(line));
  assert.equal(w.update().bytesRead, 0);
});

test('watch: a file that is neither agent is refused with its name and line', () => {
  const file = tempFile('other.jsonl');
  fs.writeFileSync(file, 'not json at all\n');
  assert.throws(
    () => new SessionWatcher(file),
    (e: Error) => e.message.includes(file) && /line 1/.test(e.message),
  );
});
