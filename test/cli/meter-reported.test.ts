/**
 * `meter` shows the provider's reported prompt tokens of a recording's newest request beside its own
 * count (the figure `watch` reports as `reportedTokens`), so a recording whose system prompt and
 * tool schemas are not in the file is never shown at a fraction of its real size without a note.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { meterCommand } from '../../src/cli/commands';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-meter-reported-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const base = { sessionId: 's1', cwd: '/w', version: '2.1.0', isSidechain: false, timestamp: '2026-01-01T00:00:00.000Z' };
const line = (o: Record<string, unknown>) => JSON.stringify({ ...base, ...o });
const usage = (input: number, read: number, write: number) => ({ input_tokens: input, cache_read_input_tokens: read, cache_creation_input_tokens: write, output_tokens: 5 });

/** A small Claude Code session: the newest response reports 1 + 236 + 135,291 prompt tokens. */
const claudeCode = [
  line({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'list the files' } }),
  line({ type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { role: 'assistant', id: 'm1', model: 'claude-sonnet-4-5', content: [{ type: 'tool_use', id: 'c1', name: 'Bash', input: { command: 'ls' } }], usage: usage(6, 15_907, 12_043) } }),
  line({ type: 'user', uuid: 'r1', parentUuid: 'a1', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'a.txt' }] } }),
  line({ type: 'assistant', uuid: 'a2', parentUuid: 'r1', message: { role: 'assistant', id: 'm2', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'One file.' }], usage: usage(1, 135_291, 236) } }),
].join('\n');

async function meter(name: string, text: string, json: boolean): Promise<string> {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, text);
  const lines: string[] = [];
  await meterCommand(file, { json }, (l) => lines.push(l));
  return lines.join('\n');
}

test('meter prints the newest reported prompt tokens beside its own count, labelled', async () => {
  const text = await meter('session.jsonl', claudeCode, false);
  const count = Number(/^prompt tokens (\d+)/m.exec(text)?.[1]);
  assert.ok(count > 0 && count < 1000, `own count of the few recorded messages: ${count}`);
  assert.match(text, /^recorded by the provider: 135\.5k prompt tokens \(135528\) for the newest request, including what the recording does not hold \(system prompt, tool schemas/m);
  assert.match(text, /the count above is what ContextKeeper sends/);
});

test('meter --json has reportedTokens: the newest figure, or null when the recording holds no usage', async () => {
  const report = JSON.parse(await meter('session2.jsonl', claudeCode, true)) as { reportedTokens: number | null; tokens: number };
  assert.equal(report.reportedTokens, 135_528);
  assert.ok(report.tokens < report.reportedTokens);
  const chat = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] });
  const plain = JSON.parse(await meter('chat.json', chat, true)) as { reportedTokens: number | null };
  assert.equal(plain.reportedTokens, null);
  assert.doesNotMatch(await meter('chat2.json', chat, false), /recorded by the provider/);
});
