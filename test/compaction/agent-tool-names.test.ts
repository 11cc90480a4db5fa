/**
 * The code names are the code's: the agent's tool names (`read_file`, `execute_command`,
 * `str_replace_editor`, `apply_patch`, Claude Code's `TodoWrite`), the harness's words and the
 * names of naming conventions (`snake_case`, `camelCase`) are not listed, even quoted; a function of
 * the code named like a tool is, where the work declares it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, summaryOf, sectionOf, type Step } from '../support/recordings';
import { namesOfMessage } from '../../src/compaction/summary/identifiers/worked-names';

const RULES = [
  'Rules for this repository:',
  '- never call `execute_command` or `write_to_file` without approval',
  '- prefer `str_replace_editor` and `apply_patch` to `TodoWrite` lists',
].join('\n');

const CODE = [
  'def load_orders(path):',
  '    # map snake_case columns to camelCase keys',
  '    return [to_order(row) for row in read_rows(path)]',
].join('\n');

const work: Step[] = [
  { user: 'add an order loader' },
  { say: 'I will use `read_file` first, then `apply_patch`, and check `environment_details`.' },
  { tool: 'write', path: 'agent.rules', content: RULES },
  { tool: 'write', path: 'src/orders.py', content: CODE },
  { say: `Added \`load_orders\`. ${'It reads the rows and maps them to orders for the report. '.repeat(300)}` },
  { user: 'thanks' },
  { say: 'ok' },
];

for (const format of ['claude-code', 'cline', 'openai-chat'] as const) {
  test(`${format}: the code names hold no tool names, harness words or naming conventions`, async () => {
    const { write, file } = WRITERS[format];
    const { summary } = await summaryOf(write(work), file);
    const names = sectionOf(summary, 'Code names');
    for (const word of [
      'read_file',
      'apply_patch',
      'execute_command',
      'write_to_file',
      'str_replace_editor',
      'TodoWrite',
      'environment_details',
      'snake_case',
      'camelCase',
    ])
      assert.doesNotMatch(names, new RegExp(`\\b${word}\\b`), `${word}: ${names}`);
    assert.match(names, /\bread_rows\b/, names);
  });
}

test('a function of the code named like a tool is a code name where the work declares it', () => {
  const said = namesOfMessage({ role: 'assistant', content: 'Then `read_file` reads it.' });
  assert.ok(!said.has('read_file'), [...said.keys()].join(', '));
  const declared = namesOfMessage({
    role: 'assistant',
    content: 'Then `read_file` reads it:\n```python\ndef read_file(path):\n    return open(path).read()\n```',
  });
  assert.ok(declared.has('read_file'), [...declared.keys()].join(', '));
});
