/**
 * A chain `a && … | grep x` that exits 1 is a search that found nothing only when the output shows
 * the earlier steps ran; otherwise the summary says plainly that the search found nothing or an
 * earlier step failed. Either way it is no failure to fix. Recorded in Claude Code's, Codex's and
 * Cline's formats.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { probeAnswer } from '../../src/compaction/retention/outcome';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

test('probeAnswer: a chain whose earlier step may have failed says so; one whose output shows it ran is a plain "no match"', () => {
  const chain = 'pnpm --version && cat package.json | grep packageManager';
  assert.equal(probeAnswer(chain, '', 1, false), 'no match, or an earlier part failed');
  assert.equal(probeAnswer(chain, '10.33.2\n', 1, false), 'no match');
  assert.equal(probeAnswer('cat package.json | grep packageManager', '', 1, false), 'no match');
  assert.equal(probeAnswer('cd /w && grep -rn legacyOrders src', '', 1, false), 'no match');
  assert.equal(probeAnswer('npm ci; grep -rn legacyOrders src', '', 1, false), 'no match');
  assert.equal(probeAnswer('npm ci && grep -rn legacyOrders src', '', 1, false), 'no match, or an earlier part failed');
});

for (const format of ['claude-code', 'codex', 'cline'] as const) {
  test(`${format}: a chain exiting 1 is reported as "no match, or an earlier part failed" unless its output shows the earlier step ran`, () => {
    const { write, file } = WRITERS[format];
    const steps: Step[] = [
      { user: 'check which package manager the project pins' },
      {
        tool: 'bash',
        command: 'pnpm --version && cat package.json | grep packageManager',
        output: '',
        ok: false,
        exit: 1,
      },
      {
        tool: 'bash',
        command: 'node --version && cat package.json | grep engines',
        output: 'v22.16.0',
        ok: false,
        exit: 1,
      },
      { say: `Neither field is set. ${filler(20)}` },
      { tool: 'read', path: 'package.json', output: `{"name": "x"}\n${filler(10)}` },
    ];
    const entries = importTranscriptTextSync(write(steps), file).entries;
    const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(itemsFromEntries(entries), 6000);
    assert.match(
      summary,
      /`pnpm --version && cat package\.json \| grep packageManager` → no match, or an earlier part failed/,
      summary,
    );
    assert.match(summary, /`node --version && cat package\.json \| grep engines` → no match \(exit 1\)/, summary);
    assert.doesNotMatch(summary, /^- open:/m, summary);
  });
}
