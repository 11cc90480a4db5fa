/**
 * A file named as `x` and as `./x` in tool-call arguments is one identifier: the back-filled list
 * names it once. Recorded in Claude Code's and Codex's formats.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { backfillIdentifiers } from '../../src/compaction/summary/identifiers/backfill';

for (const format of ['claude-code', 'codex'] as const) {
  test(`${format}: STATUS.md and ./STATUS.md are listed once`, () => {
    const { write, file } = WRITERS[format];
    const steps: Step[] = [
      { user: 'update the status notes' },
      { tool: 'bash', command: 'wc -l STATUS.md HACKATHON_PLAN.md', output: '10 STATUS.md\n4 HACKATHON_PLAN.md' },
      { tool: 'bash', command: 'head -5 ./STATUS.md ./HACKATHON_PLAN.md', output: '# Status\n# Plan' },
      { say: 'Both files are short.' },
    ];
    const items = itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
    const { added } = backfillIdentifiers('## Current work and next step\n- none', items, 50_000);
    const status = added.filter((id) => id.replace(/^\.\//, '') === 'STATUS.md');
    assert.equal(status.length, 1, added.join('\n'));
    assert.equal(added.filter((id) => id.replace(/^\.\//, '') === 'HACKATHON_PLAN.md').length, 1, added.join('\n'));
  });
}
