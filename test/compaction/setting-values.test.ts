/**
 * The value of an id, key, secret or token in a configuration is data, not a name: neither the tail
 * of a colon-joined id (a Firebase app id's `…:web:ae7e70cdb5…`) nor a quoted value under such a
 * label reaches the identifier lists or the code names; the code's own names still do.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, summaryOf, type Step } from '../support/recordings';
import { extractIdentifiers } from '../../src/compaction/summary/identifiers/identifiers';

const CONFIG = [
  "import { initializeApp } from 'firebase/app';",
  'const firebaseConfig = {',
  '  authDomain: "orders-prod.firebaseapp.com",',
  '  clientId: "ordersWebClient",',
  '  messagingSenderId: "000000000001",',
  '  appId: "1:000000000001:web:ae7e70cdb55086651e02d7",',
  '};',
  'export const app = initializeApp(firebaseConfig);',
].join('\n');

const work: Step[] = [
  { user: 'point the app at the production firebase project' },
  { tool: 'write', path: 'src/lib/firebase.ts', content: CONFIG },
  { say: `Configured. ${'The app now reads its settings from the production project. '.repeat(300)}` },
  { user: 'thanks' },
  { say: 'ok' },
];

/** The code-names section and the identifier lists of a summary. */
function lists(summary: string): string {
  return summary
    .split(/^(?=## )/m)
    .filter((s) => /^## (?:Code names|Identifiers)/.test(s))
    .join('\n');
}

test('a hex run that ends a colon-joined id or stands under an id label is no identifier', () => {
  const ids = extractIdentifiers(`${CONFIG}\nAUTH_TOKEN=9f8e7d6c5b4a3f2e1d0c\ncommit 4be9a4b0c1`);
  for (const value of ['ae7e70cdb55086651e02d7', '9f8e7d6c5b4a3f2e1d0c'])
    assert.ok(!ids.includes(value), ids.join(' | '));
  assert.ok(ids.includes('4be9a4b0c1'), ids.join(' | '));
});

for (const format of ['claude-code', 'cline', 'openai-chat'] as const) {
  test(`${format}: setting values reach neither the identifier lists nor the code names`, async () => {
    const { write, file } = WRITERS[format];
    const { summary } = await summaryOf(write(work), file);
    const listed = lists(summary);
    assert.doesNotMatch(listed, /ae7e70cdb55086651e02d7/, listed);
    assert.doesNotMatch(listed, /\bordersWebClient\b/, listed);
    assert.match(listed, /\bfirebaseConfig\b/, listed);
  });
}
