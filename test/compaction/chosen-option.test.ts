/**
 * An option the person clicked among those Cline's `ask_followup_question` offered is their choice,
 * not words they typed: the summary shows it as "the user chose: <label>", never in the requests
 * section, and the scorecard does not count it as a typed request. A reply that is not one of the
 * options stays a typed request. Both ways Cline records a result are read: the `[tool] Result:`
 * text block and the `tool_result` block.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { collectRequests } from '../../src/compaction/summary/requests';
import { typedRequests } from '../../src/compaction/retention/requests';
import { sectionOf } from '../support/recordings';

const ENV = '<environment_details>\n# Current Mode\nACT MODE\n</environment_details>';
const QUESTION = 'Please run the sign-in yourself. Tell me when it is done.';
const OPTIONS = ['Authentication complete - continue', 'Need help with authentication'];

/** A Cline history: a task, a question offering OPTIONS, the person's `answer`, then more work. */
function history(answer: string, shape: 'text' | 'block'): string {
  const reply = `[ask_followup_question for '${QUESTION}'] Result:\n<answer>\n${answer}\n</answer>`;
  return JSON.stringify([
    { role: 'user', content: [{ type: 'text', text: '<task>\nconnect the app to the dev database\n</task>' }] },
    {
      role: 'assistant',
      content: [
        {
          type: 'tool_use',
          id: 'q1',
          name: 'ask_followup_question',
          input: { question: QUESTION, options: JSON.stringify(OPTIONS) },
        },
      ],
    },
    {
      role: 'user',
      content:
        shape === 'text'
          ? [
              { type: 'text', text: reply },
              { type: 'text', text: ENV },
            ]
          : [{ type: 'tool_result', tool_use_id: 'q1', content: [{ type: 'text', text: reply }] }],
    },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Restarting the proxy with the new credentials.' },
        { type: 'tool_use', id: 'c2', name: 'execute_command', input: { command: 'npm run db:check' } },
      ],
    },
    {
      role: 'user',
      content: [
        {
          type: 'text',
          text: "[execute_command for 'npm run db:check'] Result:\nCommand executed.\nOutput:\nconnected",
        },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'The database answers now.' }] },
  ]);
}

for (const shape of ['text', 'block'] as const) {
  test(`cline (${shape} result): a clicked option is the user's choice, not a typed request`, () => {
    const imported = importTranscriptTextSync(history(OPTIONS[0], shape), 'api_conversation_history.json');
    const items = itemsFromEntries(imported.entries);
    assert.deepEqual(collectRequests(items), ['connect the app to the dev database']);
    assert.deepEqual(
      typedRequests(imported.entries).map((r) => r.text),
      ['connect the app to the dev database'],
    );
    const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 6000);
    assert.doesNotMatch(sectionOf(summary, 'Requests, verbatim'), /Authentication complete/, summary);
    assert.match(
      summary,
      /the user chose: Authentication complete - continue \(an option the agent offered\)/,
      summary,
    );
  });

  test(`cline (${shape} result): words the user typed instead of an option stay a typed request`, () => {
    const typed = 'Signed in with the agency account; use the nmfs instance';
    const items = itemsFromEntries(
      importTranscriptTextSync(history(typed, shape), 'api_conversation_history.json').entries,
    );
    assert.deepEqual(collectRequests(items), ['connect the app to the dev database', typed]);
  });
}
