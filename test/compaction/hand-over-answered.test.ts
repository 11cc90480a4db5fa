/**
 * A call that hands the turn to the person (Cline's `plan_mode_respond`, `ask_followup_question`)
 * records no result of its own: the person's next typed message is its answer (the importer adds a
 * placeholder result). The current work says so, never that its outcome is unknown, whether that
 * message is in the summarised span or kept after it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { WRITERS } from '../support/recordings';

function clineWithPlan(reply: string): string {
  const msgs = JSON.parse(
    WRITERS.cline.write([
      { user: 'Plan the deployment of phase 4.' },
      { tool: 'bash', command: 'terraform plan -out=tfplan', output: 'Plan: 2 to add, 0 to change, 0 to destroy.' },
    ]),
  ) as unknown[];
  msgs.push(
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'The configuration is ready.' },
        {
          type: 'tool_use',
          id: 'p1',
          name: 'plan_mode_respond',
          input: { response: 'Apply tfplan locally, then check Cloud Run.' },
        },
      ],
    },
    { role: 'user', content: [{ type: 'text', text: `<user_message>\n${reply}\n</user_message>` }] },
  );
  return JSON.stringify(msgs);
}

const notes = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4));

test('cline: a plan answered by the next typed message is not a call with an unknown outcome', () => {
  const items = itemsFromEntries(
    importTranscriptTextSync(clineWithPlan('How do I remove the firebase remnants?'), WRITERS.cline.file).entries,
  );
  const reply = items.findIndex(
    (i) => i.message.role === 'user' && JSON.stringify(i.message.content).includes('firebase'),
  );
  assert.ok(reply > 0);
  // The answer summarised with the call, and the answer kept after the summary.
  for (const text of [
    notes.notes(items, 6000),
    notes.notes(items.slice(0, reply), 6000, undefined, items.slice(reply)),
  ]) {
    const line = text.split('\n').find((l) => l.startsWith('- Last tool call: plan_mode_respond'));
    assert.ok(line, text);
    assert.doesNotMatch(line, /no result|unknown/, line);
    assert.match(line, /the user's next message is its answer/, line);
  }
});

test('cline: a command that got no result still says its outcome is unknown', () => {
  const msgs = JSON.parse(WRITERS.cline.write([{ user: 'Deploy it.' }])) as unknown[];
  msgs.push(
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'c1', name: 'execute_command', input: { command: 'terraform apply tfplan' } }],
    },
    { role: 'user', content: [{ type: 'text', text: '<user_message>\nstop, wait\n</user_message>' }] },
  );
  const items = itemsFromEntries(importTranscriptTextSync(JSON.stringify(msgs), WRITERS.cline.file).entries);
  const line = notes
    .notes(items, 6000)
    .split('\n')
    .find((l) => l.startsWith('- Last tool call: execute_command'));
  assert.ok(line);
  assert.match(line, /its outcome is unknown/, line);
});
