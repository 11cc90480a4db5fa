/** Re-attaching files after a summary: selection, labelled entries, budgets, undo (pure core). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ContextItem } from '../../src/compaction/types';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { prepareCompaction } from '../../src/compaction/rewrite/compactor';
import { undoCheckpoint } from '../../src/compaction/context';
import { checkContext } from '../../src/compaction/plan/invariants';
import {
  attachmentText,
  attachReserve,
  CandidateScan,
  reattachCandidates,
  withAttachedFiles,
  type AttachedFile,
} from '../../src/compaction/rewrite/reattach';
import { Acalls, A, S, T, U, chars, entries, items } from '../support/conversation';
import { quarterCounter } from '../support/generate';
import type { PreparedCompaction } from '../../src/compaction/rewrite/commit';
import { commitPrepared } from '../../src/compaction/rewrite/commit';
import { describeCompaction } from '../../src/compaction/outcome-text';

const meter = new TokenMeter({ counter: quarterCounter });
const summarizer = new ExtractiveSummarizer((t) => meter.countText(t));
const args = (o: Record<string, unknown>) => JSON.stringify(o);

test('candidates: most recently touched first; failed reads, partial reads, deletions and moves handled', () => {
  const ctx = items([
    S('sys'),
    U('Fix the parser and tidy up.'),
    Acalls([
      ['c1', 'read_file', args({ path: 'src/parser.ts' })],
      ['c2', 'read_file', args({ path: 'src/missing.ts' })],
    ]),
    T('c1', 'export function parse() {}'),
    T('c2', 'Error: ENOENT: no such file or directory, open src/missing.ts'),
    Acalls([['c3', 'edit_file', args({ path: './src/lexer.ts', old_text: 'a', new_text: 'b' })]]),
    T('c3', 'Edited src/lexer.ts'),
    Acalls([['c4', 'write_file', args({ path: 'tmp/scratch.txt', content: 'x' })]]),
    T('c4', 'Wrote tmp/scratch.txt'),
    Acalls([['c5', 'run_command', args({ command: 'rm tmp/scratch.txt && git mv src/old.ts src/new.ts' })]]),
    T('c5', 'Exit code: 0'),
    Acalls([['c6', 'read_file', args({ path: 'src/util.ts', start_line: 1, end_line: 20 })]]),
    T('c6', '1: export const x = 1;'),
    Acalls([['c7', 'read_file', args({ path: 'src/parser.ts' })]]),
    T('c7', 'export function parse() { return 1; }'),
    A('Done.'),
  ]);
  const got = reattachCandidates(ctx);
  assert.deepEqual(
    got.map((c) => [c.path, c.lastOp]),
    [
      ['src/parser.ts', 'read'],
      ['src/util.ts', 'read'],
      ['src/new.ts', 'moved'],
      ['src/lexer.ts', 'edited'],
    ],
  );
  // A whole-file read names the result that shows it; a line range does not show the whole file.
  assert.equal(got[0].shownBy, ctx[14].id);
  assert.equal(got[1].shownBy, undefined);
  assert.equal(got[3].shownBy, undefined);
});

test('candidates: a file re-attached by an earlier compaction counts as read, shown by that entry', () => {
  const attached: ContextItem = {
    id: 'ck-1~f1',
    kind: 'summary',
    message: U('[File re-attached ...]'),
    covers: [],
    checkpointId: 'ck-1',
    attachedFile: 'src/a.ts',
  };
  const ctx = [
    ...items([S('sys'), U('Go on.')]),
    attached,
    ...items([
      Acalls([['c1', 'edit_file', args({ path: 'src/b.ts', old_text: 'x', new_text: 'y' })]]),
      T('c1', 'ok'),
    ]).map((i) => ({ ...i, id: `z${i.id}`, covers: [`z${i.id}`] })),
  ];
  assert.deepEqual(
    reattachCandidates(ctx).map((c) => [c.path, c.lastOp, c.shownBy]),
    [
      ['src/b.ts', 'edited', undefined],
      ['src/a.ts', 'attached', 'ck-1~f1'],
    ],
  );
});

test('candidates: a scan in slices of any size gives the one-pass candidates, partial ones along the way', () => {
  const ctx = items([
    S('sys'),
    U('Go.'),
    Acalls([['c1', 'read_file', args({ path: 'src/a.ts' })]]),
    T('c1', 'export const a = 1;'),
    Acalls([['c2', 'edit_file', args({ path: 'src/b.ts', old_text: 'x', new_text: 'y' })]]),
    T('c2', 'Edited src/b.ts'),
    Acalls([['c3', 'run_command', args({ command: 'rm src/a.ts' })]]),
    T('c3', 'Exit code: 0'),
    Acalls([['c4', 'read_file', args({ path: 'src/c.ts' })]]),
    T('c4', 'Error: ENOENT: no such file or directory'),
  ]);
  const whole = reattachCandidates(ctx);
  assert.deepEqual(
    whole.map((c) => c.path),
    ['src/b.ts'],
  );
  for (const size of [1, 2, 3, 7]) {
    const scan = new CandidateScan(ctx);
    let steps = 0;
    while (!scan.done) {
      scan.step(size);
      steps++;
      // After the first read and its result, before the deletion: the file is a candidate.
      if (size === 1 && steps === 4)
        assert.deepEqual(
          scan.candidates().map((c) => c.path),
          ['src/a.ts'],
        );
    }
    assert.equal(steps, Math.ceil(ctx.length / size));
    assert.deepEqual(scan.candidates(), whole);
  }
});

test('attachment text: labelled as current workspace contents, fenced past any backtick run, secrets masked', () => {
  const text = attachmentText({
    path: 'docs/notes.md',
    text: 'intro\n```js\ncode\n```\nOPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwxyz123456\n',
  });
  assert.match(
    text,
    /^\[File re-attached by ContextKeeper after the summary above: docs\/notes\.md, its current contents read from the workspace \(5 lines\)\. It is context, not a new request\.\]/,
  );
  assert.match(text, /\n````md\nintro\n```js\ncode\n```\n/);
  assert.ok(text.endsWith('\n````'));
  assert.ok(!text.includes('sk-abcdefghijklmnopqrstuvwxyz123456'), 'the key is masked');
  assert.match(text, /\[masked/);
});

/** A session whose history is worth summarising: old turns reading and editing files, then a new request. */
function session(): ContextItem[] {
  const msgs = [S('You are a coding agent.'), U('Add input validation to the form handler.')];
  for (let k = 1; k <= 6; k++) {
    msgs.push(Acalls([[`r${k}`, 'read_file', args({ path: `src/m${k}.ts` })]]), T(`r${k}`, chars(1600, k)));
    msgs.push(
      Acalls([[`e${k}`, 'edit_file', args({ path: `src/m${k}.ts`, old_text: 'a', new_text: 'b' })]]),
      T(`e${k}`, `Edited src/m${k}.ts`),
    );
  }
  msgs.push(A('Validation added.'), U('Now write the tests for it, please.'));
  msgs.push(
    Acalls([['w1', 'write_file', args({ path: 'test/form.test.ts', content: 'test()' })]]),
    T('w1', 'Wrote test/form.test.ts'),
  );
  return items(msgs);
}

const budget = { contextWindow: 4000, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 };

async function prepared(ctx: ContextItem[], reserveTokens = 0): Promise<PreparedCompaction> {
  const p = await prepareCompaction({
    items: ctx,
    meter,
    summarizer,
    options: { budget, trigger: 'auto', force: true, noCollapse: true, reserveTokens },
  });
  if ('status' in p) throw new Error(`not prepared: ${describeCompaction(p.status)}`);
  return p;
}

const file = (path: string, lines: number, shownBy?: string): AttachedFile => ({
  path,
  text: Array.from({ length: lines }, (_, i) => `// ${path} line ${i}`).join('\n') + '\n',
  ...(shownBy ? { shownBy } : {}),
});

test('files go right after the summary as their own entries, are recorded and counted, and undo removes them', async () => {
  const ctx = session();
  const files = [file('test/form.test.ts', 10), file('src/m6.ts', 12), file('src/m5.ts', 8)];
  const reserve = attachReserve(files, meter, { budgetTokens: 400, maxFiles: 5 });
  assert.ok(reserve > 0);
  const p = await prepared(ctx, reserve);
  const withFiles = withAttachedFiles(p, ctx, files, meter, undefined, {
    budgetTokens: 400,
    maxFiles: 5,
    targetTokens: 2000,
  });
  const result = commitPrepared(ctx, withFiles, meter);
  assert.ok(result.status.kind === 'applied', describeCompaction(result.status));
  const cp = result.checkpoints.find((c) => c.attachedFiles);
  assert.ok(cp, 'a checkpoint records the files');
  assert.deepEqual(
    cp.attachedFiles?.map((f) => f.path),
    ['test/form.test.ts', 'src/m6.ts', 'src/m5.ts'],
  );
  // In the context: summary, then each file as its own labelled user message, in order.
  const at = result.context.findIndex((i) => i.id === `${cp.id}~s`);
  assert.ok(at > 0);
  const next = result.context.slice(at + 1, at + 4);
  assert.deepEqual(
    next.map((i) => i.attachedFile),
    ['test/form.test.ts', 'src/m6.ts', 'src/m5.ts'],
  );
  for (const [k, i] of next.entries()) {
    assert.equal(i.message.role, 'user');
    assert.match(
      String(i.message.content),
      new RegExp(`^\\[File re-attached by ContextKeeper after the summary above: ${cp.attachedFiles?.[k].path}`),
    );
    assert.equal(meter.countMessage(i.message), cp.attachedFiles?.[k].tokens);
  }
  // Counted: the checkpoint's and the result's tokens after are those of the context holding the files.
  assert.equal(result.tokensAfter, meter.measure(result.context).total);
  assert.equal(cp.tokensAfter, result.tokensAfter);
  assert.ok(result.tokensAfter <= 2000, `within the target (${result.tokensAfter})`);
  assert.deepEqual(checkContext(result.context, entries(ctx.map((i) => i.message))), []);
  // Undo puts the replaced messages back and takes the files away with the summary.
  const undone = undoCheckpoint(result.context, result.checkpoints, cp.id);
  assert.ok(!undone.items.some((i) => i.attachedFile));
  assert.deepEqual(
    undone.items.map((i) => i.id),
    ctx.map((i) => i.id).filter((id) => undone.items.some((u) => u.id === id)),
  );
});

test('files within their budget and count; one still shown whole in the kept context is skipped', async () => {
  const ctx = session();
  const p = await prepared(ctx);
  const big = file('src/big.ts', 400);
  const shown = file('test/form.test.ts', 5, ctx.at(-1)?.id);
  const out = withAttachedFiles(
    p,
    ctx,
    [big, shown, file('src/a.ts', 5), file('src/b.ts', 5), file('src/c.ts', 5)],
    meter,
    undefined,
    { budgetTokens: 300, maxFiles: 2, targetTokens: 2000 },
  );
  const cp = out.checkpoints.find((c) => c.attachedFiles);
  assert.deepEqual(
    cp?.attachedFiles?.map((f) => f.path),
    ['src/a.ts', 'src/b.ts'],
  );
  assert.ok((cp?.attachedFiles ?? []).reduce((s, f) => s + f.tokens, 0) <= 300);
  // The input is not modified.
  assert.ok(!p.checkpoints.some((c) => c.attachedFiles));
});

test('files never take the context above the target; without a summary nothing is attached', async () => {
  const ctx = session();
  const p = await prepared(ctx);
  const after = commitPrepared(ctx, p, meter).tokensAfter;
  const tight = withAttachedFiles(p, ctx, [file('src/a.ts', 40)], meter, undefined, {
    budgetTokens: 5000,
    maxFiles: 5,
    targetTokens: after + 20,
  });
  assert.equal(tight, p, 'no room below the target: unchanged');
  const collapseOnly: PreparedCompaction = {
    ...p,
    checkpoints: p.checkpoints.filter((c) => c.strategy === 'collapse'),
  };
  assert.equal(
    withAttachedFiles(collapseOnly, ctx, [file('src/a.ts', 5)], meter, undefined, {
      budgetTokens: 500,
      maxFiles: 5,
      targetTokens: 2000,
    }),
    collapseOnly,
  );
});

test('a later summary drops earlier re-attached copies: the summarizer never sees them, the notes name them', async () => {
  const ctx = session();
  const first = commitPrepared(
    ctx,
    withAttachedFiles(await prepared(ctx), ctx, [file('src/m6.ts', 12)], meter, undefined, {
      budgetTokens: 400,
      maxFiles: 5,
      targetTokens: 2000,
    }),
    meter,
  );
  assert.ok(first.status.kind === 'applied');
  const grown = [
    ...first.context,
    ...items([A('Tests written.'), U('Good. Now document the validation rules in the README.')]).map((i) => ({
      ...i,
      id: `n${i.id}`,
      covers: [`n${i.id}`],
    })),
  ];
  const seen: ContextItem[][] = [];
  const spy = {
    name: 'extractive',
    summarize: (r: Parameters<typeof summarizer.summarize>[0]) => (seen.push(r.items), summarizer.summarize(r)),
  };
  const second = await prepareCompaction({
    items: grown,
    meter,
    summarizer: spy,
    options: { budget, trigger: 'manual', force: true, all: true },
  });
  assert.ok(!('status' in second));
  assert.ok(
    seen.length > 0 && seen.every((batch) => !batch.some((i) => i.attachedFile)),
    'no attached copy reaches the summarizer',
  );
  const summary = second.checkpoints.find((c) => c.replaced.some((i) => i.attachedFile));
  assert.ok(summary, 'the copy was in a replaced span');
  assert.match(
    summary.summary,
    /Files re-attached earlier, their copies now dropped \(read them again for current contents\): src\/m6\.ts/,
  );
});

test('the reserve lowers what the plan aims at, so the files fit below the target', async () => {
  const ctx = [
    ...session(),
    ...items([
      A('Tests pass.'),
      U('Also handle empty input.'),
      Acalls([['x1', 'read_file', args({ path: 'src/m1.ts' })]]),
      T('x1', chars(2400, 9)),
    ]).map((i) => ({ ...i, id: `y${i.id}`, covers: [`y${i.id}`] })),
  ];
  const plain = await prepared(ctx);
  const reserved = await prepared(ctx, 700);
  assert.ok(plain.tokensAfter > 2000 - 700, `without a reserve the plan stops near the target (${plain.tokensAfter})`);
  assert.ok(reserved.tokensAfter <= 2000 - 700, `with a reserve of 700 it leaves room (${reserved.tokensAfter})`);
});
