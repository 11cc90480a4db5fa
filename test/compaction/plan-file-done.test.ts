/**
 * A to-do item that names a file (`Create frontend/Dockerfile`) is carried out when the agent later
 * creates or edits that file: the summary does not show it pending (its "not done" status is
 * replaced by `[done since]`); an item whose file nothing changed stays as the list wrote it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';

const STEPS: Step[] = [
  { user: 'containerise the frontend and the worker' },
  {
    plan: [
      ['Build the React frontend', true],
      ['Create frontend/Dockerfile (nginx serving built assets)', false],
      ['Create worker/Dockerfile', false],
    ],
  },
  {
    tool: 'write',
    path: '/w/repo/frontend/Dockerfile',
    content: 'FROM nginx:alpine\nCOPY dist /usr/share/nginx/html\n',
  },
  { tool: 'bash', command: 'ls /w/repo/frontend', output: 'Dockerfile\nsrc\npackage.json' },
  { say: 'The frontend image is defined; the worker comes next.' },
];

for (const format of ['claude-code', 'openai-chat', 'codex', 'openhands', 'cline'] as const) {
  test(`${format}: a to-do item whose file was created later is not shown pending`, () => {
    const { write, file } = WRITERS[format];
    const items = itemsFromEntries(importTranscriptTextSync(write(STEPS), file).entries);
    const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 6000);
    const line = /^- (?:Latest )?[Pp]lan or to-do list.*$/m.exec(summary)?.[0];
    assert.ok(line, summary);
    const item = line.split(' | ').find((p) => p.includes('frontend/Dockerfile'));
    assert.ok(item, line);
    assert.doesNotMatch(item, /pending|in_progress|\[ \]/, item);
    assert.match(item, /done/, item);
    // Nothing created the worker's file: it stays not done.
    const worker = line.split(' | ').find((p) => p.includes('worker/Dockerfile'));
    assert.ok(worker, line);
    assert.doesNotMatch(worker, /done|completed|\[x\]/i, worker);
  });
}
