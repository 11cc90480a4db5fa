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
import { collectRequests, typedRequestOf } from '../../src/compaction/summary/requests';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { retentionScorecard } from '../../src/compaction/retention/scorecard';
import { userTextAuthor, userWords } from '../../src/compaction/harness-text';
import { itemsForEntry } from '../../src/views/sidebar/transcript-items';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { claudeCode, summaryOf } from '../support/recordings';
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
    // The user's words: the user's, or (opening with Cline's feedback preamble) named beside the harness.
    else if (l.speaker !== undefined) assert.match(l.speaker, /^Cline \(harness\), with your words$/);
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

const RESUMED =
  "[TASK RESUMPTION] This task was interrupted 12 hours ago. It may or may not be complete, so please reassess the task context. Be aware that the project state may have changed since then. The current working directory is now '/w'. If the task has not been completed, retry the last step before interruption and proceed with completing the task.\n\nNote: If you previously attempted a tool use that the user did not provide a result for, you should assume the tool use was not successful and assess whether you should retry. If the last tool was a browser_action, the browser has been closed and you must launch a new browser if needed.\n\nIMPORTANT: If the last tool use was a replace_in_file or write_to_file that was interrupted, the file was reverted back to its original state before the interrupted edit, and you do NOT need to re-read the file as you already have its up-to-date contents.";
const RESUMED_PLAN =
  "[TASK RESUMPTION] This task was interrupted 3 days ago. The conversation may have been incomplete. Be aware that the project state may have changed since then. The current working directory is now '/w'.\n\nNote: If you previously attempted a tool use that the user did not provide a result for, you should assume the tool use was not successful. However you are in PLAN MODE, so rather than continuing the task, you must respond to the user's message.";
const NO_MESSAGE =
  "(The user did not provide a new message. Consider asking them how they'd like you to proceed, or suggest to them to switch to Act mode to continue with the task.)";
const CONTINUE = 'Deploy to the staging project only; leave production untouched.';
const PLAN_QUESTION = 'Which port does the health check use?';
const COMPLETION_FEEDBACK = 'The server still fails to start on my machine, see the log above.';

/** A Cline task resumed three times: with no new message, with new instructions, in plan mode with a question. */
function clineResumed(): string {
  return JSON.stringify([
    {
      role: 'user',
      content: [
        { type: 'text', text: `<task>\n${TASK}\n</task>` },
        { type: 'text', text: ENV },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'Reading the server first.' }] },
    {
      role: 'user',
      content: [
        { type: 'text', text: RESUMED_PLAN },
        { type: 'text', text: NO_MESSAGE },
        { type: 'text', text: ENV },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'How would you like to proceed?' }] },
    {
      role: 'user',
      content: [
        { type: 'text', text: RESUMED },
        { type: 'text', text: `New instructions for task continuation:\n<user_message>\n${CONTINUE}\n</user_message>` },
        { type: 'text', text: `\n${TODO}` },
        { type: 'text', text: ENV },
      ],
    },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't1', name: 'attempt_completion', input: { result: 'Deployed.' } }],
    },
    {
      role: 'user',
      content: [
        { type: 'text', text: '[attempt_completion] Result: Done' },
        { type: 'text', text: 'Command failed with exit code 1.\nOutput:\nError: listen EADDRINUSE :::9002' },
        {
          type: 'text',
          text: 'The user has provided feedback on the results. Consider their input to continue the task, and then attempt completion again.',
        },
        { type: 'text', text: `<feedback>\n${COMPLETION_FEEDBACK}\n</feedback>` },
        { type: 'text', text: ENV },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'The port is taken; freeing it.' }] },
    {
      role: 'user',
      content: [
        { type: 'text', text: RESUMED_PLAN },
        {
          type: 'text',
          text: `New message to respond to with plan_mode_respond tool (be sure to provide your response in the <response> parameter):\n<user_message>\n${PLAN_QUESTION}\n</user_message>`,
        },
        {
          type: 'text',
          text: 'Files attached by the user:\n\n<file_content path="notes.md">\n# Notes\nport 8080\n</file_content>',
        },
        { type: 'text', text: ENV },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'Port 8080.' }] },
  ]);
}

test('cline: task resumption notes, their notes on tool use and the no-new-message notice are the harness’s; the new message inside is the user’s', () => {
  const entries = importTranscriptTextSync(clineResumed(), 'api_conversation_history.json').entries;
  const items = itemsFromEntries(entries);
  const typed = [TASK, CONTINUE, COMPLETION_FEEDBACK, PLAN_QUESTION];
  const gold = typedRequests(items.map((i) => ({ message: i.message }))).map((t) => t.text);
  assert.deepEqual(gold, typed);
  assert.deepEqual(items.map(typedRequestOf).filter(Boolean), typed);
  // The completion's command output belongs to its result, not to the person's feedback after it.
  const result = entries.find((e) => e.message.role === 'tool');
  assert.match(String(result?.message.content), /EADDRINUSE/);
  // Each piece read alone (another Cline version may split or join blocks differently).
  for (const notice of [RESUMED, RESUMED_PLAN, NO_MESSAGE, `${RESUMED_PLAN}\n\n${NO_MESSAGE}\n\n${ENV}`]) {
    assert.equal(userWords(notice), '', notice.slice(0, 60));
    assert.equal(userTextAuthor(notice).by, 'harness', notice.slice(0, 60));
  }
  assert.equal(
    userWords(`${RESUMED}\n\nNew instructions for task continuation:\n<user_message>\n${CONTINUE}\n</user_message>`),
    CONTINUE,
  );
  const users = entries.flatMap((e) => itemsForEntry(e, new Map(), { running: new Set(), outcomes: new Map() }));
  const noticeOnly = users.find((l) => l.kind === 'user' && l.text.includes('did not provide a new message'));
  assert.ok(noticeOnly?.kind === 'user' && noticeOnly.speaker, 'the resumption notice is shown as the harness’s');
});

test('cline: a summary of a resumed task quotes no resumption note as a request or as the user’s', async () => {
  const { summary } = await summaryOf(clineResumed(), 'api_conversation_history.json', 1200);
  const requests = summary.slice(summary.indexOf('Requests, verbatim'));
  assert.ok(summary.includes('Requests, verbatim'), summary);
  assert.doesNotMatch(
    requests,
    /previously attempted a tool use|did not provide a new message|TASK RESUMPTION/,
    summary,
  );
  assert.match(requests, new RegExp(`- ${TASK}\\n- ${CONTINUE}\\n`), summary);
  assert.doesNotMatch(summary, /\(user\)[^\n]*previously attempted a tool use/, summary);
});

test('claude code: a record marked isMeta is the harness’s: never typed, never the latest request, never “You”', () => {
  const caveat = 'Run the full suite before you commit anything to the release branch.';
  const text = claudeCode([
    { user: 'Fix the flaky test in the parser suite.' },
    { say: 'Fixed.' },
    { user: caveat, meta: true },
  ]);
  const entries = importTranscriptTextSync(text, 'session.jsonl').entries;
  const marked = entries.find((e) => textWithPlaceholders(e.message.content) === caveat);
  assert.ok(marked, 'the isMeta record is imported');
  assert.equal(marked.meta?.harnessText, true);
  const items = itemsFromEntries(entries);
  assert.deepEqual(items.map(typedRequestOf).filter(Boolean), ['Fix the flaky test in the parser suite.']);
  // The retention rules read the mark from the entry's metadata as well as from the message.
  assert.deepEqual(
    typedRequests(entries).map((t) => t.text),
    ['Fix the flaky test in the parser suite.'],
  );
  assert.deepEqual(collectRequests(items), ['Fix the flaky test in the parser suite.']);
  const line = itemsForEntry(marked, new Map(), { running: new Set(), outcomes: new Map() })[0];
  assert.ok(line.kind === 'user' && line.speaker, 'an isMeta message is not shown as the user’s');
});

test('aider and swe-agent: a confirmation prompt with its answer and an observation in the user role are not shown as the user’s', () => {
  const prompt = "Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: all";
  assert.deepEqual(userTextAuthor(prompt), { by: 'harness', label: 'Aider (prompt)' });
  assert.deepEqual(userTextAuthor('OBSERVATION:\nFile created successfully at: /testbed/reproduce.py'), {
    by: 'harness',
    label: 'Tool output',
  });
  const text = [
    '',
    '# aider chat started at 2026-02-24 16:53:06',
    '',
    `#### ${prompt}  `,
    '',
    '#### Fix the parser.  ',
    '',
  ];
  const entries = importTranscriptTextSync(text.join('\n'), '.aider.chat.history.md').entries;
  const users = entries
    .flatMap((e) => itemsForEntry(e, new Map(), { running: new Set(), outcomes: new Map() }))
    .filter((l) => l.kind === 'user');
  const shown = users.map((l) => (l.kind === 'user' ? (l.speaker ?? 'You') : ''));
  assert.deepEqual(shown, ['Aider (prompt)', 'You']);
  assert.equal(userTextAuthor('Fix the parser so that (Y)es/(N)o answers parse.').by, 'user');
});
