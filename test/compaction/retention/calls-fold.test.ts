/**
 * The agent's calls of a span that grew at its end continue the last reading: the calls (with their
 * results, failures and refusals) and the failures derived from them equal a fresh reading of the
 * whole span, also for a call whose result arrives in the new messages, and a span with an earlier
 * message replaced is read again.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentCalls, errorSignatures, type RetentionEntry } from '../../../src/compaction/retention';
import { spanFiles } from '../../../src/compaction/retention/files';
import type { ChatMessage } from '../../../src/compaction/types';

const call = (id: string, command: string): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name: 'Bash', arguments: JSON.stringify({ command }) } }],
});
const res = (id: string, content: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content });

/** `steps` command calls, each answered at once, with every third failing. */
function span(steps: number): RetentionEntry[] {
  const out: RetentionEntry[] = [{ message: { role: 'user', content: 'make the build pass' } }];
  for (let i = 0; i < steps; i++) {
    const fails = i % 3 === 0;
    out.push({ message: call(`c${i}`, `make target${i % 7}`) });
    out.push({
      message: res(`c${i}`, fails ? `make: *** [target${i % 7}] Error 2` : 'done'),
      meta: { toolOk: !fails },
    });
  }
  return out;
}

/** What a reading says of each call, without object identity. */
const shape = (calls: ReturnType<typeof agentCalls>) =>
  calls.map((c) => ({ index: c.index, name: c.name, result: c.result, failed: c.failed, denied: c.denied }));

test('a grown span gives the calls and failures of a fresh reading, also for a call answered after the cut', () => {
  const all = span(400);
  // The cut falls between a failing call and its result: the call waits for its result at the cut.
  const cut = all.findIndex((e, i) => i > 500 && e.message.role === 'assistant' && (i - 1) % 6 === 0) + 1;
  const first = agentCalls(all.slice(0, cut));
  const waiting = first[first.length - 1];
  assert.equal(waiting.result, undefined, 'the last call of the shorter span has no result yet');
  // Read its failures while it waits (the per-call facts are kept).
  errorSignatures(all.slice(0, cut), 0, cut);
  const grown = agentCalls(all);
  const fresh = agentCalls(structuredClone(all));
  assert.deepEqual(shape(grown), shape(fresh));
  assert.equal(grown[first.length - 1].failed, true, 'the call that waited is judged by its result');
  assert.equal(grown[0], first[0], 'the calls read before are the same objects');
  assert.notEqual(grown[first.length - 1], waiting, 'a call that waited is read again');
  assert.deepEqual(errorSignatures(all, 0, all.length), errorSignatures(structuredClone(all), 0, all.length));
});

test('a span whose earlier message or success flag changed is read again', () => {
  const all = span(300);
  agentCalls(all.slice(0, 500));
  const changed = all.slice();
  changed[2] = { message: changed[2].message, meta: { toolOk: false } };
  const calls = agentCalls(changed);
  assert.equal(calls[0].failed, true, 'the new flag is read');
  const replaced = all.slice();
  replaced[1] = { message: call('c0', 'npm test') };
  assert.deepEqual(
    agentCalls(replaced).map((c) => c.args),
    agentCalls(structuredClone(replaced)).map((c) => c.args),
  );
  assert.deepEqual(agentCalls(replaced)[0].args, { command: 'npm test' });
});

test('the files of a grown span equal a fresh reading, also for an edit whose failure arrives after the cut', () => {
  const edit = (id: string, path: string): ChatMessage => ({
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name: 'Edit', arguments: JSON.stringify({ file_path: path }) } }],
  });
  const all: RetentionEntry[] = [{ message: { role: 'user', content: 'tidy the modules' } }];
  for (let i = 0; i < 300; i++) {
    all.push({ message: edit(`e${i}`, i % 5 === 0 ? `src/once${i}.ts` : `src/m${i % 40}.ts`) });
    // Every fifth edit fails, and the file of every seventh is only read by a command.
    all.push({ message: res(`e${i}`, i % 5 === 0 ? 'String to replace not found in file.' : 'ok') });
    all.push({ message: call(`r${i}`, `cat lib/r${i % 13}.ts`) });
    all.push({ message: res(`r${i}`, 'x') });
  }
  // Cut right after an edit that fails: its result comes with the grown span.
  const cut = all.findIndex((e, i) => i > 400 && (e.message as { tool_call_id?: string }).tool_call_id === 'e105');
  assert.ok(cut > 0);
  const shorter = spanFiles(all.slice(0, cut));
  assert.equal(shorter.modified.get('src/once105.ts'), 'edited', 'before its result the edit counts');
  spanFiles(all.slice(0, cut + 100));
  const grown = spanFiles(all);
  const fresh = spanFiles(structuredClone(all));
  assert.deepEqual([...grown.modified], [...fresh.modified]);
  assert.deepEqual(grown.read, fresh.read);
  assert.equal(grown.modified.has('src/once105.ts'), false, 'the failed edit changed nothing');
  assert.ok(fresh.read.length > 0 && fresh.modified.size > 0);
});
