/**
 * Generated drafts in any order of calls and results: pairing repair always yields valid pairing and
 * loses no message (every draft is emitted, or merged into an assistant message that is).
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Entry } from '../../src/compaction/types';
import type { Draft, MessageDraft } from '../../src/transcripts/drafts';
import { pairToolResults } from '../../src/transcripts/pairing';
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
        ? { role: 'assistant', content: null, tool_calls: calls.map((c) => ({ id: c, type: 'function' as const, function: { name: 'f', arguments: '{}' } })) }
        : { role: 'assistant', content: 'a' };
      drafts.push({ kind: 'message', id, meta: {}, message, responseKey: rnd() < 0.3 ? 'same' : undefined });
    } else if (r < 0.9) {
      // Mostly results of open calls, sometimes unknown or repeated ids, sometimes results of later calls.
      const pick = rnd();
      const callId = pick < 0.75 && pendingCalls.length ? pendingCalls.splice(Math.floor(rnd() * pendingCalls.length), 1)[0] : pick < 0.85 ? `c${callNo + 1}` : `x${i}`;
      drafts.push({ kind: 'message', id, meta: {}, message: { role: 'tool', tool_call_id: callId, content: 'r' } });
    } else drafts.push({ kind: 'boundary', id, summary: 's' });
  }
  return drafts;
}

test('pairing repair: generated sequences stay valid and lose nothing', () => {
  for (let seed = 1; seed <= 300; seed++) {
    const drafts = generate(seed);
    const paired = pairToolResults(drafts);
    const entries: Entry[] = paired.items.flatMap((d) => (d.kind === 'message' ? [{ id: d.id, message: d.message }] : []));
    assertPairing(entries);
    const emitted = new Set(entries.map((e) => e.id));
    for (const d of drafts) {
      if (d.kind !== 'message') continue;
      const kept = emitted.has(d.id) || (paired.alias.has(d.id) && emitted.has(paired.alias.get(d.id) as string));
      assert.ok(kept, `seed ${seed}: draft ${d.id} lost`);
    }
    const callsIn = drafts.reduce((n, d) => n + (d.kind === 'message' && d.message.role === 'assistant' ? (d.message.tool_calls?.length ?? 0) : 0), 0);
    const callsOut = entries.reduce((n, e) => n + (e.message.role === 'assistant' ? (e.message.tool_calls?.length ?? 0) : 0), 0);
    assert.equal(callsOut, callsIn, `seed ${seed}: tool calls kept`);
  }
});
