/**
 * What the retention rules read of each message is kept per message object (messages are never
 * mutated once appended), so a compaction of a grown span reads each message once: a kept fact is
 * used again for the same message and never given to another one, and scores read through the
 * kept facts equal scores read afresh. The error rules find each failure's resolution from maps of
 * the later calls; they give what a scan of every later call gives.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  agentCalls,
  codeNames,
  commandKey,
  commandOf,
  errorSignatures,
  fileTouches,
  pathKey,
  samePath,
  typedRequests,
  type AgentCall,
  type ErrorSignature,
  type RetentionEntry,
} from '../../../src/compaction/retention';
import { retentionScorecard } from '../../../src/compaction/retention/scorecard';
import { itemsFromEntries } from '../../../src/compaction/context';
import type { ChatMessage } from '../../../src/compaction/types';
import { rng } from '../../support/generate';

const call = (id: string, name: string, args: unknown, content: string | null = null): ChatMessage => ({
  role: 'assistant',
  content,
  tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
});
const res = (id: string, content: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content });

/** Changes a message in place: the product never does; here it shows whether a kept fact was used. */
function rewriteArguments(m: ChatMessage, args: unknown): void {
  const calls = (m as { tool_calls: Array<{ function: { arguments: string } }> }).tool_calls;
  calls[0].function.arguments = JSON.stringify(args);
}

test('the calls of a message are read once and kept for that message object only', () => {
  const m = call('1', 'run_command', { command: 'npm test' });
  const first = agentCalls([{ message: m }, { message: res('1', 'ok') }]);
  assert.equal(commandOf(first[0]), 'npm test');
  rewriteArguments(m, { command: 'make all' });
  const again = agentCalls([{ message: m }, { message: res('1', 'ok') }]);
  assert.equal(commandOf(again[0]), 'npm test', 'the same message object: its calls as first read');
  assert.notEqual(again[0], first[0], 'the calls are new objects: their positions belong to the span');
  const other = call('1', 'run_command', { command: 'make all' });
  assert.equal(commandOf(agentCalls([{ message: other }])[0]), 'make all', 'another message: read for itself');
});

test('code names and typed requests are kept per message and never served for another message', () => {
  const a: ChatMessage = { role: 'assistant', content: 'I will call `parseConfig()` from `loadSettings`.' };
  const u: ChatMessage = { role: 'user', content: 'Never touch the migrations folder.' };
  assert.deepEqual(codeNames([{ message: a }]), ['parseConfig', 'loadSettings']);
  assert.deepEqual(
    typedRequests([{ message: u }]).map((t) => t.text),
    ['Never touch the migrations folder.'],
  );
  (a as { content: string }).content = 'Now `renderTable` instead.';
  (u as { content: string }).content = 'Something else.';
  assert.deepEqual(codeNames([{ message: a }]), ['parseConfig', 'loadSettings'], 'kept for the same object');
  assert.deepEqual(typedRequests([{ message: u }])[0].text, 'Never touch the migrations folder.');
  const b: ChatMessage = { role: 'assistant', content: 'Now `renderTable` instead.' };
  assert.deepEqual(codeNames([{ message: b }]), ['renderTable'], 'a new object is read for itself');
});

test('the files a call touches are kept per call arguments and given the position of each reading', () => {
  const m = call('1', 'edit_file', { path: 'src/a.ts', old_text: 'a', new_text: 'b' });
  const before: ChatMessage = { role: 'user', content: '' };
  const at = (index: number) =>
    fileTouches(agentCalls([...Array.from({ length: index }, () => ({ message: before })), { message: m }])[0]);
  assert.deepEqual(at(0), [{ path: 'src/a.ts', action: 'edited', index: 0, tool: 'edit_file' }]);
  assert.deepEqual(at(3), [{ path: 'src/a.ts', action: 'edited', index: 3, tool: 'edit_file' }]);
});

/** A random session of commands, edits and reads over a few files, some failing. */
function session(seed: number, steps: number): RetentionEntry[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const files = ['src/a.ts', 'src/lib/b.ts', '/w/src/lib/b.ts', 'b.ts', 'test/a.test.ts', 'lib/b.ts'];
  const commands = ['npm test', 'npx tsc -p .', 'cd /w && npm test 2>&1 | tail -5', 'node run.js', 'ls src'];
  const out: RetentionEntry[] = [];
  for (let k = 0; k < steps; k++) {
    const id = `c${k}`;
    const kind = r();
    const ok = r() < 0.6;
    if (kind < 0.5) {
      const command = pick(commands);
      out.push({ message: call(id, 'run_command', { command }) });
      const output = ok ? 'all good' : `Error: failed in ${pick(files)}:3\n${pick(files)}`;
      out.push({ message: res(id, output), meta: { toolOk: ok } });
    } else {
      const name = kind < 0.8 ? 'edit_file' : 'read_file';
      out.push({ message: call(id, name, { path: pick(files), old_text: 'x', new_text: 'y' }) });
      out.push({ message: res(id, ok ? 'ok' : 'Error: no match'), meta: { toolOk: ok } });
    }
    if (r() < 0.2)
      out.push({ message: { role: 'user', content: `Keep going with step ${k}, and never skip the tests.` } });
  }
  return out;
}

const CHECK_LIKE = /\b(?:test|tsc|node|npm|npx)\b/;

/** The rule of `errorSignatures` read literally: every later call scanned for each failure. */
function scanEveryLaterCall(calls: readonly AgentCall[], from: number, to: number): ErrorSignature[] {
  const failed = (c: AgentCall) => c.failed === true;
  const byKey = new Map<string, ErrorSignature>();
  calls.forEach((c, k) => {
    if (c.index < from || c.index >= to || !failed(c)) return;
    const later = calls.slice(k + 1);
    const command = commandOf(c);
    const touched = fileTouches(c).map((t) => pathKey(t.path));
    let resolved: Pick<ErrorSignature, 'resolvedAt' | 'resolvedBy'> | undefined;
    let files = touched;
    if (command !== undefined) {
      const key = commandKey(command);
      const named = new Set<string>();
      for (const text of [command, (c.result ?? '').split('\n').slice(0, 60).join('\n')])
        for (const m of text.matchAll(/(?:[\w.@~-]*\/)+[\w.@-]+\.\w+|\b[\w-]+\.(?:ts|js)\b/g)) named.add(pathKey(m[0]));
      files = [...named];
      const same = later.find((l) => commandOf(l) !== undefined && commandKey(commandOf(l)!) === key && !failed(l));
      if (same) resolved = { resolvedAt: same.index, resolvedBy: 'same command succeeded' };
      else {
        const edit = later.find((l) =>
          fileTouches(l).some((t) => t.action !== 'read' && files.some((f) => samePath(f, pathKey(t.path)))),
        );
        const check =
          edit && later.find((l) => l.index > edit.index && CHECK_LIKE.test(commandOf(l) ?? '') && !failed(l));
        if (check) resolved = { resolvedAt: check.index, resolvedBy: 'file edited and check passed' };
      }
    } else {
      const same = later.find(
        (l) =>
          l.name === c.name &&
          !failed(l) &&
          fileTouches(l).some((t) => files.some((f) => samePath(f, pathKey(t.path)))),
      );
      if (same) resolved = { resolvedAt: same.index, resolvedBy: 'same edit succeeded' };
    }
    const tool = command !== undefined ? 'command' : c.name;
    const key = command !== undefined ? commandKey(command) : `${c.name} ${touched[0] ?? ''}`.trim();
    byKey.set(`${tool}\u0000${key}`, {
      tool,
      key,
      index: c.index,
      files,
      state: resolved ? 'resolved' : 'open',
      ...resolved,
    } as ErrorSignature);
  });
  return [...byKey.values()];
}

test('each failure is resolved by the first later call that resolves it, as a scan of every later call finds', () => {
  const kinds = new Set<string>();
  for (let seed = 1; seed <= 40; seed++) {
    const entries = session(seed, 60);
    const calls = agentCalls(entries);
    for (const [from, to] of [
      [0, entries.length],
      [10, 70],
    ]) {
      const got = errorSignatures(entries, from, to, entries.length, calls).map((e) => [
        e.key,
        e.index,
        e.state,
        e.resolvedAt,
        e.resolvedBy,
      ]);
      const want = scanEveryLaterCall(calls, from, to).map((e) => [
        e.key,
        e.index,
        e.state,
        e.resolvedAt,
        e.resolvedBy,
      ]);
      assert.deepEqual(got, want, `seed ${seed}, span ${from}-${to}`);
      for (const e of want) kinds.add(String(e[4] ?? 'open'));
    }
  }
  assert.deepEqual([...kinds].sort(), [
    'file edited and check passed',
    'open',
    'same command succeeded',
    'same edit succeeded',
  ]);
});

test('a scorecard read through kept facts equals one read from fresh copies of the messages', () => {
  const entries = session(7, 300).map((e, i) => ({ id: `m${i}`, message: e.message }));
  const items = itemsFromEntries(entries);
  const inserted = itemsFromEntries([
    { id: 's', message: { role: 'user', content: 'Summary: npm test failed in src/a.ts; step 3 was kept going.' } },
  ]);
  const first = retentionScorecard({ replaced: items.slice(0, 400), inserted });
  const grown = retentionScorecard({ replaced: items, inserted });
  const fresh = retentionScorecard({ replaced: itemsFromEntries(structuredClone(entries)), inserted });
  assert.ok(first && grown && fresh);
  assert.deepEqual(grown, fresh);
  assert.notDeepEqual(first, grown, 'the grown span has more to score');
});
