/**
 * `compact --out` and `replay --out` write the compacted context with every secret value the masking
 * recognises masked, in the messages kept as they were too (a key in the newest tool call, the same
 * key echoed bare in its result), while the recording they read keeps the originals. The written
 * tool-call arguments stay valid JSON, and `tokensAfter` is what `meter` counts on the written file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compactCommand, meterCommand, replayCommand, type BudgetOptions } from '../../src/cli/commands';
import { WRITERS, type Step } from '../support/recordings';
import { quiet } from '../support/cli-output';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-out-secrets-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const KEY = 'Zq8xT2vLm9Kp4Rb7Nc1Wd6Yf3Hs5Jg0A';
const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

const work: Step[] = [
  { user: 'deploy the service to the staging region' },
  { tool: 'read', path: 'deploy/config.yaml', output: filler(400) },
  { say: `The config needs the staging region. ${filler(400)}` },
  { tool: 'edit', path: 'deploy/config.yaml', old: 'region: us', new: 'region: eu' },
  { say: `Now the deploy itself. ${filler(400)}` },
  {
    tool: 'bash',
    command: `export SERVICE_API_KEY=${KEY} && ./deploy.sh --region eu`,
    output: `deploying with key ${KEY}\ndone`,
    exit: 0,
  },
];

const budget = (extra: Partial<BudgetOptions> = {}): BudgetOptions => ({
  window: 4000,
  at: 0.8,
  to: 0.5,
  keepSteps: 1,
  summarizer: 'extractive',
  ...extra,
});

interface Written {
  tokensAfter: number;
  messages: Array<{ role: string; tool_calls?: Array<{ function: { arguments: string } }> }>;
}

for (const format of ['claude-code', 'cline', 'openai-chat', 'codex'] as const) {
  for (const [name, run] of [
    ['compact', compactCommand],
    ['replay', replayCommand],
  ] as const) {
    test(`${format}: ${name} --out masks a key kept verbatim in the newest step; the recording keeps it`, async () => {
      const { write, file } = WRITERS[format];
      const dir = fs.mkdtempSync(path.join(tmp, `${format}-${name}-`));
      const input = path.join(dir, file);
      fs.writeFileSync(input, write(work));
      const outFile = path.join(dir, 'out.json');
      await quiet((out, note) => run(input, { ...budget(), out: outFile }, out, note));
      const text = fs.readFileSync(outFile, 'utf8');
      const doc = JSON.parse(text) as Written;
      assert.ok(
        doc.messages.some((m) => JSON.stringify(m).includes('deploy.sh --region eu')),
        'the newest step is kept in the written context',
      );
      assert.ok(!text.includes(KEY), `the key is not in the written file:\n${text.slice(-1500)}`);
      assert.match(text, /\[masked secret\]/);
      for (const m of doc.messages)
        for (const c of m.tool_calls ?? []) assert.doesNotThrow(() => JSON.parse(c.function.arguments));
      assert.ok(fs.readFileSync(input, 'utf8').includes(KEY), 'the recording keeps the key');
      const metered = JSON.parse(await quiet((out, note) => meterCommand(outFile, { json: true }, out, note))) as {
        tokens: number;
      };
      assert.equal(doc.tokensAfter, metered.tokens, 'tokensAfter counts the messages as written');
    });
  }
}
