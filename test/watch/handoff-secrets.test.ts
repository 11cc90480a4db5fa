/** A handoff is pasted elsewhere: credentials in the tool output it quotes are masked. */
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { SessionWatcher } from '../../src/watch/watcher';
import { buildHandoff } from '../../src/watch/handoff';
import { ClaudeLines } from './fixtures';

test('handoff: credentials from tool output are masked, the session file keeps them', async () => {
  const key = 'sk-proj-Handoff0Secret1Value2Long3Enough4';
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ck-handoff-')), 's.jsonl');
  const c = new ClaudeLines();
  const lines = [c.user('Find why the payment webhook fails')];
  for (let k = 0; k < 10; k++)
    lines.push(
      c.toolCall(`t${k}`, `cat src/part${k}.ts`),
      c.toolResult(`t${k}`, `part ${k} `.repeat(300)),
      c.assistantText(`Part ${k} read.`),
    );
  lines.push(
    c.toolCall('env', 'cat .env'),
    c.toolResult('env', `OPENAI_API_KEY=${key}\nSTRIPE_WEBHOOK_SECRET=whsec_abcdefghijklmnopqrstuv\nPORT=8080\n`),
  );
  fs.writeFileSync(file, lines.join('\n') + '\n');
  const w = new SessionWatcher(file);
  w.update();
  const { items, transcript, meter } = w.live.context();
  const handoff = await buildHandoff({
    items,
    tools: transcript.tools,
    meter,
    title: 'session s.jsonl',
    targetTokens: 2000,
  });
  assert.match(handoff.markdown, /PORT=8080/, 'the newest tool result is quoted');
  assert.ok(
    !handoff.markdown.includes(key) && !handoff.markdown.includes('whsec_abcdefghijklmnopqrstuv'),
    handoff.markdown,
  );
  assert.match(handoff.markdown, /OPENAI_API_KEY=\[masked/);
  assert.ok(fs.readFileSync(file, 'utf8').includes(key));
});
