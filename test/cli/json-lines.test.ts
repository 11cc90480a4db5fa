import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeJsonLines } from '../../src/cli/json-lines';

/** The text writeJsonLines produces through an `out` that adds a newline per piece, as the CLI's does. */
function written(value: unknown): { text: string; pieces: number } {
  const pieces: string[] = [];
  writeJsonLines(value, (p) => pieces.push(`${p}\n`));
  return { text: pieces.join(''), pieces: pieces.length };
}

test('writeJsonLines prints exactly what JSON.stringify(value, null, 2) prints, with a final newline', () => {
  const values: unknown[] = [
    {
      applied: true,
      reason: undefined,
      fn: () => 1,
      nested: { empty: {}, list: [], deep: [[1, [2, { a: 'x\ny' }]], null] },
      out: undefined,
    },
    [undefined, () => 0, 'a', 1.5, false, null, { when: new Date(0) }, [[]], [{}]],
    'plain "string" with \\ and \u2028',
    42,
    null,
    {
      status: { kind: 'applied', anchored: { system: 10, tools: 0 } },
      checkpoints: [{ id: 'c1', replacedIds: ['m1', 'm2'], summary: 'line one\nline two', dropped: 0 }],
      violations: [],
    },
  ];
  for (const v of values) assert.equal(written(v).text, `${JSON.stringify(v, null, 2)}\n`);
});

test('writeJsonLines writes a long list in several pieces of whole lines', () => {
  const value = { checkpoints: [{ replacedIds: Array.from({ length: 20_000 }, (_, k) => `msg-${k}`) }] };
  const { text, pieces } = written(value);
  assert.equal(text, `${JSON.stringify(value, null, 2)}\n`);
  assert.ok(pieces > 1, `expected several writes, got ${pieces}`);
});

test('writeJsonLines refuses a cyclic value as JSON.stringify does', () => {
  const a: Record<string, unknown> = { b: 1 };
  a.self = a;
  assert.throws(() => writeJsonLines(a, () => undefined), TypeError);
});
