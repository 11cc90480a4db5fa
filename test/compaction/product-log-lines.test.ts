/**
 * A product's name in a log line (`▲ next.js 14.2.3`, a dev server's timing `(next.js: 3.0s, …)`,
 * `node.js v20.11.1`) names no file, in whatever case it is written; a file of the same shape the
 * work ran is one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { backfillIdentifiers } from '../../src/compaction/summary/identifiers/backfill';

const LOG = [
  '  ▲ next.js 14.2.3',
  '  - Local: http://localhost:9002',
  ' ✓ Compiled /report in 2.3s',
  ' GET / 200 in 3.3s (next.js: 3.0s, application-code: 305ms)',
  ' POST /report 200 in 655ms (next.js: 34ms, application-code: 620ms)',
  'running on node.js v20.11.1 with server.js',
].join('\n');

const work: Step[] = [
  { user: `the report page is slow, here is the log:\n${LOG}` },
  { tool: 'bash', command: 'node server.js --port 9002', output: LOG },
  {
    say: `The page itself is quick. ${'Most of the time goes to the application code, not the framework. '.repeat(300)}`,
  },
  { user: 'thanks' },
  { say: 'ok' },
];

for (const format of ['claude-code', 'codex', 'cline', 'openhands'] as const) {
  test(`${format}: a product named in a log line is no file of the identifier lists`, () => {
    const { write, file } = WRITERS[format];
    const span = itemsFromEntries(importTranscriptTextSync(write(work), file).entries);
    const { added } = backfillIdentifiers('## Current work and next step\n- none', span, 4000);
    for (const product of ['next.js', 'node.js']) assert.ok(!added.includes(product), added.join('\n'));
    assert.ok(added.includes('server.js'), added.join('\n'));
  });
}
