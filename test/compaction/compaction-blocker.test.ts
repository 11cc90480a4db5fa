/**
 * `compactionBlocker`: why a manual compaction could do nothing at all, said before it is asked for
 * (an empty conversation, everything left anchored), and nothing when some turn is eligible.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatMessage, ContextItem } from '../../src/compaction/types';
import { compactionBlocker } from '../../src/compaction/plan/planner';

let n = 0;
const item = (message: ChatMessage): ContextItem => {
  const id = `e${++n}`;
  return { id, kind: 'raw', message, covers: [id] };
};
const system = item({ role: 'system', content: 'You are a coding agent.' });

test('an empty conversation (the system prompt alone) is blocked as empty', () => {
  assert.equal(compactionBlocker([]), 'the conversation is empty');
  assert.equal(compactionBlocker([system]), 'the conversation is empty');
});

test('the current task alone is anchored: blocked with the anchors named', () => {
  const reason = compactionBlocker([
    system,
    item({ role: 'user', content: 'Fix the parser' }),
    item({ role: 'assistant', content: 'Fixed.' }),
  ]);
  assert.match(reason ?? '', /^nothing eligible: everything left is /);
});

test('an earlier finished turn is eligible: not blocked', () => {
  const items = [
    system,
    item({ role: 'user', content: 'Read the parser' }),
    item({ role: 'assistant', content: 'Read it.' }),
    item({ role: 'user', content: 'Now fix it' }),
    item({ role: 'assistant', content: 'Fixed.' }),
  ];
  assert.equal(compactionBlocker(items), undefined);
});
