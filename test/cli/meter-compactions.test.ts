/**
 * `meter` names the compactions a file records by who wrote them: the summaries in a file
 * ContextKeeper wrote (`compact --out`, `replay --out`, marked "written by ContextKeeper") are
 * ContextKeeper's, never the recording agent's own compactions; an agent's own compaction (Claude
 * Code's) still is. Recordings written in test/support/recordings.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compactCommand, meterCommand, replayCommand } from '../../src/cli/commands';
import { WRITERS, claudeCode, claudeCodeCompacted, type Step } from '../support/recordings';
import { quiet } from '../support/cli-output';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-meter-compactions-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);
const work: Step[] = [
  { user: 'add a retry budget to the fetch client' },
  { tool: 'read', path: 'src/net/client.ts', output: filler(300) },
  { say: `The retry budget is in place. ${filler(200)}` },
  { user: 'now write tests for the retry budget' },
  { tool: 'bash', command: 'npm test -- test/net', output: `${filler(300)}\n12 passing`, exit: 0 },
  { say: `The tests pass. ${filler(200)}` },
  { user: 'document it' },
  { say: 'Documented.' },
];

const budget = { window: 3000, at: 0.8, to: 0.5, keepSteps: 1, summarizer: 'extractive' } as const;

for (const format of ['claude-code', 'openai-chat'] as const) {
  for (const [name, command] of [
    ['compact', compactCommand],
    ['replay', replayCommand],
  ] as const) {
    test(`${format}: meter on a ${name} --out file names its summaries as ContextKeeper's, not the agent's`, async () => {
      const { write, file } = WRITERS[format];
      const dir = fs.mkdtempSync(path.join(tmp, `${format}-`));
      const input = path.join(dir, file);
      fs.writeFileSync(input, write(work));
      const out = path.join(dir, 'out.json');
      await quiet((o, n) => command(input, { ...budget, out }, o, n));
      const text = await quiet((o, n) => meterCommand(out, {}, o, n));
      assert.doesNotMatch(text, /own compaction/);
      assert.match(text, /after 1 summary written by ContextKeeper \(an earlier compaction's output, read back\)/);
      const json = JSON.parse(await quiet((o, n) => meterCommand(out, { json: true }, o, n))) as {
        importedCompactions: number;
        contextKeeperSummaries: number;
      };
      assert.equal(json.importedCompactions, 1);
      assert.equal(json.contextKeeperSummaries, 1);
    });
  }
}

test("claude-code: meter on a session the agent compacted names the agent's own compaction", async () => {
  const file = path.join(tmp, 'session.jsonl');
  fs.writeFileSync(file, claudeCodeCompacted(claudeCode(work), 'We added a retry budget.', 'Now release it.'));
  const text = await quiet((o, n) => meterCommand(file, {}, o, n));
  assert.match(text, /after the recording's 1 own compaction;/);
  assert.doesNotMatch(text, /written by ContextKeeper/);
  const json = JSON.parse(await quiet((o, n) => meterCommand(file, { json: true }, o, n))) as {
    contextKeeperSummaries: number;
  };
  assert.equal(json.contextKeeperSummaries, 0);
});
