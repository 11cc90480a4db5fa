/**
 * A grown span's new secret values: a typed request kept from the span before is masked again only
 * when a new value can change it, and the scorecard of the grown span equals the one of fresh copies
 * of its messages (nothing kept per message).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { itemsFromEntries } from '../../src/compaction/context';
import { retentionScorecard } from '../../src/compaction/retention/scorecard';
import { maskValues, sameMasking } from '../../src/compaction/secret-values';
import type { ChatMessage } from '../../src/compaction/types';
import { rng } from '../support/generate';
import { summaryItem } from '../support/conversation';

test('a text judged masked alike with the values added is masked alike', () => {
  const r = rng(11);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  // Values that occur in the texts, overlap each other, or could occur only across or inside a label.
  const pool = [
    'Alpha-1234-5678',
    '1234-5678',
    'Beta-9999-8888',
    'masked s',
    'ecret]Alpha',
    'd secret',
    'x[masked',
    'Gamma_0000_1111',
    'unused-value-42',
  ];
  const words = ['token', 'Alpha-1234-5678', 'Beta-9999-8888', ' ', '[masked secret]', 'Gamma_0000_1111', 'x', '-'];
  let judged = 0;
  for (let round = 0; round < 3000; round++) {
    const masked = Array.from({ length: 1 + Math.floor(r() * 8) }, () => pick(words)).join('');
    const before = [...new Set(Array.from({ length: 1 + Math.floor(r() * 3) }, () => pick(pool)))];
    const extra = [...new Set(Array.from({ length: Math.floor(r() * 3) }, () => pick(pool)))].filter(
      (v) => !before.includes(v),
    );
    // As spanSecretValues orders them: longest first, values of one length in the order first held.
    const now = [...before, ...extra].sort((a, b) => b.length - a.length);
    before.sort((a, b) => b.length - a.length);
    if (!sameMasking(masked, before, now)) continue;
    judged++;
    assert.equal(maskValues(masked, now), maskValues(masked, before), JSON.stringify({ masked, before, now }));
  }
  assert.ok(judged > 500, `${judged} judged alike`);
  // A value taken away, or the old ones reordered, is never judged alike.
  assert.equal(sameMasking('x', ['Alpha-1234-5678', 'Beta-9999-8888'], ['Alpha-1234-5678']), false);
  assert.equal(sameMasking('x', ['aaaaaaaa1', 'bbbbbbbb1'], ['bbbbbbbb1', 'aaaaaaaa1']), false);
  // An added value the text holds changes it.
  assert.equal(sameMasking('use Beta-9999-8888', ['Alpha-1234-5678'], ['Alpha-1234-5678', 'Beta-9999-8888']), false);
});

test("a grown span's scorecard, its new messages adding secret values, equals the scorecard of fresh copies", () => {
  const messages: ChatMessage[] = [
    { role: 'user', content: 'Set API_KEY=Alpha-1234-5678 in the env file of the service, then restart it.' },
    { role: 'assistant', content: 'Done: the key is in the env file and the service restarted.' },
    { role: 'user', content: 'Use the token Beta-9999-8888-7777 for the staging deploy of the web app.' },
    { role: 'assistant', content: 'Deploying to staging with that token.' },
    { role: 'user', content: 'Write the release notes for version 2.4 of the web app.' },
    { role: 'assistant', content: 'The release notes are written.' },
  ];
  const grownBy: ChatMessage[] = [
    // Names the staging token as a secret: the request that quoted it bare is masked from now on.
    { role: 'user', content: 'export STAGING_TOKEN=Beta-9999-8888-7777 before you deploy again.' },
    { role: 'assistant', content: 'Exported.' },
    { role: 'user', content: 'Also set DEPLOY_PASSWORD=Gamma_0000_1111 for the production deploy.' },
    { role: 'assistant', content: 'Set.' },
  ];
  // Long enough that the scorecard keeps its reading for the grown span.
  const filler: ChatMessage[] = [];
  for (let k = 0; k < 150; k++)
    filler.push(
      { role: 'user', content: `Rename the helper number ${k} in lib/helpers${k}.ts to a clearer name.` },
      { role: 'assistant', content: `Renamed helper ${k}.` },
    );
  const all = [...messages, ...filler, ...grownBy];
  const entries = all.map((message, i) => ({ id: `m${i}`, message }));
  const items = itemsFromEntries(entries);
  const summary = summaryItem(
    [
      'Set API_KEY=[masked secret] in the env file of the service, then restart it.',
      // As written before the token was known as a secret: the request masked no longer equals it.
      'Use the token Beta-9999-8888-7777 for the staging deploy of the web app.',
      'Write the release notes for version 2.4 of the web app.',
    ].join('\n'),
  );
  const card = (span: ReturnType<typeof itemsFromEntries>) =>
    retentionScorecard({ replaced: span, inserted: [summary] });
  const prefix = items.slice(0, messages.length + filler.length);
  const before = card(prefix);
  const grown = card(items);
  const fresh = card(itemsFromEntries(structuredClone(entries)));
  assert.deepEqual(grown, fresh);
  assert.deepEqual(card(prefix), before);
  assert.deepEqual(before, card(itemsFromEntries(structuredClone(entries.slice(0, prefix.length)))));
  // The staging request is masked once its token is known as a secret: no longer the line kept whole.
  assert.ok(before && grown);
  assert.equal(grown.requests.whole, before.requests.whole - 1, JSON.stringify([before.requests, grown.requests]));
});
