/**
 * What an edit of a document changed is named by its headings, not by words of its prose that look
 * like code ("the architecture class" is no class). Recorded in Claude Code's and Codex's formats.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { symbolsIn } from '../../src/compaction/summary/ledger/actions';

const memo = [
  '# Project memory',
  '',
  'The architecture class of this service is a modular monolith; the interface Gateway stays.',
  '',
  '## GTM and product order',
  '',
  'Split mode first, then the agent.',
].join('\n');

test('symbolsIn: a document gives its headings; code gives its declarations', () => {
  assert.deepEqual(symbolsIn(memo, 'memory/MEMORY.md'), ['Project memory', 'GTM and product order']);
  assert.ok(symbolsIn(memo).includes('Gateway'), 'read as code, prose words look like names');
  assert.deepEqual(symbolsIn('export class Gateway {}\nfunction route() {}', 'src/gateway.ts'), ['route', 'Gateway']);
});

for (const format of ['claude-code', 'codex'] as const) {
  test(`${format}: the files section names a written document's headings, not prose words`, () => {
    const { write, file } = WRITERS[format];
    const steps: Step[] = [
      { user: 'write down what we decided in the memory file' },
      { tool: 'write', path: 'memory/MEMORY.md', content: memo },
      { say: 'Saved the decisions.' },
    ];
    const items = itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
    const notes = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 4000);
    const line = notes.split('\n').find((l) => l.includes('MEMORY.md') && l.includes('created')) ?? '';
    assert.match(line, /GTM and product order/, notes);
    assert.doesNotMatch(line, /architecture|Gateway/, notes);
  });
}
