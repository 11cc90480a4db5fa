/**
 * A command whose output says it needed a terminal that can take input ("Input redirection is not
 * supported", an `EOFError` at a prompt) is said to be left for the user to run by hand only when the
 * agent did not run it again itself: a run of the same last step right after (its `timeout /t 3 >nul
 * &&` or `cd` steps dropped) shows the agent carried on with it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chainedSummaries, compactExtractive, WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { INPUT_LINE, LEFT_LINE } from '../../src/compaction/summary/ledger/ledger';
import { maskSecretValues, spanSecretValues } from '../../src/compaction/secret-values';
import { recallPointer } from '../../src/compaction/summary/recall-pointer';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import type { ContextItem } from '../../src/compaction/types';

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

// The first summary could not know the agent would run the step again: the summary after it, whose
// messages hold that run, judges the line it carries again.
const FIRST: Step[] = [
  { user: 'check the database connection' },
  {
    tool: 'bash',
    command: `timeout /t 3 /nobreak >nul && cd c:\\app && ${QUERY}`,
    output: 'ERROR: Input redirection is not supported, exiting the process immediately.',
    ok: false,
  },
  { done: 'The check needs a terminal that takes input; please run it yourself.' },
  { user: 'Now add a health endpoint.' },
  { tool: 'write', path: '/w/src/health.ts', content: 'export const health = () => "ok";\n' },
  { say: 'The health endpoint is in place.' },
];
const THEN: Step[] = [
  { user: 'The database check still matters: look at it again.' },
  { tool: 'bash', command: `cd c:\\app && ${QUERY}`, output: 'Error: read ECONNRESET', ok: false },
  { say: `The database resets the connection. ${'reset lorem ipsum dolor sit amet '.repeat(700)}` },
  { user: 'Thanks, leave it for now.' },
];

for (const format of ['cline', 'claude-code', 'codex'] as const) {
  test(`${format}: a step an earlier summary left for the user is not left for the user once the agent ran it again`, async () => {
    const { write, file } = WRITERS[format];
    const { first, second } = await chainedSummaries(write, file, FIRST, THEN, 8000);
    assert.match(first, new RegExp(`^${escape(INPUT_LINE)}\`timeout /t 3`, 'm'), first);
    assert.doesNotMatch(second, new RegExp(`^${escape(INPUT_LINE)}\`timeout`, 'm'), second);
    assert.match(second, new RegExp(`^${escape(LEFT_LINE)}\`timeout /t 3`, 'm'), second);
  });
}

// The failure was still open when the first summary was written; the run again and a newer request
// came after it: the second summary relabels the carried line, and the run again decides how.
const OPEN_FIRST: Step[] = [
  { user: 'check the database connection' },
  {
    tool: 'bash',
    command: `timeout /t 3 /nobreak >nul && cd c:\\app && ${QUERY}`,
    output: 'ERROR: Input redirection is not supported, exiting the process immediately.',
    ok: false,
  },
];
const OPEN_THEN: Step[] = [
  { tool: 'bash', command: `cd c:\\app && ${QUERY}`, output: 'Error: read ECONNRESET', ok: false },
  { say: 'The database resets the connection.' },
  { user: 'Now add a health endpoint.' },
  { tool: 'write', path: '/w/src/health.ts', content: 'export const health = () => "ok";\n' },
  { say: `The health endpoint is in place. ${'health lorem ipsum dolor sit amet '.repeat(700)}` },
  { user: 'Thanks.' },
];

for (const format of ['cline', 'claude-code', 'codex'] as const) {
  test(`${format}: a failure an earlier summary left open that the agent ran again after it is not left for the user`, async () => {
    const { write, file } = WRITERS[format];
    const { first, second } = await chainedSummaries(write, file, OPEN_FIRST, OPEN_THEN, 8000);
    assert.match(first, /^- open: `timeout \/t 3/m, first);
    assert.doesNotMatch(second, new RegExp(`^${escape(INPUT_LINE)}\`timeout`, 'm'), second);
    assert.match(second, new RegExp(`^${escape(LEFT_LINE)}\`timeout /t 3`, 'm'), second);
  });
}

// A command over the ledger's key length with a password in it: the earlier summary wrote its key cut
// at its end and the password masked, and the run again still reads as the same step.
const LONG_QUERY = `node -e "const { Pool } = require('pg'); const pool = new Pool({ host: '127.0.0.1', port: 5432, database: 'dev_db', user: 'app_user', password: 'DevPass2024Xq!' }); pool.query('SELECT current_database() as db').then(r => { console.log('Connected to: ' + r.rows[0].db); pool.end(); }).catch(e => { console.error('Error: ' + e.message); pool.end(); })"`;

/** The second summary of a chain whose first summary was masked as the compactor masks it. */
async function maskedChain(write: (steps: readonly Step[]) => string, file: string, first: Step[], then: Step[]) {
  const before = itemsFromEntries(importTranscriptTextSync(write(first), file).entries);
  const all = itemsFromEntries(importTranscriptTextSync(write([...first, ...then]), file).entries);
  const notes = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(before, 8000);
  const text = `${maskSecretValues(notes, spanSecretValues(before))}\n\n${recallPointer('cp-first', before.length)}`;
  const earlier: ContextItem = {
    id: 'cp~s',
    kind: 'summary',
    message: { role: 'user', content: text },
    covers: before.map((i) => i.id),
    checkpointId: 'cp',
  };
  const r = await compactExtractive([earlier, ...all.slice(before.length)], 8000);
  const s = r.context.find((i) => i.kind === 'summary' && i !== earlier);
  assert.ok(s, 'a second summary');
  return { first: text, second: textWithPlaceholders(s.message.content) };
}

for (const format of ['cline', 'claude-code'] as const) {
  test(`${format}: a long command with a secret, carried cut and masked, is matched by the agent's run again`, async () => {
    const { write, file } = WRITERS[format];
    const long = (steps: Step[]): Step[] =>
      steps.map((s) =>
        'tool' in s && s.tool === 'bash' ? { ...s, command: s.command.replace(QUERY, LONG_QUERY) } : s,
      );
    const { first, second } = await maskedChain(write, file, long(OPEN_FIRST), long(OPEN_THEN));
    assert.match(first, /^- open: `timeout \/t 3[^`]*\[masked [a-z ]+\][^`]*…`/m, first);
    assert.doesNotMatch(second, new RegExp(`^${escape(INPUT_LINE)}\`timeout`, 'm'), second);
    assert.match(second, new RegExp(`^${escape(LEFT_LINE)}\`timeout /t 3`, 'm'), second);
  });
}
