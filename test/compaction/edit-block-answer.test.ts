/**
 * An edit block (a file's name alone above its fenced content: Aider's whole-file and SEARCH/REPLACE
 * formats, the same written by any agent as text) is a file change, never an answer's text: a turn
 * that ended with one is said to be an edit of that file, and its code is not quoted as what the
 * agent answered. A fence left open (a message cut short) is code to its end.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_WRITERS, sectionOf, summaryOf, type Step } from '../support/recordings';
import { answerText, editBlockFiles } from '../../src/compaction/summary/span-scan';

const CODE = [
  "'use client';",
  "import { useState, useEffect } from 'react';",
  'export default function StatusPage() {',
  "  const [status, setStatus] = useState('idle');",
  "  useEffect(() => setStatus('ready'), []);",
  '  return <main className="p-6">{status}</main>;',
  '}',
];
const BLOCK = [
  'src/app/status/page.tsx',
  '```',
  ...CODE,
  ...Array.from({ length: 30 }, (_, k) => `// card ${k} keeps its padding p-6 and margin m-4`),
  '```',
].join('\n');

const steps: Step[] = [
  { user: 'Look at the status page and tell me what it shows.' },
  { say: `It shows the broker status. ${'The cards list each broker with its state. '.repeat(10)}` },
  { user: 'Redesign src/app/status/page.tsx with more padding around the cards.' },
  { say: BLOCK },
  { user: 'Now add a refresh button to the status page header.' },
];

for (const format of ['aider', 'openai-chat', 'claude-code', 'cline'] as const) {
  test(`${format}: a turn that ended with an edit block is an edit, not an answer quoting its code`, async () => {
    const { write, file } = ALL_WRITERS[format];
    const { summary } = await summaryOf(write(steps), file);
    const current = sectionOf(summary, 'Current work and next step');
    assert.doesNotMatch(current, /use client|useState/, summary);
    assert.match(current, /was an edit of src\/app\/status\/page\.tsx \(a file change, no answer text\)/, summary);
  });
}

test('the prose of an answer leaves out edit blocks and a fence left open', () => {
  assert.equal(answerText(BLOCK), '');
  assert.deepEqual(editBlockFiles(BLOCK), ['src/app/status/page.tsx']);
  const cut = [
    'The page now has more padding around every card.',
    '',
    'src/app/status/page.tsx',
    '```',
    ...CODE.slice(0, 3),
  ].join('\n');
  assert.equal(answerText(cut), 'The page now has more padding around every card.');
  assert.deepEqual(editBlockFiles('No files changed in this answer, only advice.'), []);
});
