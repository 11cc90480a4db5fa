/**
 * Workspace secrets through compaction and the model summarizer: masked in the summary whatever the
 * model writes, masked in requests to a summarizer at another endpoint, kept in the raw messages; a
 * server that echoes the key (masked, encoded) gets it redacted from the error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatMessage } from '../../src/compaction/types';
import { compactWith, failureOf, GOOD_SUMMARY, items, requestText, rig } from './fixtures';
import { describeCompaction } from '../../src/compaction/outcome-text';

const KEY = 'sk-proj-Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0';
const ENV_FILE = `DATABASE_URL=postgres://localhost/app\nSTRIPE_SECRET=whsec_live_abcdefghijklmnop\nOPENAI_API_KEY=${KEY}\n`;

function withSecrets(): ChatMessage[] {
  const out: ChatMessage[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Check the app configuration.' },
  ];
  for (let t = 1; t <= 5; t++) {
    out.push({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: `c${t}`,
          type: 'function',
          function: { name: 'read_file', arguments: JSON.stringify({ path: t === 1 ? '.env' : `src/p${t}.ts` }) },
        },
      ],
    });
    out.push({
      role: 'tool',
      tool_call_id: `c${t}`,
      content: t === 1 ? ENV_FILE + 'x'.repeat(1500) : `part ${t} `.repeat(200),
    });
    out.push({ role: 'assistant', content: `Read part ${t}.` });
    out.push({ role: 'user', content: `Continue ${t}.` });
  }
  out.push({ role: 'user', content: 'now summarize what you found' });
  return out;
}

test('a summarizer at another endpoint never receives the credentials; the summary is masked; raw messages keep them', async (t) => {
  // The model echoes the secrets it saw: the checkpoint must not carry them anyway.
  const r = await rig(
    () => ({
      content: `${GOOD_SUMMARY}\nFound OPENAI_API_KEY=${KEY} and STRIPE_SECRET=whsec_live_abcdefghijklmnop in .env`,
    }),
    { maskSecrets: true },
  );
  t.after(() => r.close());
  const context = items(withSecrets());
  const result = await compactWith(r, context);
  assert.equal(result.status.kind, 'applied', describeCompaction(result.status));
  const sent = r.server.requests.map(requestText).join('\n');
  assert.ok(sent.includes('DATABASE_URL=postgres://localhost/app'), 'ordinary configuration is still sent');
  assert.ok(!sent.includes(KEY), 'the key reached the second endpoint');
  assert.ok(!sent.includes('whsec_live_abcdefghijklmnop'));
  const summary = result.checkpoints.map((c) => c.summary).join('\n');
  assert.ok(!summary.includes(KEY) && !summary.includes('whsec_live'), summary);
  assert.match(summary, /OPENAI_API_KEY=\[masked (API key|secret)\]/);
  // The replaced raw messages are untouched (the raw transcript keeps them locally).
  const replaced = result.checkpoints
    .flatMap((c) => c.replaced)
    .map((i) => String(i.message.content))
    .join('\n');
  assert.ok(replaced.includes(KEY));
});

test("the session's own endpoint gets the transcript as is, and the summary is still masked", async (t) => {
  const r = await rig(() => ({ content: `${GOOD_SUMMARY}\nkey ${KEY}` }));
  t.after(() => r.close());
  const result = await compactWith(r, items(withSecrets()));
  assert.equal(result.status.kind, 'applied', describeCompaction(result.status));
  assert.ok(r.server.requests.map(requestText).join('\n').includes(KEY));
  assert.ok(
    !result.checkpoints
      .map((c) => c.summary)
      .join('\n')
      .includes(KEY),
  );
});

test('a server echoing the key masked or URL-encoded gets it redacted from the error', async (t) => {
  const key = 'sk-test-secret-key-123';
  const r = await rig(() => ({
    type: 'status',
    status: 401,
    message: `Incorrect API key provided: sk-test-*************-123 (sent as ${encodeURIComponent(key)}; also ${Buffer.from(key).toString('base64')})`,
  }));
  t.after(() => r.close());
  const result = await compactWith(r, items(withSecrets()));
  assert.notEqual(result.status.kind, 'applied');
  assert.equal(failureOf(result)?.failure, 'auth');
  const message = `${describeCompaction(result.status)}\n${failureOf(result)?.message}`;
  assert.match(message, /HTTP 401/);
  for (const form of ['-123', encodeURIComponent(key), Buffer.from(key).toString('base64'), 'secret-key'])
    assert.ok(!message.includes(form), `${form} in ${message}`);
});
