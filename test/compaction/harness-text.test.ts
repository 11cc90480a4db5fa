/**
 * Only the user's words are the user's: blocks and notices a harness writes into user messages
 * (Cline's environment details, to-do reminders and feedback preambles; Claude Code's reminders and
 * continuation notes) are never typed requests, never "(user)" in a summary, never "You" in the sidebar.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { typedRequests } from '../../src/compaction/retention/requests';
import { typedRequestOf } from '../../src/compaction/summary/requests';
import { retentionScorecard } from '../../src/compaction/retention/scorecard';
import { userTextAuthor, userWords } from '../../src/compaction/harness-text';
import { itemsForEntry } from '../../src/views/sidebar/transcript-items';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { claudeCode } from '../support/recordings';
import { quarterCounter } from '../support/generate';

const meter = new TokenMeter({ counter: quarterCounter });

const ENV =
  '<environment_details>\n# VSCode Visible Files\ndeployment_commands.md\n\n# Current Working Directory (/w) Files\ndeployment_commands.md\nsrc/server.ts\n</environment_details>';
const TODO =
  '# TODO LIST UPDATE REQUIRED - You MUST include the task_progress parameter in your NEXT tool call.\n\n**Current Progress: 1 of 3 items completed (33%)**';
const TASK = 'Make the server read its port from the environment and document the deployment.';
const FEEDBACK = 'Also mention the health check in the deployment notes.';

/** A Cline task: the task with environment details, a tool step, feedback on a result, a to-do reminder. */
function clineTask(): string {
  return JSON.stringify([
    {
      role: 'user',
      content: [
        { type: 'text', text: `<task>\n${TASK}\n</task>` },
        { type: 'text', text: ENV },
      ],
    },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'src/server.ts' } }],
    },
    {
      role: 'user',
      content: [
        { type: 'text', text: "[read_file for 'src/server.ts'] Result:\nconst port = 3000;" },
        { type: 'text', text: ENV },
        { type: 'text', text: TODO },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'I read the server; the port is fixed at 3000.' }] },
    {
      role: 'user',
      content: [
        {
          type: 'text',
          text: `The user has provided feedback on the results. Consider their input to continue the task, and then attempt completion again.\n<feedback>\n${FEEDBACK}\n</feedback>`,
        },
        { type: 'text', text: ENV },
        { type: 'text', text: TODO },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'Working on the deployment notes.' }] },
  ]);
}

test('the harness-text reader: environment details and reminders are the harness’s, feedback words the user’s', () => {
  assert.deepEqual(userTextAuthor(ENV), { by: 'harness', label: 'Cline (environment)' });
  assert.equal(userTextAuthor(TODO).by, 'harness');
  assert.equal(userTextAuthor(`<feedback>\n${FEEDBACK}\n</feedback>\n${ENV}`).by, 'user');
  assert.equal(
    userWords(`The user has provided feedback on the results.\n<feedback>\n${FEEDBACK}\n</feedback>\n${ENV}\n${TODO}`),
    FEEDBACK,
  );
  assert.equal(userWords(`${TODO}\n${ENV}`), '');
  assert.equal(userTextAuthor('<system-reminder>Files changed.</system-reminder>').by, 'harness');
  assert.equal(
    userWords(
      'Please continue the conversation from where we left it off without asking the user any further questions.',
    ),
    '',
  );
});

test('cline: the typed requests are the task and the feedback, by the retention rules and by the summary writer', () => {
  const entries = importTranscriptTextSync(clineTask(), 'api_conversation_history.json').entries;
  const items = itemsFromEntries(entries);
  const gold = typedRequests(items.map((i) => ({ message: i.message }))).map((t) => t.text);
  assert.deepEqual(gold, [TASK, FEEDBACK]);
  const writer = items.map(typedRequestOf).filter((t): t is string => t !== undefined);
  assert.deepEqual(writer, [TASK, FEEDBACK]);
  const card = retentionScorecard({
    replaced: items,
    inserted: [{ id: 's', kind: 'summary', message: { role: 'user', content: `${TASK}\n${FEEDBACK}` }, covers: [] }],
  })!;
  assert.deepEqual(card.requests, { total: 2, whole: 2, shortened: 0, leftOut: 0 });
});

test('cline: the sidebar shows environment details as the harness’s, and the summary never quotes them as the user’s', async () => {
  const entries = importTranscriptTextSync(clineTask(), 'api_conversation_history.json').entries;
  const lines = entries.flatMap((e) => itemsForEntry(e, new Map(), { running: new Set(), outcomes: new Map() }));
  const users = lines.filter((l) => l.kind === 'user');
  assert.ok(users.length > 0);
  for (const l of users) {
    const harnessOnly = !l.text.includes(TASK) && !l.text.includes(FEEDBACK);
    if (harnessOnly) assert.ok(l.speaker, `harness text shown as the user's: ${l.text.slice(0, 80)}`);
    else assert.equal(l.speaker, undefined);
  }
  const items = itemsFromEntries(entries);
  const r = await new ExtractiveSummarizer((s) => meter.countText(s)).summarize({
    items,
    userRequests: [TASK, FEEDBACK],
    approximateSummaryTokens: 2000,
    maxCalls: 0,
    focus: 'deployment',
  });
  assert.doesNotMatch(r.text, /\(user\) [^\n]*deployment_commands\.md/, r.text);
  assert.doesNotMatch(r.text, /\(user\) # Current Working Directory/, r.text);
});

test('claude code: a reminder-only message and a continuation note are not typed requests', () => {
  const text = claudeCode([
    { user: 'Fix the flaky test in the parser suite.' },
    { user: '<system-reminder>The file src/a.ts was modified by the user.</system-reminder>' },
    {
      user: 'Please continue the conversation from where we left it off without asking the user any further questions. Continue with the last task that you were asked to work on.',
    },
  ]);
  const items = itemsFromEntries(importTranscriptTextSync(text, 'session.jsonl').entries);
  const gold = typedRequests(items.map((i) => ({ message: i.message }))).map((t) => t.text);
  assert.deepEqual(gold, ['Fix the flaky test in the parser suite.']);
  assert.deepEqual(items.map(typedRequestOf).filter(Boolean), ['Fix the flaky test in the parser suite.']);
});
