/**
 * A summary of a span that holds an earlier summary is never thinner about files than it: a file the
 * earlier summary listed and the new steps changed again is listed once, its earlier count of edits
 * added to the new ones ("edited 5×", never a bare "edited" beside the old line), and a file the
 * earlier summary named only by folder (`- in src/: a.ts`) is not named a second time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_WRITERS, chainedSummaries, sectionOf, type Step } from '../support/recordings';
import { buildLedger, LEDGER } from '../../src/compaction/summary/ledger/ledger';
import type { Action } from '../../src/compaction/summary/ledger/actions';

const filler = (n: number, w: string) => `${w} lorem ipsum dolor sit amet `.repeat(n);
const edit = (k: number): Step => ({ tool: 'edit', path: 'src/status_page.tsx', old: `v${k}`, new: `v${k + 1}` });

const first: Step[] = [
  { user: 'Restyle the status page cards.' },
  edit(1),
  edit(2),
  edit(3),
  { tool: 'write', path: 'src/status_card.tsx', content: 'export const StatusCard = () => null;' },
  { say: `Restyled. ${filler(20, 'style')}` },
];
const then: Step[] = [
  { user: 'Now make the badges green.' },
  edit(4),
  edit(5),
  { say: `Badges are green. ${filler(700, 'green')}` },
  { user: 'Thanks, and the footer?' },
];

for (const format of ['claude-code', 'codex', 'cline'] as const) {
  test(`${format}: a file changed before and after an earlier summary is listed once, with every edit counted`, async () => {
    const { write, file } = ALL_WRITERS[format];
    const { first: earlier, second } = await chainedSummaries(write, file, first, then, 8000);
    assert.match(earlier, /src\/status_page\.tsx: edited 3×/, earlier);
    const files = sectionOf(second, 'Files changed');
    const lines = files.split('\n').filter((l) => l.includes('status_page.tsx'));
    assert.equal(lines.length, 1, second);
    assert.match(lines[0], /edited 5×/, second);
    assert.match(files, /status_card\.tsx/, second);
  });
}

test('a file an earlier summary named by folder only is named once when changed again', () => {
  const earlier = new Map([[LEDGER.files, ['- in src/: status_page.tsx, status_card.tsx']]]);
  const actions: Action[] = [
    { kind: 'file', tool: 'Edit', path: 'src/status_page.tsx', op: 'edited', ok: true, symbols: [] },
  ];
  const ledger = buildLedger(actions, earlier);
  const named = ledger.files.filter((l) => l.includes('status_page.tsx'));
  assert.deepEqual(named, ['- src/status_page.tsx: edited'], ledger.files.join('\n'));
  assert.ok(
    ledger.files.some((l) => /^- in src\/: edited status_card\.tsx$/.test(l)),
    ledger.files.join('\n'),
  );
});
