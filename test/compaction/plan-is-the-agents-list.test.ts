/**
 * The plan a summary shows is the agent's latest to-do list (Claude Code and OpenAI chat `TodoWrite`,
 * Codex `update_plan`, OpenHands `task_tracker`, Cline's `task_progress` checklist on any tool call) with its open items, or
 * steps the agent committed to in its own words ("We need to:"). Numbered options put to the user,
 * and numbered findings, are no plan: they never replace the list nor stand for one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { planLines } from '../../src/compaction/summary/message-facts';

/** The extractive notes of `steps` written in `format`, with room for every section. */
function notesOf(format: keyof typeof WRITERS, steps: readonly Step[]): string {
  const { write, file } = WRITERS[format];
  const items = itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
  return new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 6000);
}

/** The summary's plan line ('' when it has none). */
const planOf = (summary: string) => /^- (?:Latest plan|Plan) or to-do list.*$/m.exec(summary)?.[0] ?? '';

const OPTIONS =
  'The database has no public address, so the proxy cannot reach it. There are three ways forward:\n\n' +
  '1. **Use Cloud Shell** - it runs inside the network\n' +
  '2. **Enable public IP** - simplest, but exposes the instance\n' +
  '3. **Set up the Auth Proxy via an IAP tunnel**\n\n' +
  'Which would you prefer?';

const STEPS: Step[] = [
  { user: 'deploy the app to the new project with terraform' },
  {
    plan: [
      ['Review the Terraform configuration', true],
      ['Run terraform init', false],
      ['Apply Terraform', false],
    ],
  },
  { tool: 'read', path: 'infra/main.tf', output: 'resource "google_sql_database_instance" "db" {}' },
  { say: OPTIONS },
  { user: 'use Cloud Shell' },
  { tool: 'bash', command: 'gcloud cloud-shell ssh --command "echo ok"', output: 'ok' },
];

for (const format of ['cline', 'claude-code', 'codex', 'openai-chat', 'openhands'] as const)
  test(`${format}: the plan is the agent's to-do list with its open items, not options offered after it`, () => {
    const summary = notesOf(format, STEPS);
    const plan = planOf(summary);
    assert.match(plan, /Run terraform init/, summary);
    assert.match(plan, /Apply Terraform/, summary);
    assert.doesNotMatch(summary, /Plan or to-do list[^\n]*Use Cloud Shell/, summary);
  });

/** `text` (an OpenHands event list) with a `task_tracker` call of `args` and its observation `output` at its end. */
function withTracker(text: string, args: Record<string, unknown>, output: string): string {
  const events = JSON.parse(text) as unknown[];
  const call = { id: 'tv', name: 'task_tracker', arguments: JSON.stringify(args) };
  events.push(
    {
      id: 'av',
      source: 'agent',
      kind: 'ActionEvent',
      thought: [],
      tool_name: 'task_tracker',
      tool_call_id: 'tv',
      tool_call: call,
      llm_response_id: 'rv',
    },
    {
      id: 'ov',
      source: 'environment',
      kind: 'ObservationEvent',
      tool_name: 'task_tracker',
      tool_call_id: 'tv',
      action_id: 'av',
      observation: { content: [{ type: 'text', text: output }], is_error: false },
    },
  );
  return JSON.stringify(events);
}

test("openhands: the plan is task_tracker's latest list; viewing the list does not replace it", () => {
  const steps: Step[] = [
    ...STEPS.slice(0, 3),
    {
      plan: [
        ['Review the Terraform configuration', true],
        ['Run terraform init', true],
        ['Apply Terraform', false],
        ['Check the Cloud Run service account', false],
      ],
    },
  ];
  const text = withTracker(
    WRITERS.openhands.write(steps),
    { command: 'view' },
    '# Task List\n1. [done] Review the Terraform configuration\n2. [done] Run terraform init\n3. [todo] Apply Terraform',
  );
  const items = itemsFromEntries(importTranscriptTextSync(text, WRITERS.openhands.file).entries);
  const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 6000);
  const plan = planOf(summary);
  assert.match(
    plan,
    /\(task_tracker\) 1\. \[done\] Review the Terraform configuration \| 2\. \[done\] Run terraform init/,
    summary,
  );
  assert.match(plan, /4\. \[todo\] Check the Cloud Run service account/, summary);
  assert.doesNotMatch(plan, /"command"|\bview\b/, summary);
});

const FINDINGS: Step[] = [
  { user: 'how much of the app still uses Firebase?' },
  { tool: 'bash', command: 'grep -rl firebase src', output: 'src/lib/firebase.ts\nsrc/app/login.tsx' },
  {
    say:
      'Key findings:\n\n1. **Active files using Firebase are minimal** - only the login page\n' +
      '2. **The client library is still bundled** - `src/lib/firebase.ts`',
  },
];

for (const format of ['cline', 'claude-code', 'swe-agent'] as const)
  test(`${format}: numbered findings are no plan`, () => {
    const summary = notesOf(format, FINDINGS);
    assert.equal(planOf(summary), '', summary);
  });

test('steps the agent commits to are a plan; options and findings are not', () => {
  assert.deepEqual(planLines('The bug is confirmed. We need to:\n1. Add the flag\n2. Run the tests'), [
    '1. Add the flag',
    '2. Run the tests',
  ]);
  assert.deepEqual(planLines("Here's my plan:\n1. Add the flag\n2. Run the tests\n\nShall I go ahead?").length, 2);
  assert.deepEqual(planLines(OPTIONS), []);
  assert.deepEqual(planLines('Options:\n1. Keep it\n2. Drop it'), []);
  assert.deepEqual(planLines('I found two causes:\n1. A stale cache\n2. A wrong path'), []);
  assert.deepEqual(planLines('- [x] Read the spec\n- [ ] Write the code'), [
    '- [x] Read the spec',
    '- [ ] Write the code',
  ]);
});
