/**
 * A command whose output says it needed a terminal that can take input ("Input redirection is not
 * supported", an `EOFError` at a prompt) is said to be left for the user to run by hand only when the
 * agent did not run it again itself: a run of the same last step right after (its `timeout /t 3 >nul
 * &&` or `cd` steps dropped) shows the agent carried on with it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { INPUT_LINE, LEFT_LINE } from '../../src/compaction/summary/ledger/ledger';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const QUERY = `node -e "require('pg').Pool && console.log('db: ' + process.env.DB)"`;

const STEPS: Step[] = [
  { user: 'check the database connection' },
  {
    tool: 'bash',
    command: `timeout /t 3 /nobreak >nul && cd c:\\app && ${QUERY}`,
    output: 'ERROR: Input redirection is not supported, exiting the process immediately.',
    ok: false,
  },
  { tool: 'bash', command: `cd c:\\app && ${QUERY}`, output: 'Error: read ECONNRESET', ok: false },
  {
    tool: 'bash',
    command: 'gcloud auth login --no-launch-browser',
    output: 'Enter the verification code: ERROR: gcloud crashed (EOFError): EOF when reading a line',
    ok: false,
  },
  { done: 'Please sign in with gcloud yourself; the database still resets the connection.' },
  { user: 'Signed in. Now add a health endpoint.' },
  { tool: 'write', path: '/w/src/health.ts', content: 'export const health = () => "ok";\n' },
  { say: 'The health endpoint is in place.' },
];

for (const format of ['cline', 'claude-code', 'codex', 'openhands'] as const) {
  test(`${format}: a command the agent ran again itself is not left for the user to run by hand`, () => {
    const { write, file } = WRITERS[format];
    const items = itemsFromEntries(importTranscriptTextSync(write(STEPS), file).entries);
    const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 6000);
    assert.doesNotMatch(summary, new RegExp(`^${escape(INPUT_LINE)}\`timeout`, 'm'), summary);
    assert.match(summary, new RegExp(`^${escape(LEFT_LINE)}\`timeout /t 3`, 'm'), summary);
    // A sign-in nobody ran again was the person's to run.
    assert.match(summary, new RegExp(`^${escape(INPUT_LINE)}\`gcloud auth login`, 'm'), summary);
  });
}
