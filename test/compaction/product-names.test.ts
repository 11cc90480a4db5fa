/**
 * A dotted name is a file only where the work used it as one: `Next.js`, `Node.js` and `Vue.js` said
 * in a request or shown in a tool's output are products, not files of the identifier lists; a name of
 * that shape a tool call opened or wrote is a file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { backfillIdentifiers } from '../../src/compaction/summary/identifiers/backfill';
import { A, Acalls, T, U, items } from '../support/conversation';

test('product names are no files; a name a tool call used as a file is one', () => {
  const span = items([
    U('port the dashboard from Vue.js to Next.js on Node.js 20; keep Settings.js'),
    Acalls([['c1', 'read_file', JSON.stringify({ path: 'Settings.js' })]]),
    T('c1', 'Settings.js: export default { theme: "dark" } // used by Next.js and Charts.js'),
    A('Read the settings; Next.js will load them.'),
  ]);
  const { added } = backfillIdentifiers('## Current work and next step\n- none', span, 2000);
  assert.ok(added.includes('Settings.js'), added.join('\n'));
  for (const product of ['Next.js', 'Node.js', 'Vue.js', 'Charts.js'])
    assert.ok(!added.includes(product), added.join('\n'));
});

const work: Step[] = [
  { user: 'upgrade the app to the latest Next.js and Node.js 22' },
  {
    tool: 'read',
    path: 'package.json',
    output: '{ "dependencies": { "next": "14.2.0" } }\nBuilt with Next.js, styled like Vue.js docs.',
  },
  {
    tool: 'bash',
    command: 'npm run build 2>&1 | tail -3',
    output:
      '▲ Next.js 14.2.0\nCompiled web/Layout.js on Node.js 20.11.1\nwarning in src/app/page.tsx: Vue.js-style slot',
  },
  { say: `Next.js and Node.js versions checked. ${'The upgrade path is clear now. '.repeat(50)}` },
  { user: 'go on' },
  { say: 'ok' },
];

for (const format of ['claude-code', 'codex', 'cline'] as const) {
  test(`${format}: the identifier lists hold no product names taken for files`, () => {
    const { write, file } = WRITERS[format];
    const span = itemsFromEntries(importTranscriptTextSync(write(work), file).entries);
    const { added } = backfillIdentifiers('## Current work and next step\n- none', span, 4000);
    for (const product of ['Next.js', 'Node.js', 'Vue.js']) assert.ok(!added.includes(product), added.join('\n'));
    // A path of that shape is a file by its folder.
    assert.ok(added.includes('web/Layout.js'), added.join('\n'));
  });
}
