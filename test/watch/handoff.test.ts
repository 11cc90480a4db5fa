import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { SessionWatcher } from '../../src/watch/watcher';
import { buildHandoff, renderContext } from '../../src/watch/handoff';
import { ClaudeLines } from './fixtures';

test('handoff: a watched session compacts into Markdown that keeps the latest request and stands for far fewer tokens', async () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ck-handoff-')), 's.jsonl');
  const c = new ClaudeLines();
  const lines = [c.user('Port the CSV exporter to streams')];
  for (let k = 0; k < 30; k++) {
    lines.push(
      c.toolCall(`t${k}`, `cat src/export/part${k}.ts`),
      c.toolResult(`t${k}`, `export const part${k} = ${JSON.stringify('x'.repeat(2000))};\n`),
      c.assistantText(`Part ${k} read.`),
    );
  }
  lines.push(c.user('Keep the old exporter behind a flag until the release'));
  fs.writeFileSync(file, lines.join('\n') + '\n');
  const w = new SessionWatcher(file);
  w.update();
  const { items, transcript, meter } = w.live.context();
  const handoff = await buildHandoff({
    items,
    tools: transcript.tools,
    meter,
    title: 'Claude Code session s.jsonl',
    targetTokens: 4000,
  });
  assert.ok(handoff.tokensAfter < handoff.tokensBefore / 3, `${handoff.tokensBefore} → ${handoff.tokensAfter}`);
  assert.match(handoff.markdown, /^# Handoff: Claude Code session s\.jsonl/);
  assert.match(handoff.markdown, /## Summary of earlier work/);
  assert.match(
    handoff.markdown,
    /> Keep the old exporter behind a flag until the release/,
    'the latest request is kept verbatim',
  );
  assert.match(handoff.markdown, /Port the CSV exporter to streams/, 'the first request survives in the summary');
  assert.ok(!handoff.markdown.includes('x'.repeat(3000)), 'old tool output is not pasted whole');
});

test('handoff: the original context is the figure the gauge shows (the provider’s), with the counted part beside it', async () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ck-handoff-')), 's.jsonl');
  const c = new ClaudeLines();
  fs.writeFileSync(file, [c.user('Rename the exporter'), c.assistantText('Renamed.')].join('\n') + '\n');
  const w = new SessionWatcher(file);
  w.update();
  const { items, transcript, meter } = w.live.context();
  const input = { items, tools: transcript.tools, meter, title: 'Claude Code session s.jsonl' };
  const counted = await buildHandoff(input);
  const withGauge = await buildHandoff({ ...input, reportedTokens: 76_120 });
  assert.equal(withGauge.tokensBefore, 76_120);
  assert.equal(withGauge.countedBefore, counted.tokensBefore);
  assert.match(
    withGauge.markdown,
    new RegExp(
      `Context of the original session: 76,120 prompt tokens \\(as its provider reported them; ${counted.tokensBefore.toLocaleString('en-US')} of them are in the recording's messages\\)`,
    ),
  );
  // Without the provider's figure the count stands alone, with nothing beside it.
  assert.match(counted.markdown, /Context of the original session: [\d,]+ prompt tokens; this handoff/);
});

test('a continuation note or reminder a harness wrote in the user role is not headed "## User" in a handoff', () => {
  const item = (content: string) => ({
    id: content.slice(0, 8),
    kind: 'raw' as const,
    message: { role: 'user' as const, content },
    covers: [],
  });
  const text = renderContext([
    item('Fix the parser.'),
    item('Please continue the conversation from where we left it off without asking the user any further questions.'),
    item('<system-reminder>The file src/a.ts was modified.</system-reminder>'),
  ]);
  assert.equal(text.split('\n').filter((l) => l === '## User').length, 1, text);
  assert.match(text, /## Claude Code \(harness\)/);
});
