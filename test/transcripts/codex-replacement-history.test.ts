/**
 * Codex compactions recorded as replacement history: the imported context is what Codex continued
 * from (the messages it kept and its summary), never an empty summary in their place.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { importTranscriptText } from '../../src/transcripts';
import { encryptedSummaryPlaceholder } from '../../src/transcripts/formats/codex';
import { applyRecordedCompactions, withAnswersBefore, withRequestsBefore } from '../../src/compaction/rewrite/imported';
import { itemsFromEntries } from '../../src/compaction/context';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { checkContext } from '../../src/compaction/plan/invariants';
import { assertWellFormed, transcriptError } from './helpers';

const rec = (type: string, payload: Record<string, unknown>) =>
  JSON.stringify({ timestamp: '2026-02-01T10:00:00.000Z', type, payload });
const msg = (role: string, text: string) => ({
  type: 'message',
  role,
  content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }],
});
const item = (payload: Record<string, unknown>) => rec('response_item', payload);
const meter = new TokenMeter({ counter: { encoding: 'o200k_base', countText: (t) => Math.ceil(t.length / 4) } });

const SEALED = 'gAAAAAB' + 'x'.repeat(6000);
/** The agent's answer in the compacted span, kept beside Codex's summary. */
const ANSWER = '- (to "Port the parser to Rust.") "Fixed the missing binding."';

function session(replacement: unknown[], message = ''): string {
  return [
    rec('session_meta', { id: 's', cwd: '/w', instructions: 'You are Codex.' }),
    item(msg('user', 'Port the parser to Rust.')),
    item({ type: 'function_call', name: 'shell', arguments: '{"command":["cargo","build"]}', call_id: 'c1' }),
    item({ type: 'function_call_output', call_id: 'c1', output: 'error[E0425]: cannot find value `x`' }),
    item(msg('assistant', 'Fixed the missing binding.')),
    item(msg('user', 'Keep the public API unchanged.')),
    item(msg('assistant', 'Understood.')),
    rec('compacted', { message, replacement_history: replacement }),
    item(msg('user', 'Now add benchmarks.')),
    item(msg('assistant', 'Adding them.')),
  ].join('\n');
}

function importedContext(text: string) {
  return importTranscriptText(text, 'rollout.jsonl').then((t) => {
    assertWellFormed(t);
    const applied = applyRecordedCompactions(itemsFromEntries(t.entries), t.compactions, meter);
    assert.deepEqual(applied.warnings, []);
    assert.deepEqual(checkContext(applied.items, t.entries), []);
    return { t, applied, texts: applied.items.map((i) => String(i.message.content)) };
  });
}

test('a remote compaction: the kept requests and a labelled placeholder for the encrypted summary make the context', async () => {
  const { t, applied, texts } = await importedContext(
    session([
      msg('developer', '<permissions>sandbox: workspace-write</permissions>'),
      msg('user', 'Port the parser to Rust.'),
      msg('user', 'Keep the public API unchanged.'),
      { type: 'compaction', encrypted_content: SEALED },
    ]),
  );
  // What Codex continued from, then what followed.
  assert.deepEqual(texts, [
    'You are Codex.',
    withAnswersBefore(encryptedSummaryPlaceholder(SEALED.length), [ANSWER]),
    '<permissions>sandbox: workspace-write</permissions>',
    'Port the parser to Rust.',
    'Keep the public API unchanged.',
    'Now add benchmarks.',
    'Adding them.',
  ]);
  assert.ok(!texts.includes(''), 'no empty message is sent');
  assert.match(texts[1], /encrypted by the provider \(6,007 characters of encrypted_content\)/);
  assert.deepEqual(
    applied.items.map((i) => i.message.role),
    ['system', 'user', 'developer', 'user', 'user', 'user', 'assistant'],
  );
  // Everything before the record is replaced, the replaced steps whole.
  assert.equal(t.compactions.length, 1);
  assert.deepEqual(t.compactions[0].replacedIds, ['L2', 'L3', 'L4', 'L5', 'L6', 'L7']);
  // The meter counts what is sent: the placeholder (with the answers kept beside it) and the kept
  // messages, not the replaced steps.
  const counted = meter.measure(applied.items).total;
  const expected = meter.measure(
    itemsFromEntries(t.entries.filter((e) => !t.compactions[0].replacedIds.includes(e.id))).map((i) =>
      i.message.content === encryptedSummaryPlaceholder(SEALED.length)
        ? { ...i, message: { role: 'user' as const, content: texts[1] } }
        : i,
    ),
  ).total;
  assert.equal(counted, expected);
  assert.ok(counted > meter.countText(encryptedSummaryPlaceholder(SEALED.length)));
});

test('the summary item is read under its older name too, and a history summary equal to the message is not doubled', async () => {
  const older = await importedContext(
    session([msg('user', 'Keep the public API unchanged.'), { type: 'compaction_summary', encrypted_content: 'gAAA' }]),
  );
  // The request typed before the compaction that Codex did not keep is carried under the summary.
  assert.deepEqual(older.texts.slice(1, 3), [
    withRequestsBefore(withAnswersBefore(encryptedSummaryPlaceholder(4), [ANSWER]), ['Port the parser to Rust.']),
    'Keep the public API unchanged.',
  ]);
  const summary = 'Summary: the parser builds; the public API stays unchanged.';
  const local = await importedContext(
    session([msg('user', 'Port the parser to Rust.'), msg('user', summary)], summary),
  );
  assert.deepEqual(local.texts, [
    'You are Codex.',
    withRequestsBefore(withAnswersBefore(summary, [ANSWER]), ['Keep the public API unchanged.']),
    'Port the parser to Rust.',
    'Now add benchmarks.',
    'Adding them.',
  ]);
});

test('a replacement history with no summary keeps its messages behind a short note; a bad item names its field', async () => {
  const bare = await importedContext(session([msg('user', 'Port the parser to Rust.')]));
  assert.match(bare.texts[1], /^\[Codex compacted the conversation here/);
  assert.equal(bare.texts[2], 'Port the parser to Rust.');
  const e = await transcriptError(() => importTranscriptText(session([msg('user', 'x'), 7]), 'rollout.jsonl'));
  assert.deepEqual([e.line, e.field], [8, 'payload.replacement_history[1]']);
  const role = await transcriptError(() => importTranscriptText(session([msg('robot', 'x')]), 'rollout.jsonl'));
  assert.deepEqual([role.line, role.field], [8, 'payload.replacement_history[0].role']);
});
