/**
 * Only real constraints are standing rules, in the summary's "Standing rules" section and the
 * constraint gold set alike (one sentence rule), in several recording formats: a goal statement
 * ("This application must be refactored …") and a pointer ("DO NOT skip this.") are not rules; an
 * instruction over every instance of an action ("Explain each command … before …") is; an obligation
 * whose subject points back at the request's own items ("Both must have "dev" in their names.") is a
 * detail of that request, not a rule. Claude Code's recovery prompt
 * "Continue from where you left off.", sent alone after an interruption, is the harness's, never a
 * request of the user's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_WRITERS, WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { constraintSentences, typedRequests } from '../../src/compaction/retention/requests';
import { userTextAuthor } from '../../src/compaction/harness-text';

const REQUEST = [
  'This application must be refactored to run in the new infrastructure.',
  'DO NOT skip this. Create a dev bucket and a dev database for local testing.',
  'Both must have "dev" in their names.',
  "Explain each command you'd like to execute before asking to execute.",
].join('\n');

/** The lines of the standing rules section of `summary`. */
function rules(summary: string): string {
  const at = summary.indexOf("## Standing rules (the user's words, verbatim)");
  if (at < 0) return '';
  const end = summary.indexOf('\n## ', at + 1);
  return summary.slice(at, end < 0 ? undefined : end);
}

for (const format of ['cline', 'claude-code', 'codex', 'aider'] as const) {
  test(`${format}: goal statements, pointers and details of the request's own items are no rules; every-instance instructions are`, () => {
    const { write, file } = ALL_WRITERS[format];
    const steps: Step[] = [
      { user: REQUEST },
      { tool: 'write', path: '.env.local', content: 'BUCKET=dev-media' },
      { say: 'Created the dev environment file.' },
    ];
    const entries = importTranscriptTextSync(write(steps), file).entries;
    const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(itemsFromEntries(entries), 6000);
    const section = rules(summary);
    assert.doesNotMatch(section, /Both must have "dev" in their names\./, summary);
    assert.match(section, /Explain each command you'd like to execute before asking to execute\./, summary);
    assert.doesNotMatch(section, /must be refactored/, summary);
    assert.doesNotMatch(section, /DO NOT skip this/, summary);
    // The constraint gold set reads the same sentences.
    const typed = typedRequests(entries).map((t) => t.text);
    const gold = typed.flatMap((t) => constraintSentences(t));
    assert.deepEqual(gold, ["Explain each command you'd like to execute before asking to execute."]);
  });
}

/** Descriptions of the task's goal beside real rules, in one request. */
const GOALS = [
  'Please double-check the main.tf file.',
  'You must ensure that the Cloud Run service is explicitly configured to run as the app-runner service account.',
  'The Cloud Run service must be configured with two instances at least.',
  'Preserving dtypes for DataFrame output by transformers that do not modify the input values.',
  'DO NOT touch or destroy any resources in the old project.',
  'The old project must not be changed.',
  'You must ensure that the staging database is backed up before each migration.',
].join('\n');

for (const format of ['cline', 'claude-code', 'codex', 'aider'] as const) {
  test(`${format}: what the task asks to bring about is no rule; bounds on later work are`, () => {
    const { write, file } = ALL_WRITERS[format];
    const steps: Step[] = [
      { user: 'deploy the app to the new project' },
      { say: 'Deployed to the new project.' },
      { user: GOALS },
      { tool: 'write', path: 'terraform/main.tf', content: 'service_account_name = "app-runner"' },
      { say: 'Set the service account.' },
    ];
    const entries = importTranscriptTextSync(write(steps), file).entries;
    const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(itemsFromEntries(entries), 6000);
    const section = rules(summary);
    assert.doesNotMatch(
      section,
      /explicitly configured|configured with two instances|do not modify the input/,
      summary,
    );
    const gold = typedRequests(entries).flatMap((t) => constraintSentences(t.text));
    assert.deepEqual(gold, [
      'DO NOT touch or destroy any resources in the old project.',
      'The old project must not be changed.',
      'You must ensure that the staging database is backed up before each migration.',
    ]);
    for (const rule of gold) assert.ok(section.includes(rule), summary);
  });
}

for (const format of ['claude-code', 'openai-chat'] as const) {
  test(`${format}: the harness's "Continue from where you left off." is no request of the user's`, () => {
    const { write, file } = WRITERS[format];
    const steps: Step[] = [
      { user: 'write the service tests' },
      { say: "You've hit your limit · resets 3pm" },
      { user: 'Continue from where you left off.' },
      { say: 'No response requested.' },
      { user: 'ok, now add the API tests' },
    ];
    const entries = importTranscriptTextSync(write(steps), file).entries;
    const typed = typedRequests(entries).map((t) => t.text);
    assert.deepEqual(typed, ['write the service tests', 'ok, now add the API tests']);
    const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(itemsFromEntries(entries), 6000);
    assert.doesNotMatch(summary, /Continue from where you left off/, summary);
  });
}

test('only the recovery prompt sent alone is the harness', () => {
  assert.equal(userTextAuthor('Continue from where you left off.').by, 'harness');
  assert.equal(userTextAuthor('Continue from where you left off, and add the API tests too.').by, 'user');
});
