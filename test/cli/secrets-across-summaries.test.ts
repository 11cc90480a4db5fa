/**
 * A secret value whose assignment an earlier summary replaced stays masked when a later message
 * repeats it bare (a table of settings, a command line): the summaries after it, their scorecards
 * and the `--out` file never show it. Earlier summaries hold masks, not values, so the values come
 * from the raw transcript (`CompactionOptions.knownSecretValues`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { replayCommand, type BudgetOptions } from '../../src/cli/commands';
import { WRITERS, type Step } from '../support/recordings';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-secrets-across-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const VALUE = 'pgStore_pass_77xq';
const filler = (n: number) => 'the handler validates each field before the write '.repeat(n);

const work: Step[] = [
  { user: 'set up the database for the ticket service' },
  {
    tool: 'read',
    path: 'docker-compose.yml',
    output: `services:\n  db:\n    environment:\n      POSTGRES_DB: tickets\n      POSTGRES_PASSWORD: ${VALUE}\n${filler(200)}`,
  },
  { say: `The compose file defines the database. ${filler(250)}` },
  { tool: 'edit', path: 'src/db/pool.ts', old: 'max: 5', new: 'max: 20' },
  { say: `The pool is larger now. ${filler(250)}` },
  { user: 'document the settings in the README' },
  {
    say: `Settings:\n| name | value |\n| --- | --- |\n| SPRING_DATASOURCE_PASSWORD | ${VALUE} |\n| TicketPoolSize | 20 |\n${filler(250)}`,
  },
  { tool: 'bash', command: `psql -U tickets -c "select 1" # uses ${VALUE}`, output: '1 row', exit: 0 },
  { say: `Documented. ${filler(250)}` },
  { tool: 'edit', path: 'README.md', old: '## Settings', new: '## Settings\n\nSee the table.' },
  { say: `The README lists the settings. ${filler(250)}` },
  { user: 'now add a health check' },
  { tool: 'edit', path: 'src/health.ts', old: '', new: 'export const ok = true;' },
  { say: 'Added the health check.' },
];

const budget: BudgetOptions = { window: 4000, at: 0.8, to: 0.5, keepSteps: 1, summarizer: 'extractive' };

for (const format of ['claude-code', 'openai-chat', 'codex'] as const) {
  test(`${format}: replay keeps a value masked in summaries made after its assignment was summarised`, async () => {
    const { write, file } = WRITERS[format];
    const dir = fs.mkdtempSync(path.join(tmp, `${format}-`));
    const input = path.join(dir, file);
    fs.writeFileSync(input, write(work));
    const outFile = path.join(dir, 'out.json');
    const lines: string[] = [];
    const exitCode = process.exitCode;
    try {
      await replayCommand(
        input,
        { ...budget, json: true, out: outFile },
        (l) => lines.push(l),
        () => undefined,
      );
    } finally {
      process.exitCode = exitCode;
    }
    const printed = lines.join('\n');
    const written = fs.readFileSync(outFile, 'utf8');
    const doc = JSON.parse(written) as { checkpoints: Array<{ summary: string; strategy: string }> };
    assert.ok(
      doc.checkpoints.filter((c) => c.strategy !== 'collapse').length >= 2,
      'the replay summarises more than once, so a later summary reads an earlier one',
    );
    assert.ok(!printed.includes(VALUE), `the printed report shows the value:\n${printed}`);
    const at = written.indexOf(VALUE);
    assert.equal(at, -1, `the --out file shows the value: …${written.slice(at - 300, at + 40)}`);
    assert.ok(fs.readFileSync(input, 'utf8').includes(VALUE), 'the recording keeps it');
  });
}
