/**
 * `compact` on a context that breaks an invariant: exit code 1 and one line on standard error naming
 * the invariant (DESIGN.md number and name) and the message; a context that keeps them all: neither.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { failOnViolations } from '../../src/cli/commands';
import { itemsFromEntries } from '../../src/compaction/context';
import { checkContext } from '../../src/compaction/plan/invariants';
import type { ContextItem, Entry } from '../../src/compaction/types';

const raw: Entry[] = [
  { id: 'm0', message: { role: 'user', content: 'add a retry budget' } },
  { id: 'm1', message: { role: 'assistant', content: 'Added.' } },
  { id: 'm2', message: { role: 'user', content: 'now test it' } },
  { id: 'm3', message: { role: 'assistant', content: 'Tests pass.' } },
];
const items = itemsFromEntries(raw);
const summary = (ids: string[]): ContextItem => ({
  id: 's',
  kind: 'summary',
  message: { role: 'user', content: 'summary' },
  covers: ids,
});

function exitAndNotes(context: ContextItem[]): { code: typeof process.exitCode; notes: string[] } {
  const notes: string[] = [];
  const saved = process.exitCode;
  try {
    process.exitCode = undefined;
    failOnViolations(checkContext(context, raw), (l) => notes.push(l));
    return { code: process.exitCode, notes };
  } finally {
    process.exitCode = saved;
  }
}

test('a context that lost the latest request exits with 1 and names invariant 3 and the message', () => {
  const { code, notes } = exitAndNotes([summary(['m0', 'm1', 'm2']), items[3]]);
  assert.equal(code, 1);
  assert.deepEqual(notes, [
    'error: the compacted context breaks invariant 3 (anchors): anchor message m2 (user) is not in the context verbatim',
  ]);
});

test('several violations: the first is named and the others counted', () => {
  // The latest request summarised, and the newest step dropped (nothing covers m3).
  const { code, notes } = exitAndNotes([summary(['m0', 'm1', 'm2'])]);
  assert.equal(code, 1);
  assert.equal(notes.length, 1);
  assert.match(
    notes[0],
    /^error: the compacted context breaks invariant \d \([a-z ]+\): .+ \(and \d+ more violations?\)$/,
  );
});

test('a context that keeps every invariant sets no exit code and says nothing', () => {
  assert.deepEqual(exitAndNotes([summary(['m0', 'm1']), items[2], items[3]]), { code: undefined, notes: [] });
});
