/**
 * Loading a session whose transcript has damaged lines in the middle: every line is checked against the
 * stored shape, a line that fails is left out with a warning naming the file, the line and the field,
 * tool pairing is repaired around what was left out, and the next request is one the API accepts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ChatMessage } from '../../src/compaction/types';
import { text, toolCalls } from '../../src/demo/modelserver/replies';
import { serviceFixture } from './fixtures';

/** What makes a request invalid for the Chat Completions API: unknown roles, bad content, broken pairing. */
function problems(ms: readonly ChatMessage[]): string[] {
  const p: string[] = [];
  let open: Set<string> | undefined;
  ms.forEach((m, i) => {
    const r = m as { role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: unknown };
    if (!['system', 'user', 'assistant', 'tool', 'developer'].includes(r.role)) p.push(`#${i} role ${r.role}`);
    if (r.role === 'tool') {
      if (typeof r.tool_call_id !== 'string' || !open?.delete(r.tool_call_id)) p.push(`#${i} orphan tool`);
      return;
    }
    if (open?.size) p.push(`#${i} ${r.role} after unanswered ${[...open].join(',')}`);
    if (r.role === 'assistant' && r.tool_calls !== undefined && !Array.isArray(r.tool_calls))
      p.push(`#${i} tool_calls not a list`);
    if (r.role === 'user' && typeof r.content !== 'string' && !Array.isArray(r.content))
      p.push(`#${i} user content ${JSON.stringify(r.content)}`);
    open =
      r.role === 'assistant' && Array.isArray(r.tool_calls) && r.tool_calls.length
        ? new Set((r.tool_calls as Array<{ id: string }>).map((c) => c.id))
        : undefined;
  });
  return p;
}

type Damage = (lines: string[]) => number;
const at = (lines: string[], re: RegExp) => lines.findIndex((l) => re.test(l));
const edit = (lines: string[], re: RegExp, f: (e: { message: Record<string, unknown> }) => void): number => {
  const i = at(lines, re);
  const e = JSON.parse(lines[i]) as { message: Record<string, unknown> };
  f(e);
  lines[i] = JSON.stringify(e);
  return i;
};

const cases: Array<{ name: string; damage: Damage; field: RegExp }> = [
  {
    name: 'an unreadable assistant line',
    damage: (l) => ((l[at(l, /tool_calls/)] = '{"garbage'), at(l, /garbage/)),
    field: /not valid JSON/,
  },
  {
    name: 'tool_calls a string',
    damage: (l) => edit(l, /tool_calls/, (e) => (e.message.tool_calls = 'oops')),
    field: /field "message\.tool_calls"/,
  },
  {
    name: 'a tool result without tool_call_id',
    damage: (l) => edit(l, /"role":"tool"/, (e) => delete e.message.tool_call_id),
    field: /field "message\.tool_call_id"/,
  },
  {
    name: 'user content a number',
    damage: (l) => edit(l, /"content":"first"/, (e) => (e.message.content = 42)),
    field: /field "message\.content"/,
  },
  {
    name: 'an unknown role',
    damage: (l) => edit(l, /"content":"first"/, (e) => (e.message.role = 'robot')),
    field: /field "message\.role": unknown role "robot"/,
  },
  {
    name: 'tool_calls [null]',
    damage: (l) => edit(l, /tool_calls/, (e) => (e.message.tool_calls = [null])),
    field: /field "message\.tool_calls\[0\]"/,
  },
];

for (const c of cases) {
  test(`a session with ${c.name} in its transcript opens, names the line and field, and sends a valid next request`, async (t) => {
    let k = 0;
    const fx = await serviceFixture(
      (body) =>
        (body.messages as ChatMessage[]).at(-1)!.role === 'user'
          ? toolCalls([{ id: `call_${++k}`, name: 'list_directory', arguments: '{"path":"."}' }])
          : text('ok'),
      { window: 64_000, files: { 'a.txt': 'a' } },
    );
    t.after(fx.cleanup);
    await fx.service.runTask('first');
    await fx.service.runTask('second');
    await fx.service.whenSaved();
    const dir = fx.service.sessionDir!;
    fx.service.dispose();
    const file = path.join(dir, 'transcript.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n');
    const damaged = c.damage(lines);
    writeFileSync(file, lines.join('\n'));
    const warnings: string[] = [];
    const again = await fx.reopen({ log: (_level, message) => warnings.push(message) });
    assert.ok(
      warnings.some((w) => w.includes(`transcript.jsonl:${damaged + 1}:`) && c.field.test(w)),
      `a warning names line ${damaged + 1} and the field:\n${warnings.join('\n')}`,
    );
    assert.deepEqual(problems(again.getMessages()), [], 'the loaded context is a valid request');
    const before = fx.requests.length;
    const r = await again.runTask('third');
    assert.equal(r.status, 'done');
    for (const request of fx.requests.slice(before))
      assert.deepEqual(problems(request.messages as ChatMessage[]), [], 'every later request is valid');
    // The transcript on disk is never rewritten: the damaged line is still there.
    assert.equal(readFileSync(file, 'utf8').split('\n')[damaged], lines[damaged]);
  });
}

test('a tool result whose assistant line was damaged is left out with a warning naming its line', async (t) => {
  let k = 0;
  const fx = await serviceFixture(
    (body) =>
      (body.messages as ChatMessage[]).at(-1)!.role === 'user'
        ? toolCalls([{ id: `call_${++k}`, name: 'list_directory', arguments: '{"path":"."}' }])
        : text('ok'),
    { window: 64_000 },
  );
  t.after(fx.cleanup);
  await fx.service.runTask('first');
  await fx.service.whenSaved();
  const dir = fx.service.sessionDir!;
  fx.service.dispose();
  const file = path.join(dir, 'transcript.jsonl');
  const lines = readFileSync(file, 'utf8').split('\n');
  lines[at(lines, /tool_calls/)] = '{"garbage';
  const toolLine = at(lines, /"role":"tool"/);
  writeFileSync(file, lines.join('\n'));
  const warnings: string[] = [];
  const again = await fx.reopen({ log: (_level, message) => warnings.push(message) });
  assert.ok(
    warnings.some(
      (w) => w.includes(`transcript.jsonl:${toolLine + 1}:`) && /tool result for "call_1".*left out/.test(w),
    ),
    warnings.join('\n'),
  );
  assert.ok(!again.getMessages().some((m) => m.role === 'tool'));
});
