/**
 * The next-steps evaluation's bench-only rules (needed tokens, todo items, false-open lines, path
 * roots) and one whole run on a small recording written here, through the product's compaction.
 */
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { argTokens, neededTokens, openTodoItems } from '../../bench/quality/next-steps/needed';
import { ContextView, expandRoots, falseOpens } from '../../bench/quality/next-steps/score';
import { evaluateRecording } from '../../bench/quality/next-steps/evaluate';
import { candidates, samplePath, samplePrecision, type SampleData } from '../../bench/quality/next-steps/sample';
import { sharedTranscriptsDir } from '../support/shared';
import type { ErrorSignature } from '../../src/compaction/retention';
import type { ChatMessage } from '../../src/compaction/types';

const call = (id: string, name: string, args: unknown): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
});
const res = (id: string, content: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content });
const entries = (ms: ChatMessage[]) => ms.map((message, i) => ({ id: `m${i}`, message }));

test('argument tokens: paths, numbers of 6+ digits, identifiers of 8+ characters that are not plain words', () => {
  const got = argTokens('grep -n handleLocalChat /w/src/chat/index.ts --max 1234567 settlement Settlement short_id');
  assert.deepEqual(got, [
    { token: '/w/src/chat/index.ts', kind: 'path' },
    { token: '1234567', kind: 'number' },
    { token: 'handleLocalChat', kind: 'identifier' },
    { token: 'short_id', kind: 'identifier' },
  ]);
});

test('needed tokens: used after the point, present in the span, not fetched again before the use', () => {
  const es = entries([
    { role: 'user', content: 'go' },
    call('1', 'Bash', { command: 'cat /w/src/billing/settle.ts' }),
    res('1', 'export function settleBatch(vaultConfigId) {}\n// order 9876543'),
    // point: index 3
    call('2', 'Read', { file_path: '/w/src/billing/other.ts' }),
    res('2', 'uses computeFees here'),
    call('3', 'Edit', {
      file_path: '/w/src/billing/settle.ts',
      old_string: 'settleBatch(vaultConfigId)',
      new_string: 'computeFees(9876543)',
    }),
    res('3', 'ok'),
  ]);
  const got = neededTokens(es, 3, [1, 2]);
  assert.deepEqual(
    got.map((t) => t.token),
    ['/w/src/billing/settle.ts', 'settleBatch', 'vaultConfigId', '9876543'],
  );
  assert.ok(!got.some((t) => t.token === 'computeFees'), 'shown by a tool result after the point, and not in the span');
  assert.deepEqual(neededTokens(es, 3, [0]), [], 'only tokens of the replaced span count');
  assert.ok(
    !neededTokens(es, 3, [1, 2], 'settleBatch').some((t) => t.token === 'settleBatch'),
    'the system prompt keeps it',
  );
});

test('todo items: the last TodoWrite / update_plan / task_progress before the point, open items only', () => {
  const es = entries([
    call('1', 'TodoWrite', {
      todos: [
        { content: 'Write the schema', status: 'completed' },
        { content: 'Add the seed data', status: 'in_progress' },
      ],
    }),
    res('1', 'ok'),
    call('2', 'update_plan', {
      plan: [
        { step: 'Wire LM Studio', status: 'pending' },
        { step: 'Inspect', status: 'completed' },
      ],
    }),
    res('2', 'Plan updated'),
    call('3', 'execute_command', {
      command: 'ls',
      task_progress: '- [x] Analyze\n- [ ] Refactor storage\n- [ ] Deploy',
    }),
    res('3', 'ok'),
  ]);
  assert.deepEqual(openTodoItems(es, 2), ['Add the seed data']);
  assert.deepEqual(openTodoItems(es, 4), ['Wire LM Studio']);
  assert.deepEqual(openTodoItems(es, 6), ['Refactor storage', 'Deploy']);
});

test('false-open: a resolved failure on a line that presents it as open counts; shown as fixed it does not', () => {
  const e: ErrorSignature = {
    index: 1,
    tool: 'command',
    key: 'python /testbed/reproduce.py',
    line: 'Traceback (most recent call last):',
    files: [],
    state: 'resolved',
    resolvedAt: 9,
    resolvedBy: 'same command succeeded',
  };
  assert.equal(falseOpens('- Next step: resolve `python /testbed/reproduce.py` → Traceback', [e], []).falseOpen, 1);
  assert.equal(falseOpens('- `python /testbed/reproduce.py` failed, then fixed: passes now', [e], []).falseOpen, 0);
  assert.equal(falseOpens('- open: `python /testbed/reproduce.py`', [{ ...e, state: 'open' }], []).falseOpen, 0);
  const nf = falseOpens('- `pnpm build --filter web` → failed: error', [], ['pnpm build --filter web', 'pnpm build']);
  assert.equal(nf.neverFailedShownFailing, 1, 'one line is charged to one command');
  const part = falseOpens('- `terraform init && terraform plan -out=tfplan` → failed (exit 1)', [], ['terraform init']);
  assert.equal(part.neverFailedShownFailing, 0, 'a command inside a longer one is not named by it');
});

test('a path under a named root counts when its expansion matches; a bare file name does not', () => {
  const v = new ContextView([
    {
      role: 'user',
      content: '- Path roots: $A = /home/u/app/, $B = /srv/x/\n- $A/src/lib/auth.ts: edited\n- page.tsx',
    },
  ]);
  assert.ok(v.hasPath('/home/u/app/src/lib/auth.ts'));
  assert.ok(v.hasPath('/other/root/app/src/lib/auth.ts'), 'last three components at a folder boundary');
  assert.ok(!v.hasPath('/home/u/app/src/admin/page.tsx'));
  assert.equal(expandRoots('$B/a.ts and $A/b.ts'), '$B/a.ts and $A/b.ts', 'no definition, no expansion');
});

test('a whole run on a small recording: points, the product, truncation and masking, scored', async () => {
  const big = (n: number) => `line ${n}: ${'lorem ipsum dolor sit amet '.repeat(30)}`;
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Build the billing module. Never touch src/legacy.' },
  ];
  for (let i = 0; i < 12; i++) {
    messages.push(
      call(`w${i}`, 'Write', {
        file_path: `/w/src/billing/part${i}.ts`,
        content: `export function computePart${i}Total() {}\n${big(i)}`,
      }),
    );
    messages.push(res(`w${i}`, 'File created'));
  }
  messages.push(
    call('t', 'Bash', { command: 'npm test' }),
    res('t', 'FAIL src/billing/part1.test.ts\nTypeError: boom'),
  );
  messages.push(
    call('f', 'Edit', { file_path: '/w/src/billing/part1.ts', old_string: 'a', new_string: 'b' }),
    res('f', 'ok'),
  );
  messages.push(call('t2', 'Bash', { command: 'npm test' }), res('t2', 'all 12 passed'));
  for (let i = 0; i < 4; i++) {
    messages.push(
      call(`r${i}`, 'Edit', {
        file_path: `/w/src/billing/part${i}.ts`,
        old_string: `computePart${i}Total`,
        new_string: 'x',
      }),
    );
    messages.push(res(`r${i}`, 'ok'));
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-next-'));
  const file = path.join(dir, 'session.json');
  fs.writeFileSync(file, JSON.stringify(messages));
  try {
    const { points } = await evaluateRecording(file, 'small', undefined, () => {}, [3000]);
    assert.deepEqual(
      points.map((x) => x.point),
      ['80% of window', 'end of recording'],
    );
    const p = points[0];
    assert.ok(p.replaced > 0 && p.gold.modified > 0, JSON.stringify(p.gold));
    const product = p.methods.find((m) => m.method === 'product')!;
    const trunc = p.methods.find((m) => m.method === 'truncation')!;
    const mask = p.methods.find((m) => m.method === 'masking')!;
    assert.ok(trunc.tokens <= product.tokens, 'truncation keeps at most the same size');
    assert.equal(mask.scores.modified.kept, mask.scores.modified.total, 'masking keeps every call');
    assert.notEqual(product.scores.falseOpen, null);
    assert.equal(trunc.scores.falseOpen, null, 'truncation writes nothing');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the reviewed needed-token sample still resolves against the recordings, and the rules stay precise', async (t) => {
  if (!sharedTranscriptsDir() || !fs.existsSync(sharedTranscriptsDir()!)) {
    t.skip('no shared transcripts: the sample is checked against the recordings');
    return;
  }
  const root = path.resolve(__dirname, '../../..');
  const data = JSON.parse(fs.readFileSync(samplePath(root), 'utf8')) as SampleData;
  assert.equal(data.items.length, 40);
  for (const it of data.items) {
    assert.equal(typeof it.correct, 'boolean', `${it.file} ${it.sha256}: reviewed`);
    assert.ok(it.note.length > 10, 'a reason for each verdict');
  }
  const { all } = await candidates(root);
  const p = samplePrecision(data, all);
  assert.ok(p.stillProduced >= 35, `the current rules still produce ${p.stillProduced} of the 40 reviewed tokens`);
  assert.ok(p.correctStillProduced / p.stillProduced >= 0.9, `precision ${p.correctStillProduced}/${p.stillProduced}`);
});
