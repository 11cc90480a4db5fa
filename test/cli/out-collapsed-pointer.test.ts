/**
 * A tool result collapsed in a context written for the command-line tool (`compact --out`, `replay
 * --out`) says where its full output can be read: the recording and its position there, which
 * `recall FILE --read N` reads; never a checkpoint history the file does not have. A context for a
 * session that keeps its checkpoints still points there. Recordings in two formats, written in
 * test/support/recordings.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compactCommand, replayCommand, type BudgetOptions } from '../../src/cli/commands';
import { recallCommand } from '../../src/cli/recall';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { compact } from '../../src/compaction/rewrite/compactor';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { quarterCounter } from '../support/generate';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { quiet } from '../support/cli-output';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-out-collapsed-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A tool output whose first line tells it apart. */
const output = (name: string, n: number) => `${name}\n${'lorem ipsum dolor sit amet\n'.repeat(n)}`;
const work: Step[] = [
  { user: 'read the fetch client and the retry module' },
  { tool: 'read', path: 'src/net/client.ts', output: output('CLIENT-SOURCE', 300) },
  { tool: 'read', path: 'src/net/retry.ts', output: output('RETRY-SOURCE', 300) },
  { say: 'The client retries three times.' },
  { user: 'now run the tests of the client' },
  { tool: 'bash', command: 'npm test -- test/net', output: output('TEST-RUN', 40), exit: 0 },
  { say: 'Twelve tests pass.' },
];
const budget: BudgetOptions = { window: 4000, at: 0.8, to: 0.5, keepSteps: 1, summarizer: 'extractive' };

const records = (file: string) =>
  (JSON.parse(fs.readFileSync(file, 'utf8')) as { messages: Array<{ role: string; content: unknown }> }).messages
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .filter((c) => c.includes('[tool result collapsed]'));

for (const format of ['cline', 'openai-chat'] as const) {
  const { write, file } = WRITERS[format];
  const dir = fs.mkdtempSync(path.join(tmp, `${format}-`));
  const input = path.join(dir, file);
  fs.writeFileSync(input, write(work));

  for (const [name, command] of [
    ['compact', compactCommand],
    ['replay', replayCommand],
  ] as const) {
    test(`${format}: ${name} --out: a collapsed tool result names the position recall reads its output at`, async () => {
      const out = path.join(dir, `${name}.json`);
      await quiet((o, n) => command(input, { ...budget, out }, o, n));
      const collapsed = records(out);
      assert.ok(collapsed.length > 0, 'a tool result was collapsed');
      for (const record of collapsed) {
        assert.doesNotMatch(record, /checkpoint history/);
        const m = new RegExp(
          `The full output can be read from: ${file.replace(/\./g, '\\.')}, message (\\d+) \\(context-keeper recall FILE --read (\\d+)\\)\\.`,
        ).exec(record);
        assert.ok(m, record);
        assert.equal(m[1], m[2]);
        // The output read there is the one the record stands for.
        const read = await quiet((o) => recallCommand(input, undefined, { read: { from: Number(m[1]) } }, o));
        const shown = [
          ['CLIENT-SOURCE', 'client.ts'],
          ['RETRY-SOURCE', 'retry.ts'],
          ['TEST-RUN', 'npm test'],
        ].find(([marker]) => read.includes(marker));
        assert.ok(shown, read);
        assert.ok(record.includes(shown[1]), `${record}\nreads\n${read}`);
      }
    });
  }
}

test('a context for a session that keeps its checkpoints still points to its checkpoint history', async () => {
  const meter = new TokenMeter({ counter: quarterCounter });
  const items = itemsFromEntries(
    importTranscriptTextSync(WRITERS['openai-chat'].write(work), 'trajectory.json').entries,
  );
  const r = await compact({
    items,
    meter,
    summarizer: new ExtractiveSummarizer((t) => meter.countText(t)),
    options: {
      budget: { contextWindow: 4000, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 },
      trigger: 'manual',
    },
  });
  const collapsed = r.context.filter((i) => i.kind === 'collapsed');
  assert.ok(collapsed.length > 0);
  for (const i of collapsed)
    assert.match(
      textWithPlaceholders(i.message.content),
      /The full output is kept in ContextKeeper's checkpoint history/,
    );
});
