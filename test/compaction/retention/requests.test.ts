/**
 * Typed requests (harness blocks of each agent recognised and left out) and constraint sentences,
 * and the code names the agent referenced.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { importTranscriptText } from '../../../src/transcripts';
import {
  codeNames,
  constraintSentences,
  retentionGold,
  typedPart,
  typedRequests,
} from '../../../src/compaction/retention';
import type { ChatMessage } from '../../../src/compaction/types';

test('cline: the task is typed, environment details and tool results are not', async () => {
  const env = '<environment_details>\n# Current Time\n1/1/2026\n</environment_details>';
  const conversation = [
    {
      role: 'user',
      ts: 1,
      content: [
        { type: 'text', text: '<task>\nMove storage to GCS. Do not touch the auth flow.\n</task>' },
        { type: 'text', text: env },
      ],
    },
    { role: 'assistant', ts: 2, content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a.ts' } }] },
    {
      role: 'user',
      ts: 3,
      content: [
        { type: 'text', text: "[read_file for 'a.ts'] Result:\nYou must not run this." },
        { type: 'text', text: env },
      ],
    },
  ];
  const t = await importTranscriptText(JSON.stringify(conversation), 'api_conversation_history.json');
  const typed = typedRequests(t.entries);
  assert.deepEqual(
    typed.map((x) => x.text),
    ['Move storage to GCS. Do not touch the auth flow.'],
  );
  assert.deepEqual(retentionGold(t.entries, 0, t.entries.length).constraints, ['Do not touch the auth flow.']);
});

test('codex and claude code: environment context, system reminders and command wrappers are not typed', () => {
  assert.equal(typedPart('<environment_context>\n  <cwd>/w</cwd>\n</environment_context>'), '');
  assert.equal(typedPart('<system-reminder>be careful</system-reminder>\nfix the login page'), 'fix the login page');
  assert.equal(typedPart('<command-name>/clear</command-name>'), '');
  assert.equal(typedPart('This session is being continued from a previous conversation that ran out of context.'), '');
  assert.equal(typedPart('OBSERVATION:\nok'), '');
});

test('constraint sentences: prohibitions and obligations with an object, in any casing, each once; not one-off scoping', () => {
  const text =
    'Recreate the admin pages. Do NOT modify public pages (booking, home).\n- Keep the sidebar and top bar\nThanks! Never commit secrets. Never commit secrets. Do not change other parts. I do not know why.';
  assert.deepEqual(constraintSentences(text), ['Do NOT modify public pages (booking, home).', 'Never commit secrets.']);
});

test('constraint sentences: the items of a long specification are its request, not rules, unless they say they last', () => {
  const spec = [
    'Add a broker selector:',
    '1. Three radio buttons',
    '2. Save the choice in localStorage',
    '3. Keep the test button – publish always goes to the active broker',
    '4. From now on, never hardcode a broker URL',
    'DO NOT touch the Supabase card.',
  ].join('\n');
  assert.deepEqual(constraintSentences(spec), [
    'From now on, never hardcode a broker URL',
    'DO NOT touch the Supabase card.',
  ]);
});

test('code names: called, constructed, imported and declared names from the agent, not from tool output', () => {
  const call = (args: unknown): ChatMessage => ({
    role: 'assistant',
    content: 'I will update `handleLocalChat` next.',
    tool_calls: [{ id: '1', type: 'function', function: { name: 'Write', arguments: JSON.stringify(args) } }],
  });
  const messages: ChatMessage[] = [
    { role: 'user', content: 'go' },
    call({
      file_path: '/w/a.ts',
      content:
        "import { createServerClient, type Session } from '@/lib/supabase';\nexport class ReservationService extends BaseService {\n  run() { return new JwtTokenProvider().sign(fetchChatResponse(x)); }\n}",
    }),
    { role: 'tool', tool_call_id: '1', content: 'export function unrelatedHelperInOutput() {}' },
  ];
  const names = codeNames(messages.map((message, i) => ({ id: `m${i}`, message })));
  for (const n of [
    'handleLocalChat',
    'createServerClient',
    'ReservationService',
    'BaseService',
    'JwtTokenProvider',
    'fetchChatResponse',
  ])
    assert.ok(names.includes(n), `${n} in ${names.join(', ')}`);
  assert.ok(!names.includes('unrelatedHelperInOutput'), 'tool output is not the agent referencing code');
  assert.ok(!names.includes('return') && !names.includes('import'));
});

test('code names: a capitalised word before a parenthetical aside in prose is not a call', () => {
  const said: ChatMessage = {
    role: 'assistant',
    content:
      'The Certificate Authority (CA) and the Workflow (see the diagram) need Secrets (3 of them); then call validateTicket(req) and Firestore.collection.',
  };
  const names = codeNames([{ message: said }]);
  for (const word of ['Authority', 'Workflow', 'Secrets'])
    assert.ok(!names.includes(word), `${word} in ${names.join(', ')}`);
  assert.ok(names.includes('validateTicket') && names.includes('Firestore'), names.join(', '));
});
