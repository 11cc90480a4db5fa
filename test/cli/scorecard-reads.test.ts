/**
 * A span whose only countable work is files read (the agent looked around, changed nothing, and its
 * request stays after the summary) still has a scorecard line that says what the card holds, and
 * `compact` prints no empty line for it. The same work in several recording formats.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { WRITERS, compactExtractive, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { scorecardLine } from '../../src/compaction/retention/scorecard';

const repo = path.resolve(__dirname, '../../..');
const cli = path.join(repo, 'dist/cli.js');
const exec = promisify(execFile);

const files = Array.from({ length: 6 }, (_, i) => `src/parts/part-${i}.ts`);
const work: Step[] = [
  { user: 'find where the parser lives and how it is wired to the cli' },
  ...files.map((p, i): Step => ({
    tool: 'read',
    path: p,
    output: `export const part${i} = ${i};\n${'// notes\n'.repeat(120)}`,
  })),
];

const FORMATS = ['codex', 'claude-code'] as const;

for (const format of FORMATS) {
  test(`${format}: a scorecard of files read alone says so in its line`, async () => {
    const { write, file } = WRITERS[format];
    const t = importTranscriptTextSync(write(work), file);
    const r = await compactExtractive(itemsFromEntries(t.entries), 1200);
    const cards = r.checkpoints.flatMap((c) => (c.retention ? [c.retention] : []));
    assert.ok(cards.length > 0, `a checkpoint is scored: ${r.checkpoints.map((c) => c.strategy).join(', ')}`);
    for (const card of cards) {
      const line = scorecardLine(card);
      assert.notEqual(line.trim(), '', JSON.stringify(card));
      assert.ok(card.filesRead.total > 0, JSON.stringify(card));
      assert.match(line, new RegExp(`files read ${card.filesRead.named}/${card.filesRead.total} named`));
    }
  });
}

const skip = fs.existsSync(cli) ? false : 'needs a built dist/cli.js (npm run build)';
for (const format of ['codex', 'claude-code'] as const) {
  test(`${format}: compact prints no empty scorecard line for a span of reads`, { skip }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-reads-'));
    const { write, file } = WRITERS[format];
    const at = path.join(dir, file);
    fs.writeFileSync(at, write(work));
    const { stdout } = await exec(process.execPath, [cli, 'compact', at, '--window', '1200']);
    const lines = stdout.split('\n').slice(0, -1);
    assert.ok(
      lines.some((l) => l.startsWith('  checkpoint ') && / extractive /.test(l)),
      stdout,
    );
    assert.deepEqual(
      lines.filter((l) => l.trim() === ''),
      [],
      stdout,
    );
    assert.match(stdout, /^ {4}kept: .*files read \d+\/\d+ named/m, stdout);
  });
}
