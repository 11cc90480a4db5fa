/**
 * The scorecard of a clip (the middle of one message too large for the window cut out): a request
 * the clip left intact is kept whole, even when the clip took harness text between its parts (a
 * Cline task with its environment block); a request whose own words the clip cut is not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { retentionScorecard } from '../../src/compaction/retention/scorecard';
import type { ChatMessage, ContextItem } from '../../src/compaction/types';

const REQUEST = 'The plan asks for two values each run. How do I stop these prompts after terraform plan?';
const PASTED = Array.from({ length: 60 }, (_, i) => `var.firebase_key_${i}\n  Enter a value:`).join('\n');

/** The user message of `format`'s recording of the request, with `extra` text after the request. */
function userItem(format: 'cline' | 'openai-chat', extra: string): ContextItem {
  const { write, file } = WRITERS[format];
  const entries = importTranscriptTextSync(
    write([{ user: `${REQUEST}\n\n${extra}` }, { say: 'Looking.' }]),
    file,
  ).entries;
  const item = itemsFromEntries(entries).find((it) => it.message.role === 'user');
  assert.ok(item, 'the recording has a user message');
  return item;
}

/** `item` clipped: every text part's middle from `cutFrom` characters on replaced by the clip marker. */
function clipped(item: ContextItem, cut: (text: string) => string): ContextItem {
  const content = item.message.content;
  const message = {
    ...item.message,
    content:
      typeof content === 'string'
        ? cut(content)
        : (content as Array<{ type: string; text?: string }>).map((p) =>
            p.type === 'text' && p.text ? { ...p, text: cut(p.text) } : p,
          ),
  } as ChatMessage;
  return { id: `${item.id}~k`, kind: 'clipped', message, covers: [...item.covers], checkpointId: 'ck-1' };
}

test('cline: a clip that took only the environment block keeps the request whole', () => {
  const item = userItem('cline', 'What model are you using?');
  // Only the harness part is cut.
  const inserted = clipped(item, (t) =>
    t.startsWith('<environment_details>')
      ? `<environment_details>\n[… 80 characters clipped …]\n</environment_details>`
      : t,
  );
  const card = retentionScorecard({ replaced: [item], inserted: [inserted] });
  assert.ok(card);
  assert.deepEqual(card.requests, { total: 1, whole: 1, shortened: 0, leftOut: 0 }, JSON.stringify(card.missing));
});

for (const format of ['cline', 'openai-chat'] as const)
  test(`${format}: a clip that cut the person's own words does not keep the request whole`, () => {
    const item = userItem(format, PASTED);
    const inserted = clipped(item, (t) =>
      t.includes('var.firebase_key_0')
        ? `${t.slice(0, 200)}\n[… ${t.length - 400} characters clipped …]\n${t.slice(-200)}`
        : t,
    );
    const card = retentionScorecard({ replaced: [item], inserted: [inserted] });
    assert.ok(card);
    assert.equal(card.requests.total, 1);
    assert.equal(card.requests.whole, 0, JSON.stringify(card));
  });
