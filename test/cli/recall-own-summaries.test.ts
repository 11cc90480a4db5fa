/**
 * `recall FILE` on a file `compact --out` wrote names the summaries ContextKeeper wrote there as
 * such (with where the messages they stand for can be read), never as compactions the recording
 * agent made, and a search does not call such a summary replaced: it is what stands in the context.
 * Recordings in two formats, written in test/support/recordings.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compactCommand, type BudgetOptions } from '../../src/cli/commands';
import { recallCommand } from '../../src/cli/recall';
import { WRITERS, type Step } from '../support/recordings';
import { quiet } from '../support/cli-output';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-recall-own-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);
const work: Step[] = [
  { user: 'add a retry budget to the fetch client in src/net/client.ts' },
  { tool: 'read', path: 'src/net/client.ts', output: filler(300) },
  { tool: 'edit', path: 'src/net/client.ts', old: 'retries = 0', new: 'retries = budget.left' },
  { say: `The retry budget is in place. ${filler(300)}` },
  { user: 'now write tests for the retry budget' },
  { tool: 'bash', command: 'npm test -- test/net', output: `${filler(300)}\n12 passing`, exit: 0 },
  { say: `The tests pass. ${filler(300)}` },
  { user: 'bump the version to 1.4.0 in package.json' },
  { tool: 'edit', path: 'package.json', old: '1.3.9', new: '1.4.0' },
  { say: 'Bumped.' },
];

const budget: BudgetOptions = { window: 3000, at: 0.8, to: 0.5, keepSteps: 1, summarizer: 'extractive' };

for (const format of ['claude-code', 'openai-chat'] as const) {
  test(`${format}: recall lists a summary compact --out wrote as ContextKeeper's summary, not an agent's compaction`, async () => {
    const { write, file } = WRITERS[format];
    const dir = fs.mkdtempSync(path.join(tmp, `${format}-`));
    const input = path.join(dir, file);
    fs.writeFileSync(input, write(work));
    const output = path.join(dir, 'out.json');
    await quiet((out, note) => compactCommand(input, { ...budget, out: output }, out, note));

    const listed = await quiet((out) => recallCommand(output, undefined, {}, out));
    assert.doesNotMatch(listed, /^checkpoint import-1 replaced messages/m, listed);
    assert.match(listed, /The recording agent made no compaction of its own\./, listed);
    assert.match(
      listed,
      /^summary import-1 \(message \d+\) written by ContextKeeper: an earlier compaction's summary, read back from a file compact --out or replay --out wrote; it stands for messages this file does not hold\. \[The \d+ replaced messages can be read from: /m,
      listed,
    );
    assert.ok(listed.includes(path.basename(input)), 'the pointer names the recording it came from');
    const json = JSON.parse(await quiet((out) => recallCommand(output, undefined, { json: true }, out))) as {
      checkpoints: Array<{ id: string; writtenBy: string }>;
    };
    assert.equal(json.checkpoints.length, 1);
    assert.equal(json.checkpoints[0].id, 'import-1');
    assert.equal(json.checkpoints[0].writtenBy, 'ContextKeeper');

    // A search finds the summary's words in the summary, which is in the context, not replaced.
    const found = await quiet((out) => recallCommand(output, 'retry budget', {}, out));
    assert.match(found, /summary written by an earlier ContextKeeper compaction, still in the context/, found);
    assert.doesNotMatch(found, /replaced by checkpoint import-1/, found);
  });
}
