/**
 * Notices a harness writes in the agent's (assistant) role are not the agent's answers: Claude
 * Code's "No response requested." (its reply to its own recovery prompt), usage-limit notices and
 * "API Error: …" replies, kept word for word when a session is converted to another format, and an
 * interruption marker appended to a real answer (Cline "[Response interrupted by API Error]"). The
 * answers section lists the agent's findings alone. Recorded in each agent's format.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_WRITERS, WRITERS, summaryOf, type Step } from '../support/recordings';
import { ANSWERS_HEADING } from '../../src/compaction/summary/quoted-summary';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';

const filler = (n: number) => 'the import keeps every counted message as it was recorded '.repeat(n);

const FINDING = `Found it: the meter reads usage from the last response only, so imported sessions show 0. ${filler(100)}`;
const INTERRUPTED = `The proxy account lacks the Cloud SQL Client role, so the connection is refused. ${filler(100)}`;

const NOTICES = [
  "You've hit your limit · resets 3pm (Europe/Paris)",
  'No response requested.',
  'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
  'Claude AI usage limit reached|1767225600',
];

const steps: Step[] = [
  { user: 'Add a test for the meter import path.' },
  { tool: 'write', path: 'test/meter-import.test.ts', content: 'test("imports", () => {});' },
  { say: NOTICES[0] },
  { user: 'Continue from where you left off.' },
  { say: NOTICES[1] },
  { user: 'ok before that how do i use my other account' },
  { say: NOTICES[2] },
  { user: 'try again, I am on the VPN now' },
  { say: NOTICES[3] },
  { user: 'Find why the meter shows 0 for imported sessions.' },
  { tool: 'bash', command: 'node meter.mjs session.jsonl', output: 'tokens: 0' },
  { done: FINDING },
  { user: 'Why does the proxy refuse the connection?' },
  { tool: 'bash', command: 'gcloud sql instances describe dev', output: 'state: RUNNABLE' },
  { say: `${INTERRUPTED}\n\n[Response interrupted by API Error]` },
  { user: 'ok, how do I switch accounts?' },
  { say: 'To switch accounts, log out and log in with the other account; now writing the test.' },
  { user: 'now run the tests' },
  { tool: 'bash', command: 'npm test', output: '12 passed' },
  { say: 'All 12 tests pass.' },
];

/** The answers section of `notes` (empty when none was written). */
const answersOf = (notes: string) => {
  const at = notes.indexOf(ANSWERS_HEADING);
  return at < 0 ? '' : notes.slice(at).split('\n\n')[0];
};

const noNotices = (summary: string) => {
  for (const notice of NOTICES) assert.ok(!summary.includes(notice.slice(0, 20)), `${notice}\n${summary}`);
  assert.doesNotMatch(summary, /Response interrupted/, summary);
};

for (const [format, { write, file }] of Object.entries(WRITERS)) {
  test(`${format}: a harness notice in the agent's role is never listed among the agent's answers`, () => {
    const items = itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
    const notes = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 4000);
    const answers = answersOf(notes);
    // The section is written with the real findings, so the notices' absence from it proves something.
    assert.match(answers, /^- \(to "[^\n]*"\) "Found it: the meter/m, notes);
    // The words before an interruption marker are the agent's answer; the marker is not.
    assert.match(answers, /^- \(to "[^\n]*"\) "The proxy account lacks/m, notes);
    assert.match(answers, /^- \(to "[^\n]*"\) "To switch accounts/m, notes);
    noNotices(notes);
  });
}

for (const format of ['claude-code', 'openai-chat'] as const) {
  test(`${format}: a compaction at the default window lists the findings and none of the harness notices`, async () => {
    const { write, file } = WRITERS[format];
    const { summary } = await summaryOf(write(steps), file);
    assert.match(answersOf(summary), /"Found it: the meter reads usage/, summary);
    noNotices(summary);
  });
}

test("aider: a reply that only applied an edit is no answer: its file name and Aider's notices are not the agent's words", () => {
  const { write, file } = ALL_WRITERS.aider;
  const edited: Step[] = [
    { user: 'add padding 25px inside each card' },
    { tool: 'edit', path: 'src/components/MachineCard.tsx', old: 'p-4', new: 'p-[25px]' },
    { user: 'Why is the header gray in dark mode?' },
    { say: FINDING },
    { user: 'ok thanks' },
    { say: 'You are welcome.' },
  ];
  const items = itemsFromEntries(importTranscriptTextSync(write(edited), file).entries);
  const notes = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 4000);
  const answers = answersOf(notes);
  assert.match(answers, /^- \(to "Why is the header gray in dark mode\?"\) "Found it: the meter/m, notes);
  assert.doesNotMatch(answers, /add padding 25px|Applied edit|MachineCard/, notes);
});
