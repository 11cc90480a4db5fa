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
import { claudeCodeWithUsage as claudeCode } from '../support/claude-code-usage';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-meter-reported-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

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
  assert.match(
    text,
    /^recorded by the provider: 135\.5k prompt tokens \(135528\) for the newest request, including what the recording does not hold \(system prompt, tool schemas/m,
  );
  assert.match(text, /the count above is the recording's messages and the tool schemas it recorded/);
});

test('meter says a reported figure far below its count is a last request the agent had condensed or cut', async () => {
  // The messages hold thousands of tokens; the agent's last request reported 1,200 (it had condensed).
  const long = Array.from({ length: 2_000 }, (_, i) => `word${i}`).join(' ');
  const condensed = claudeCode
    .replace('list the files', long)
    .replace(
      '"input_tokens":1,"cache_read_input_tokens":135291,"cache_creation_input_tokens":236',
      '"input_tokens":1200,"cache_read_input_tokens":0,"cache_creation_input_tokens":0',
    );
  assert.notEqual(condensed, claudeCode);
  const text = await meter('condensed.jsonl', condensed, false);
  const count = Number(/^prompt tokens (\d+)/m.exec(text)?.[1]);
  assert.ok(count > 3_000, `own count of the long message: ${count}`);
  assert.match(
    text,
    /^recorded by the provider: 1\.2k prompt tokens \(1200\) for the newest request, less than the whole recording: the agent condensed or cut its own context/m,
  );
  assert.doesNotMatch(text, /does not hold/);
});

test('meter --json has reportedTokens: the newest figure, or null when the recording holds no usage', async () => {
  const report = JSON.parse(await meter('session2.jsonl', claudeCode, true)) as {
    reportedTokens: number | null;
    tokens: number;
  };
  assert.equal(report.reportedTokens, 135_528);
  assert.ok(report.tokens < report.reportedTokens);
  const chat = JSON.stringify({
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ],
  });
  const plain = JSON.parse(await meter('chat.json', chat, true)) as { reportedTokens: number | null };
  assert.equal(plain.reportedTokens, null);
  assert.doesNotMatch(await meter('chat2.json', chat, false), /recorded by the provider/);
});
