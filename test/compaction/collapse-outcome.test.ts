import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collapsedRecord } from '../../src/compaction/rewrite/collapse';
import { recordToolOutcome } from '../../src/compaction/tool-outcomes';
import type { ChatMessage } from '../../src/compaction/types';

/** A Codex shell result as 0.5x versions record it: the printed text inside a JSON envelope. */
const codexOutput = (output: string, exitCode: number) =>
  JSON.stringify({ output, metadata: { exit_code: exitCode, duration_seconds: 0.1 } });
const shell = (command: string) => ({
  name: 'shell',
  arguments: JSON.stringify({ command: ['bash', '-lc', command] }),
});

test('a collapsed Codex result counts and quotes the printed text, not its JSON envelope', () => {
  const printed = Array.from({ length: 40 }, (_, i) => `line ${i} of the configuration notes`).join('\n');
  const verdict = `${'x'.repeat(120)} 12 passed, 0 failed in 3.2s with the whole suite run against /v1/chat/completions`;
  const record = collapsedRecord(
    { role: 'tool', tool_call_id: 'c1', content: codexOutput(`${printed}\n${verdict}`, 0) },
    shell('npm test'),
  );
  assert.match(record, /→ ok, \d+ characters, 41 lines/);
  assert.ok(!record.includes('"output"'), record);
  // The verdict line is cut at a word, never inside one.
  const last = /last line: (.*?)\. The full output/.exec(record)?.[1] ?? '';
  assert.ok(last.endsWith('…'), record);
  assert.ok(verdict.includes(last.slice(0, -1).trimEnd()), record);
  assert.ok(/ \S+…$/.test(last) && verdict.split(' ').includes(last.slice(0, -1).split(' ').at(-1) ?? ''), last);
});

test("a collapsed result's outcome follows the recorded exit status and success flag", () => {
  const failed = collapsedRecord(
    { role: 'tool', tool_call_id: 'c2', content: codexOutput('compiled 12 modules\nall done', 2) },
    shell('make all'),
  );
  assert.match(failed, /→ error/);
  const flagged: ChatMessage = { role: 'tool', tool_call_id: 'c3', content: 'Deployment finished.' };
  recordToolOutcome(flagged, false);
  assert.match(collapsedRecord(flagged, shell('./deploy.sh')), /→ error/);
});

test('a collapsed read of a file that holds error words is ok: its words are the file, not a report', () => {
  const file = ['CREATE TABLE jobs (', '  id INTEGER PRIMARY KEY,', '  error TEXT', ');', 'ERROR: logged example'].join(
    '\n',
  );
  const record = collapsedRecord(
    { role: 'tool', tool_call_id: 'c4', content: file },
    { name: 'read_file', arguments: JSON.stringify({ path: 'db/schema.sql' }) },
  );
  assert.match(record, /→ ok,/);
  const search = collapsedRecord(
    { role: 'tool', tool_call_id: 'c5', content: codexOutput('', 1) },
    shell('rg -n "eventsource-parser" src'),
  );
  assert.match(search, /→ ok \(no match\)/);
});

test('a collapsed result of a command given as an argv array names the command line', () => {
  const codex = collapsedRecord(
    { role: 'tool', tool_call_id: 'c4', content: codexOutput('{\n  "name": "chatbot-ui"\n}', 0) },
    {
      name: 'shell',
      arguments: JSON.stringify({ command: ['bash', '-lc', "sed -n '1,200p' package.json"], workdir: '/home/u/app' }),
    },
  );
  assert.match(
    codex,
    /^\[tool result collapsed\] shell command=sed -n '1,200p' package\.json workdir=\/home\/u\/app → ok/,
  );
  // An argv without a wrapper shell is its words; an array of other things is still left out.
  const plain = collapsedRecord(
    { role: 'tool', tool_call_id: 'c5', content: 'ok' },
    { name: 'exec', arguments: JSON.stringify({ cmd: ['git', 'status', '--short'], env: ['A=1'] }) },
  );
  assert.match(plain, /^\[tool result collapsed\] exec cmd=git status --short → ok/);
});
