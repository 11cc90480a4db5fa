/**
 * The watched agent through its own compaction: the figures it records in the compaction (Claude
 * Code's `compactMetadata.preTokens`/`postTokens`, Codex's token_count events around `compacted`) are
 * the row's figures and the gauge's anchor until its next response; all-zero usage records are not a
 * measure, so the last real figure plus what was added since stays on the gauge.
 */
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { SessionWatcher } from '../../src/watch/watcher';
import { compactionFigures } from '../../src/watch/live';
import { ClaudeLines, CodexLines } from './fixtures';

function tempFile(name: string): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ck-watch-recorded-')), name);
}

test('Claude Code: the compaction row and the gauge use the pre/post figures the agent recorded', () => {
  const file = tempFile('session.jsonl');
  const c = new ClaudeLines();
  fs.writeFileSync(
    file,
    [
      c.user('Refactor billing'),
      c.toolCall('t1', 'cat billing.ts', 150_000),
      c.toolResult('t1', 'export function bill() {}\n'.repeat(400)),
      c.assistantText('Read it.', 168_000),
    ].join('\n') + '\n',
  );
  const w = new SessionWatcher(file);
  assert.equal(w.update().gauge.reportedTokens, 168_100);
  fs.appendFileSync(
    file,
    [
      ...c.compaction('Billing was read.', { trigger: 'auto', preTokens: 169_012, postTokens: 6_634 }),
      c.zeroUsage('Compacted.'),
    ].join('\n') + '\n',
  );
  const g = w.update().gauge;
  const [row] = w.live.compactionsSeen();
  assert.deepEqual(compactionFigures(row), { before: 169_012, after: 6_634, source: 'recorded' });
  assert.equal(row.trigger, 'auto');
  assert.equal(g.reportedFrom, 'compaction', 'the zero usage after the boundary is no figure');
  assert.equal(g.reportedTokens, 6_634);
  assert.ok(g.usedTokens > 6_634 && g.usedTokens < 6_634 + 100, `post figure plus the note: ${g.usedTokens}`);
  assert.equal(g.basis, 'exact+new');

  // The next real response replaces the compaction's figure.
  fs.appendFileSync(file, [c.user('Now add tests'), c.assistantText('Adding them.', 7_500)].join('\n') + '\n');
  const next = w.update().gauge;
  assert.equal(next.reportedFrom, 'response');
  assert.equal(next.reportedTokens, 7_600);
});

test('Claude Code: a zero-usage record keeps the last real figure plus what was added since', () => {
  const file = tempFile('session.jsonl');
  const c = new ClaudeLines();
  fs.writeFileSync(
    file,
    [c.user('Start'), c.assistantText('Working.', 40_000), c.zeroUsage('[Request interrupted by user]')].join('\n') +
      '\n',
  );
  const g = new SessionWatcher(file).update().gauge;
  assert.equal(g.reportedTokens, 40_100);
  assert.ok(g.usedTokens > 40_100, `the figure plus the messages since: ${g.usedTokens}`);
  assert.ok(g.usedTokens < 40_200);
});

test('Claude Code without post figure (older versions): counted after, recorded before', () => {
  const file = tempFile('session.jsonl');
  const c = new ClaudeLines();
  fs.writeFileSync(file, [c.user('Start'), c.assistantText('Working.', 90_000)].join('\n') + '\n');
  const w = new SessionWatcher(file);
  w.update();
  fs.appendFileSync(file, c.compaction('Started.', { trigger: 'manual', preTokens: 90_500 }).join('\n') + '\n');
  const g = w.update().gauge;
  const [row] = w.live.compactionsSeen();
  assert.equal(compactionFigures(row).before, 90_500);
  assert.equal(compactionFigures(row).after, undefined);
  assert.equal(row.trigger, 'manual');
  assert.equal(g.basis, 'counted');
  assert.equal(g.usedTokens, g.tokens);
});

test('Codex: the token counts around a compaction are its figures; a zero count is none', () => {
  const file = tempFile('rollout-2026-01-01T00-00-00-x.jsonl');
  const x = new CodexLines();
  fs.writeFileSync(
    file,
    [
      x.meta('/w'),
      x.turnContext(),
      x.user('Fix the login test'),
      x.tokenCount(120_000),
      x.assistant('Looking.'),
      x.compacted('Login test fails on the token check.'),
    ].join('\n') + '\n',
  );
  const w = new SessionWatcher(file);
  w.update();
  assert.deepEqual(compactionFigures(w.live.compactionsSeen()[0]), {
    before: 120_000,
    after: undefined,
    source: 'recorded',
  });
  fs.appendFileSync(
    file,
    [x.turnContext(), x.user('continue'), x.tokenCount(0), x.tokenCount(8_000)].join('\n') + '\n',
  );
  const g = w.update().gauge;
  assert.equal(w.live.compactionsSeen()[0].recordedAfter, 8_000, 'the zero count is skipped');
  assert.equal(g.reportedTokens, 8_000);
  assert.equal(g.reportedFrom, 'compaction');
});
