/**
 * The code names and the identifier lists have a cap whatever the room: the names the agent's tool
 * calls used (edits, commands, searches) rank before those it only said, and each list ends with a
 * line saying how many it left out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, summaryOf, sectionOf, type Step } from '../support/recordings';
import { MAX_LISTED_NAMES } from '../../src/compaction/summary/identifiers/worked-names';
import { MAX_IDENTIFIER_LINES } from '../../src/compaction/summary/identifiers/backfill';

const VERBS = [
  'fetch',
  'load',
  'save',
  'render',
  'parse',
  'format',
  'check',
  'build',
  'merge',
  'split',
  'sort',
  'track',
  'price',
  'ship',
  'audit',
];
const NOUNS = [
  'Order',
  'Invoice',
  'Customer',
  'Basket',
  'Coupon',
  'Refund',
  'Parcel',
  'Ledger',
  'Voucher',
  'Receipt',
  'Carrier',
  'Warehouse',
  'Supplier',
  'Payment',
  'Discount',
  'Product',
  'Review',
  'Return',
  'Shipment',
  'Account',
];
const NAMES = VERBS.flatMap((v) => NOUNS.map((n) => `${v}${n}`));
const FOLDERS = ['alpha', 'bravo', 'delta', 'gamma', 'kilo', 'lima', 'mike', 'oscar', 'papa', 'romeo'];
const HITS = FOLDERS.flatMap((f) =>
  NOUNS.slice(0, 10).map((n) => `src/${f}/${n.toLowerCase()}View.ts:3:  // TODO price`),
);

const work: Step[] = [
  { user: 'add the shop helpers and find the price todos' },
  {
    tool: 'write',
    path: 'src/shop.ts',
    content: NAMES.map((n) => `export function ${n}() {\n  return 1;\n}`).join('\n'),
  },
  { tool: 'bash', command: 'grep -rn "TODO price" src', output: HITS.join('\n') },
  // Said after the calls, as strongly as they use their names: the names the calls used rank first.
  { say: 'The `proseOnlyHelper` stays as it is.' },
  { say: `Done. ${'The helpers are in place and the todos are listed above for the next step. '.repeat(1500)}` },
  { user: 'thanks' },
  { say: 'ok' },
];

for (const format of ['claude-code', 'codex', 'cline'] as const) {
  test(`${format}: the code names are capped, used names first, and say how many were left out`, async () => {
    const { write, file } = WRITERS[format];
    const { summary } = await summaryOf(write(work), file);
    const lines = sectionOf(summary, 'Code names').split('\n');
    const listed = lines.filter((l) => !l.startsWith('- … ')).flatMap((l) => l.slice(2).split(', '));
    // The names the files section holds are not listed again: the rest is more than the cap.
    assert.equal(listed.length, MAX_LISTED_NAMES, lines.join('\n'));
    assert.ok(
      listed.every((n) => NAMES.includes(n)),
      lines.join('\n'),
    );
    assert.ok(!listed.includes('proseOnlyHelper'), lines.join('\n'));
    assert.match(lines.at(-1)!, /^- … \d+ more names used less, not listed$/, lines.join('\n'));
  });

  test(`${format}: the identifier lists are capped and say how many were left out`, async () => {
    const { write, file } = WRITERS[format];
    const { summary } = await summaryOf(write(work), file);
    const ids = summary
      .split(/^(?=## )/m)
      .filter((s) => s.startsWith('## Identifiers'))
      .flatMap((s) => s.split('\n').filter((l) => l.startsWith('- ')));
    const items = ids.filter((l) => !l.startsWith('- … '));
    assert.ok(items.length <= MAX_IDENTIFIER_LINES, ids.join('\n'));
    const left = /^- … (\d+) more identifiers not listed$/.exec(ids.at(-1) ?? '');
    assert.ok(left, ids.join('\n'));
    assert.ok(items.length + Number(left[1]) >= HITS.length, ids.join('\n'));
  });
}
