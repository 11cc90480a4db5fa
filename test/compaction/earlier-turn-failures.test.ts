/**
 * A failure left when an earlier turn ended, after which the person typed a newer request, is no
 * open work: the summary lists it apart ("unresolved when that turn ended", or, for a command that
 * needed an interactive terminal, left for the user to run by hand), never as `open:` nor as the next
 * step; one a later variant of the same run fixed is fixed. The scorecard counts them as the summary
 * lists them (unresolved, not resolved), in several recording formats.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { errorSignatures } from '../../src/compaction/retention/errors';
import { INPUT_LINE, LEFT_LINE } from '../../src/compaction/summary/ledger/ledger';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const STEPS: Step[] = [
  { user: 'connect the app to the dev database' },
  {
    tool: 'bash',
    command: 'gcloud auth application-default login --no-launch-browser',
    output:
      'Once finished, enter the verification code provided in your browser: ERROR: gcloud crashed (EOFError): EOF when reading a line',
    ok: false,
  },
  {
    tool: 'bash',
    command: `node -e "new (require('pg').Pool)().query('SELECT 1').catch(e => { console.error('Error:', e.message); process.exit(1); })"`,
    output: 'Error: read ECONNRESET',
    ok: false,
  },
  { tool: 'bash', command: 'npm install pg', output: 'npm ERR! ERESOLVE unable to resolve dependency tree', ok: false },
  { done: 'Please run the sign-in yourself; the database refuses connections from this workstation.' },
  { user: 'Authentication complete. Now install pg and deploy with terraform.' },
  { tool: 'bash', command: 'npm install pg --legacy-peer-deps', output: 'added 1 package' },
  { tool: 'bash', command: 'terraform plan -out=tfplan', output: 'Plan: 3 to add, 0 to change, 0 to destroy.' },
  { say: 'The plan is ready to apply.' },
];

for (const format of ['cline', 'claude-code', 'codex', 'openhands'] as const) {
  test(`${format}: failures an earlier turn left are listed apart, never open work or the next step`, () => {
    const { write, file } = WRITERS[format];
    const entries = importTranscriptTextSync(write(STEPS), file).entries;
    const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(itemsFromEntries(entries), 6000);
    assert.doesNotMatch(summary, /^- open:/m, summary);
    assert.match(
      summary,
      new RegExp(`^${escape(INPUT_LINE)}\`gcloud auth application-default login --no-launch-browser\``, 'm'),
      summary,
    );
    assert.match(summary, new RegExp(`^${escape(LEFT_LINE)}\`node -e `, 'm'), summary);
    // A later variant of the same run succeeded: fixed, not left.
    assert.match(summary, /^- fixed: `npm install pg` failed[^\n]*--legacy-peer-deps/m, summary);
    assert.doesNotMatch(summary, /Next step: resolve|failures not fixed/, summary);
    // The scorecard, by the same rule: the two left are unresolved, the install resolved.
    const errors = errorSignatures(entries, 0, entries.length);
    const state = (prefix: string) => errors.find((e) => e.key.startsWith(prefix))?.state;
    assert.equal(state('gcloud auth application-default login'), 'open');
    assert.equal(state('node -e'), 'open');
    assert.equal(state('npm install pg'), 'resolved');
  });
}
