/**
 * Claude Code imports keep what the recorded agent kept: messages preserved at a compact boundary stay
 * in the imported context, and a new root appended to a file continues it instead of abandoning it.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { importTranscriptText } from '../../src/transcripts';
import { applyRecordedCompactions } from '../../src/compaction/rewrite/imported';
import { itemsFromEntries } from '../../src/compaction/context';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { checkContext } from '../../src/compaction/plan/invariants';
import { assertWellFormed } from './helpers';

const base = {
  sessionId: 's1',
  cwd: '/w',
  version: '2.1.126',
  isSidechain: false,
  timestamp: '2026-01-01T00:00:00.000Z',
};
const line = (o: Record<string, unknown>) => JSON.stringify({ ...base, ...o });
const user = (uuid: string, parentUuid: string | null, content: unknown, extra: Record<string, unknown> = {}) =>
  line({ type: 'user', uuid, parentUuid, message: { role: 'user', content }, ...extra });
const assistant = (uuid: string, parentUuid: string, id: string, content: unknown[]) =>
  line({
    type: 'assistant',
    uuid,
    parentUuid,
    message: { role: 'assistant', id, model: 'claude-x', content, usage: { input_tokens: 10, output_tokens: 2 } },
  });
const meter = new TokenMeter({ counter: { encoding: 'o200k_base', countText: (t) => Math.ceil(t.length / 4) } });

/** A session compacted with a preserved segment: u1 a1 u2 a2 are summarised, u3 a3 r3 a4 kept, then it goes on. */
function preservedSession(): string {
  return [
    user('u1', null, 'Set up the project with a README.'),
    assistant('a1', 'u1', 'm1', [{ type: 'text', text: 'Done, README written.' }]),
    user('u2', 'a1', 'Add a CI workflow.'),
    assistant('a2', 'u2', 'm2', [{ type: 'text', text: 'CI added.' }]),
    user('u3', 'a2', 'Now make the tests pass on Windows.'),
    assistant('a3', 'u3', 'm3', [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm test' } }]),
    user('r3', 'a3', [{ type: 'tool_result', tool_use_id: 't1', content: 'FAIL path separator' }]),
    assistant('a4', 'r3', 'm4', [{ type: 'text', text: 'The failure is the path separator.' }]),
    line({
      type: 'system',
      subtype: 'compact_boundary',
      uuid: 'b1',
      parentUuid: null,
      logicalParentUuid: 'a4',
      content: 'Conversation compacted',
      compactMetadata: {
        trigger: 'auto',
        preTokens: 160000,
        preservedSegment: { headUuid: 'u3', anchorUuid: 'b1', tailUuid: 'a4' },
      },
    }),
    user('s1', 'b1', 'This session is being continued from a previous conversation. Summary: README and CI done.', {
      isCompactSummary: true,
      isVisibleInTranscriptOnly: true,
    }),
    user('u5', 'a4', 'Use path.join everywhere.'),
    assistant('a5', 'u5', 'm5', [{ type: 'text', text: 'Switched to path.join.' }]),
  ].join('\n');
}

test('claude-code: messages preserved at a compact boundary are not replaced; the summary and what follows stay', async () => {
  const t = await importTranscriptText(preservedSession(), 's.jsonl');
  assertWellFormed(t);
  assert.equal(t.skipped['abandoned-branch'], undefined, 'nothing is read as an abandoned branch');
  assert.deepEqual(
    t.entries.map((e) => e.id),
    ['u1', 'a1', 'u2', 'a2', 'u3', 'a3', 'r3', 'a4', 's1', 'u5', 'a5'],
  );
  assert.equal(t.compactions.length, 1);
  assert.deepEqual(t.compactions[0].replacedIds, ['u1', 'a1', 'u2', 'a2']);
  assert.equal(t.compactions[0].summaryEntryId, 's1');
  // The imported context: the agent's summary, then the messages it kept, then the rest, verbatim.
  const applied = applyRecordedCompactions(itemsFromEntries(t.entries), t.compactions, meter);
  const texts = applied.items.map((i) => (typeof i.message.content === 'string' ? i.message.content : i.kind));
  assert.match(texts[0], /README and CI done/);
  for (const kept of [
    'Now make the tests pass on Windows.',
    'The failure is the path separator.',
    'Use path.join everywhere.',
    'Switched to path.join.',
  ])
    assert.ok(texts.includes(kept), `kept: ${kept}`);
  assert.ok(!texts.includes('Add a CI workflow.'), 'the summarised request is replaced');
  // Where the summary entry was, after the kept messages, a short pointer stands instead of a copy.
  assert.match(
    texts[texts.indexOf('The failure is the path separator.') + 1],
    /^\[The recording agent's summary was here; it now stands before the messages that agent kept/,
  );
  assert.deepEqual(checkContext(applied.items, t.entries), []);
});

test('claude-code: without a preserved segment everything before the boundary is replaced (older versions)', async () => {
  const text = preservedSession()
    .split('\n')
    .map((l) => l.replace(/,"preservedSegment":\{[^}]*\}/, ''))
    .join('\n')
    .replace(
      '"parentUuid":"a4","message":{"role":"user","content":"Use',
      '"parentUuid":"s1","message":{"role":"user","content":"Use',
    );
  const t = await importTranscriptText(text, 's.jsonl');
  assertWellFormed(t);
  assert.deepEqual(t.compactions[0].replacedIds, ['u1', 'a1', 'u2', 'a2', 'u3', 'a3', 'r3', 'a4']);
});

test('claude-code: a second boundary may forget what the first kept', async () => {
  const text = [
    preservedSession(),
    line({
      type: 'system',
      subtype: 'compact_boundary',
      uuid: 'b2',
      parentUuid: null,
      logicalParentUuid: 'a5',
      compactMetadata: { trigger: 'manual', preTokens: 90000 },
    }),
    user('s2', 'b2', 'This session is being continued from a previous conversation. Summary: Windows paths fixed.', {
      isCompactSummary: true,
    }),
    user('u6', 's2', 'Release it.'),
  ].join('\n');
  const t = await importTranscriptText(text, 's.jsonl');
  assertWellFormed(t);
  assert.equal(t.compactions.length, 2);
  assert.deepEqual(t.compactions[1].replacedIds, ['u3', 'a3', 'r3', 'a4', 's1', 'u5', 'a5']);
  const applied = applyRecordedCompactions(itemsFromEntries(t.entries), t.compactions, meter);
  assert.deepEqual(checkContext(applied.items, t.entries), []);
  assert.ok(applied.items.some((i) => i.message.content === 'Release it.'));
});

test('claude-code: a user line with parentUuid null appended to a file continues it (no rewind marker)', async () => {
  const text = [
    user('u1', null, 'Fix the login bug.'),
    assistant('a1', 'u1', 'm1', [{ type: 'text', text: 'Fixed in auth.ts.' }]),
    user('u2', 'a1', 'Thanks, now add a test.'),
    assistant('a2', 'u2', 'm2', [{ type: 'text', text: 'Test added.' }]),
    user('u3', null, 'Appended later: also update the changelog.'),
  ].join('\n');
  const t = await importTranscriptText(text, 's.jsonl');
  assertWellFormed(t);
  assert.deepEqual(
    t.entries.map((e) => e.id),
    ['u1', 'a1', 'u2', 'a2', 'u3'],
  );
  assert.equal(t.skipped['abandoned-branch'], undefined);
  assert.ok(
    t.warnings.some((w) => /new chain without a parent/.test(w)),
    t.warnings.join('; '),
  );
});

test('claude-code: a real rewind (a record pointing at an earlier parent) still drops the abandoned branch', async () => {
  const text = [
    user('u1', null, 'Fix the login bug.'),
    assistant('a1', 'u1', 'm1', [{ type: 'text', text: 'Attempt one.' }]),
    user('u2', 'a1', 'No, that is wrong.'),
    assistant('a2', 'u2', 'm2', [{ type: 'text', text: 'Attempt two.' }]),
    user('u2b', 'a1', 'Try the session cookie instead.'),
    assistant('a3', 'u2b', 'm3', [{ type: 'text', text: 'Cookie fixed.' }]),
    user('u4', null, 'Appended: ship it.'),
  ].join('\n');
  const t = await importTranscriptText(text, 's.jsonl');
  assertWellFormed(t);
  assert.deepEqual(
    t.entries.map((e) => e.id),
    ['u1', 'a1', 'u2b', 'a3', 'u4'],
  );
  assert.equal(t.skipped['abandoned-branch'], 2);
});
