/**
 * A failure left when an earlier turn ended, after which the person typed a newer request, is no
 * open work: the summary lists it apart ("unresolved when that turn ended", or, for a command that
 * needed an interactive terminal, left for the user to run by hand), never as `open:` nor as the next
 * step; one a later variant of the same run fixed is fixed. The scorecard counts them as the summary
 * lists them (unresolved, not resolved), apart from open errors of the latest request, in several
 * recording formats.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import {
  mergeScorecards,
  retentionScorecard,
  scorecardDetails,
  scorecardLine,
} from '../../src/compaction/retention/scorecard';
import { leftWhenTurnEnded } from '../../src/compaction/earlier-turn';
import type { ContextItem } from '../../src/compaction/types';
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

for (const format of ['cline', 'claude-code', 'codex'] as const) {
  test(`${format}: the scorecard counts failures an earlier turn left apart from open errors`, () => {
    const { write, file } = WRITERS[format];
    // A failure of the latest request stays open work: counted among open errors.
    const steps: Step[] = [
      ...STEPS.slice(0, -1),
      { tool: 'bash', command: 'terraform apply tfplan', output: 'Error: insufficient permissions', ok: false },
      { say: 'The apply needs more permissions.' },
    ];
    const replaced = itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
    const notes = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(replaced, 6000);
    const inserted: ContextItem = {
      id: 'cp~s',
      kind: 'summary',
      message: { role: 'user', content: notes },
      covers: [],
      checkpointId: 'cp',
    };
    const card = retentionScorecard({ replaced, inserted: [inserted] })!;
    assert.equal(card.errors.open, 1, JSON.stringify(card.errors));
    assert.equal(card.errors.earlierTurn, 2, JSON.stringify(card.errors));
    const line = scorecardLine(card);
    assert.match(line, /open errors 1\/1 named, unresolved from earlier turns 2\/2 named/, line);
    assert.ok(
      scorecardDetails(card).some((l) => /^Errors unresolved when an earlier turn ended: 2 \(2 still named\)/.test(l)),
      scorecardDetails(card).join('\n'),
    );
    // A request typed after the span makes every failure of it an earlier turn's.
    const later = retentionScorecard({ replaced, inserted: [inserted] }, [
      { id: 'u9', kind: 'raw', message: { role: 'user', content: 'now roll it back' } } as ContextItem,
    ])!;
    assert.equal(later.errors.open, 0, JSON.stringify(later.errors));
    assert.equal(later.errors.earlierTurn, 3, JSON.stringify(later.errors));
    // Run together with a card that has none, the counts still add up apart.
    const merged = mergeScorecards([card, { ...card, errors: { open: 1, openNamed: 1, resolved: 0, shownOpen: 0 } }]);
    assert.equal(merged?.errors.open, 2);
    assert.equal(merged?.errors.earlierTurn, 2);
  });
}

test('one rule: a failure is left by an earlier turn when a request was typed after its last failing run', () => {
  assert.equal(leftWhenTurnEnded(3, 5, false), true);
  assert.equal(leftWhenTurnEnded(6, 5, false), false);
  assert.equal(leftWhenTurnEnded(6, 5, true), true);
  assert.equal(leftWhenTurnEnded(3, -1, false), false);
});
