/**
 * A checkpoint's scorecard labels the span's failures by the rule its summary used, in several
 * recording formats: an edit whose report says it changed nothing is a failure for both (where the
 * recording states no flag, SWE-agent), and a failure fixed by a run in the newest steps kept after
 * the summary is resolved for both (the summary says "fixed … in the steps kept after this summary").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, compactExtractive, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { textWithPlaceholders } from '../../src/compaction/content-text';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

const STEPS: Step[] = [
  { user: 'keep the dtypes of the selected columns' },
  {
    tool: 'edit',
    path: '/w/out.py',
    old: 'def wrap(data):',
    new: 'def wrap(data, dtypes=None):',
    result: 'No replacement was performed, old_str `def wrap(data):` did not appear verbatim in /w/out.py.',
    ok: false,
  },
  { tool: 'edit', path: '/w/out.py', old: 'def wrap(data, columns):', new: 'def wrap(data, columns, dtypes=None):' },
  {
    tool: 'bash',
    command: 'python /w/repro.py',
    output: `Traceback (most recent call last):\n  File "/w/repro.py", line 3, in <module>\n    wrap(x)\nKeyError: 'cat'`,
    ok: false,
  },
  // Prose a collapse of tool results cannot shorten: the span must be summarized.
  ...Array.from({ length: 6 }, (_, k): Step[] => [
    { tool: 'read', path: `/w/mod${k}.py`, output: filler(60) },
    { say: `Module ${k} holds no dtype handling. ${filler(60)}` },
  ]).flat(),
  { tool: 'bash', command: 'python /w/repro.py', output: 'Output dtypes:\ncat    category' },
];

for (const format of ['swe-agent', 'claude-code', 'openhands'] as const) {
  test(`${format}: the scorecard counts open and resolved failures as the summary lists them`, async () => {
    const { write, file } = WRITERS[format];
    const items = itemsFromEntries(importTranscriptTextSync(write(STEPS), file).entries);
    const r = await compactExtractive(items, 5200);
    const cp = r.checkpoints.find((c) => c.strategy === 'extractive');
    assert.ok(
      cp?.retention,
      `${format}: no scorecard: ${JSON.stringify(r.status)} ${r.checkpoints.map((c) => c.strategy).join(', ')}`,
    );
    const summary = textWithPlaceholders(cp.inserted.find((i) => i.kind === 'summary')!.message.content);
    // The passing run stays after the summary: the failure it fixed is fixed in both.
    assert.match(
      summary,
      /^- fixed: `python \/w\/repro\.py` failed[^\n]*in the steps kept after this summary/m,
      summary,
    );
    assert.match(summary, /^- fixed: changing \/w\/out\.py failed/m, summary);
    assert.doesNotMatch(summary, /^- open:/m, summary);
    const fixed = summary.split('\n').filter((l) => l.startsWith('- fixed:')).length;
    assert.deepEqual(
      { open: cp.retention.errors.open, resolved: cp.retention.errors.resolved },
      { open: 0, resolved: fixed },
      summary,
    );
  });
}
