/**
 * The import keeps clean messages as parsed and copies only what it cleans; ids renamed for
 * uniqueness still resolve for compactions; nesting faults name the deep field. These are the paths
 * that let a large recording import without holding every message twice.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { importTranscriptText } from '../../src/transcripts';
import { TranscriptBuilder } from '../../src/transcripts/builder';
import { checkMessage, tooDeep } from '../../src/transcripts/openai-messages';
import { TranscriptError } from '../../src/transcripts/errors';
import { assertPairing, assertWellFormed, transcriptError } from './helpers';

const fault = (path: Array<string | number>, detail: string) =>
  new TranscriptError('f.json', 1, path.join('.'), detail);

test('a clean message is kept as the parsed object; one that needs cleaning is a cleaned copy', () => {
  const clean = {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'look', arguments: '{}' } }],
  };
  const kept = checkMessage(clean, [0], fault);
  assert.equal(kept.message, clean);
  assert.deepEqual(kept.cleaned, []);

  const dirty = {
    role: 'assistant',
    extra: 1,
    content: 'x',
    tool_calls: [
      { id: 'c1', function: { name: 'look', arguments: { a: 1 } } },
      { id: 'c2', type: 'function', function: { name: 'see', arguments: '{}' } },
    ],
  };
  const before = JSON.stringify(dirty);
  const checked = checkMessage(dirty, [0], fault);
  assert.notEqual(checked.message, dirty);
  assert.equal(JSON.stringify(dirty), before, 'the parsed object is not modified');
  assert.deepEqual(checked.message, {
    role: 'assistant',
    content: 'x',
    tool_calls: [
      { id: 'c1', type: 'function', function: { name: 'look', arguments: '{"a":1}' } },
      { id: 'c2', type: 'function', function: { name: 'see', arguments: '{}' } },
    ],
  });
  assert.equal(checked.repairedArguments, 1);
  assert.deepEqual(checked.cleaned, ['field "extra" is not part of an assistant message; dropped']);
});

test('cleaning keeps field order and fills what the API needs', () => {
  assert.deepEqual(
    Object.entries(checkMessage({ content: null, role: 'tool', tool_call_id: 'c1' }, [0], fault).message),
    [
      ['content', ''],
      ['role', 'tool'],
      ['tool_call_id', 'c1'],
    ],
  );
  assert.deepEqual(checkMessage({ role: 'tool', tool_call_id: 'c1' }, [0], fault).message, {
    role: 'tool',
    tool_call_id: 'c1',
    content: '',
  });
  assert.deepEqual(checkMessage({ role: 'assistant', content: 'a', tool_calls: [] }, [0], fault).message, {
    role: 'assistant',
    content: 'a',
  });
  assert.deepEqual(checkMessage({ role: 'assistant', content: 'a', tool_calls: null }, [0], fault).message, {
    role: 'assistant',
    content: 'a',
  });
  const parts = checkMessage(
    {
      role: 'system',
      content: [
        { type: 'text', text: 't' },
        { type: 'image_url', image_url: { url: 'https://x/y.png' } },
      ],
    },
    [0],
    fault,
  );
  assert.deepEqual(parts.message.content, [
    { type: 'text', text: 't' },
    { type: 'text', text: '[image_url content left out]' },
  ]);
  const user = { role: 'user', content: [{ type: 'text', text: 't' }] };
  assert.equal(checkMessage(user, [0], fault).message, user, 'parts the role may carry are kept as they are');
});

test('the path of a value nested too deep names the first deep field met', () => {
  let deep: unknown = 1;
  for (let k = 0; k < 70; k++) deep = { a: deep };
  const path = tooDeep({ role: 'user', content: 'x', meta: { list: [0, { b: deep }] } })!;
  assert.deepEqual(path.slice(0, 5), ['meta', 'list', 1, 'b', 'a']);
  assert.equal(path.length, 64);
  assert.equal(tooDeep({ role: 'user', content: [{ type: 'text', text: 'x' }] }), undefined);
});

test('a message nested too deep inside a list is refused naming the list index', async () => {
  let deep = '1';
  for (let k = 0; k < 70; k++) deep = `[${deep}]`;
  const text = `[{"role":"user","content":"hi"},\n{"role":"assistant","content":"ok","meta":[0,\n${deep}]}]`;
  const err = await transcriptError(() => importTranscriptText(text, 'deep.json'));
  assert.match(err.message, /deep\.json:3: \[1\]\.meta\[1\]\[0\]/);
});

test('ids renamed for uniqueness still resolve the compaction summary they name', () => {
  const b = new TranscriptBuilder('f.json', 'openai-chat');
  const add = (id: string, content: string) =>
    b.add({ kind: 'message', id, meta: {}, message: { role: 'user', content } });
  add('a', 'first');
  add('a', 'second');
  // Its own id was taken by the renamed second `a`, so this first `a#2` is renamed as well.
  add('a#2', 'third');
  b.boundary({ id: 'x', summary: 'summary', summaryDraftId: 'a#2' });
  add('b', 'after');
  const t = b.finish();
  assert.deepEqual(
    t.entries.map((e) => e.id),
    ['a', 'a#2', 'a#2#2', 'b'],
  );
  assert.equal(t.compactions[0].summaryEntryId, 'a#2#2');

  const c = new TranscriptBuilder('f.json', 'openai-chat');
  c.add({ kind: 'message', id: 'a', meta: {}, message: { role: 'user', content: 'one' } });
  c.add({ kind: 'message', id: 'a', meta: {}, message: { role: 'user', content: 'two' } });
  // `a#2` names no draft (only the renamed copy of `a`): nothing to resolve.
  c.boundary({ id: 'x', summary: 's', summaryDraftId: 'a#2' });
  c.explicitCompactions.push({ replacedIds: ['a', 'a#2'], summary: 'e' });
  const u = c.finish();
  assert.equal(u.compactions[0].summaryEntryId, undefined);
  assert.deepEqual(u.compactions[1].replacedIds, ['a']);
  assert.ok(u.warnings.some((w) => /compaction names 1 record/.test(w)));
});

test('steps with many calls, results out of place and a missing result pair as before', async () => {
  const call = (id: string) => ({ id, type: 'function', function: { name: 'run', arguments: '{}' } });
  const ids = Array.from({ length: 20 }, (_, k) => `c${k}`);
  const messages = [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: null, tool_calls: ids.map(call) },
    ...ids
      .slice(0, 19)
      .reverse()
      .map((id) => ({ role: 'tool', tool_call_id: id, content: `r ${id}` })),
    { role: 'assistant', content: 'next', tool_calls: [call('d1')] },
    { role: 'user', content: 'more' },
    { role: 'tool', tool_call_id: 'd1', content: 'late' },
  ];
  const t = await importTranscriptText(JSON.stringify(messages), 'many.json');
  assertWellFormed(t);
  assertPairing(t.entries);
  assert.equal(t.entries.filter((e) => e.message.role === 'tool').length, 20);
  assert.ok(
    t.warnings.some((w) => /1 tool call\(s\) have no recorded result: c19/.test(w)),
    t.warnings.join('\n'),
  );
  assert.ok(
    t.warnings.some((w) => /moved next to their call/.test(w)),
    t.warnings.join('\n'),
  );
});
