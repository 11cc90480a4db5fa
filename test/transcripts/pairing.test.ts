/**
 * Generated drafts in any order of calls and results: pairing repair always yields valid pairing and
 * loses no message (every draft is emitted, or merged into an assistant message that is).
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Entry } from '../../src/compaction/types';
import type { Draft, MessageDraft } from '../../src/transcripts/drafts';
import { pairToolResults, pairedAsRecorded, repairPairing } from '../../src/transcripts/pairing';
import { assertPairing } from './helpers';

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function generate(seed: number): Draft[] {
  const rnd = random(seed);
  const drafts: Draft[] = [];
  const pendingCalls: string[] = [];
  let callNo = 0;
  for (let i = 0; i < 40; i++) {
    const id = `d${i}`;
    const r = rnd();
    if (r < 0.15) drafts.push({ kind: 'message', id, meta: {}, message: { role: 'user', content: 'u' } });
    else if (r < 0.45) {
      const n = Math.floor(rnd() * 3);
      const calls = Array.from({ length: n }, () => `c${callNo++}`);
      pendingCalls.push(...calls);
      const message: MessageDraft['message'] = n
        ? {
            role: 'assistant',
            content: null,
            tool_calls: calls.map((c) => ({
              id: c,
              type: 'function' as const,
              function: { name: 'f', arguments: '{}' },
            })),
          }
        : { role: 'assistant', content: 'a' };
      drafts.push({ kind: 'message', id, meta: {}, message, responseKey: rnd() < 0.3 ? 'same' : undefined });
    } else if (r < 0.9) {
      // Mostly results of open calls, sometimes unknown or repeated ids, sometimes results of later calls.
      const pick = rnd();
      const callId =
        pick < 0.75 && pendingCalls.length
          ? pendingCalls.splice(Math.floor(rnd() * pendingCalls.length), 1)[0]
          : pick < 0.85
            ? `c${callNo + 1}`
            : `x${i}`;
      drafts.push({ kind: 'message', id, meta: {}, message: { role: 'tool', tool_call_id: callId, content: 'r' } });
    } else drafts.push({ kind: 'boundary', id, summary: 's' });
  }
  return drafts;
}

test('pairing repair: generated sequences stay valid and lose nothing', () => {
  for (let seed = 1; seed <= 300; seed++) {
    const drafts = generate(seed);
    const paired = pairToolResults(drafts);
    const entries: Entry[] = paired.items.flatMap((d) =>
      d.kind === 'message' ? [{ id: d.id, message: d.message }] : [],
    );
    assertPairing(entries);
    const emitted = new Set(entries.map((e) => e.id));
    for (const d of drafts) {
      if (d.kind !== 'message') continue;
      const kept = emitted.has(d.id) || (paired.alias.has(d.id) && emitted.has(paired.alias.get(d.id) as string));
      assert.ok(kept, `seed ${seed}: draft ${d.id} lost`);
    }
    const callsIn = drafts.reduce(
      (n, d) => n + (d.kind === 'message' && d.message.role === 'assistant' ? (d.message.tool_calls?.length ?? 0) : 0),
      0,
    );
    const callsOut = entries.reduce(
      (n, e) => n + (e.message.role === 'assistant' ? (e.message.tool_calls?.length ?? 0) : 0),
      0,
    );
    assert.equal(callsOut, callsIn, `seed ${seed}: tool calls kept`);
  }
});

/** Mostly well-formed drafts: steps answered in any order inside their run, ids reused across steps, boundaries, some faults. */
function generateRecorded(seed: number): Draft[] {
  const rnd = random(seed);
  const drafts: Draft[] = [];
  // Half the sequences hold faults, at about one in 20 steps.
  const fault = seed % 2 ? 0.05 : 0;
  for (let i = 0; drafts.length < 60; i++) {
    const r = rnd();
    if (r < 0.2) drafts.push({ kind: 'message', id: `u${i}`, meta: {}, message: { role: 'user', content: 'u' } });
    else if (r < 0.27) drafts.push({ kind: 'boundary', id: `b${i}`, summary: 's' });
    else {
      const n = Math.floor(rnd() * 4);
      // Servers that number calls per reply reuse ids across steps; a faulty step repeats an id inside itself.
      const calls = Array.from({ length: n }, (_, k) => (rnd() < fault ? 'c0' : `c${rnd() < 0.5 ? k : `${i}_${k}`}`));
      const message: MessageDraft['message'] = n
        ? {
            role: 'assistant',
            content: null,
            tool_calls: calls.map((c) => ({
              id: c,
              type: 'function' as const,
              function: { name: 'f', arguments: '{}' },
            })),
          }
        : { role: 'assistant', content: 'a' };
      drafts.push({ kind: 'message', id: `a${i}`, meta: {}, message, responseKey: rnd() < fault ? 'same' : undefined });
      const order = calls.slice().sort(() => rnd() - 0.5);
      // A faulty step leaves a call unanswered or answers an unknown id.
      if (order.length && rnd() < fault) order.pop();
      if (rnd() < fault) order.push('unknown');
      for (const [k, c] of order.entries())
        drafts.push({
          kind: 'message',
          id: `t${i}_${k}`,
          meta: {},
          message: { role: 'tool', tool_call_id: c, content: 'r' },
        });
    }
  }
  return drafts;
}

test('pairing repair: a recording that needs no repair is returned as it is, as the repair pass would return it', () => {
  let asRecorded = 0;
  for (let seed = 1; seed <= 400; seed++) {
    for (const drafts of [generateRecorded(seed), generate(seed)]) {
      const full = repairPairing(drafts);
      const paired = pairToolResults(drafts);
      if (pairedAsRecorded(drafts)) {
        asRecorded++;
        assert.equal(paired.items, drafts, `seed ${seed}: the drafts themselves`);
        assert.deepEqual(
          full,
          { items: drafts, alias: new Map(), warnings: [] },
          `seed ${seed}: the repair pass changes nothing`,
        );
      } else assert.deepEqual(paired, full, `seed ${seed}: repaired by the pass`);
    }
  }
  // Both kinds occur: the check says no where the pass repairs something, and yes often.
  assert.ok(asRecorded > 150 && asRecorded < 500, `${asRecorded} of 800 sequences need no repair`);
});
