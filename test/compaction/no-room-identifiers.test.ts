/**
 * When the room left in a summary holds no identifier line at all, the count of what was left out
 * stands under a plain "## Identifiers" heading and says why, not under one source's heading (which
 * read as an empty list of that source). Recorded in Claude Code's and Cline's formats.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { backfillIdentifiers, BACKFILL_HEADINGS } from '../../src/compaction/summary/identifiers/backfill';

for (const format of ['claude-code', 'cline'] as const) {
  test(`${format}: no room for any identifier line: one plain count under its own heading`, () => {
    const { write, file } = WRITERS[format];
    const steps: Step[] = [
      { user: 'wire the billing service into the checkout page' },
      { tool: 'read', path: 'src/services/billingService.ts', output: 'export class BillingService {}' },
      { tool: 'read', path: 'src/pages/checkoutPage.tsx', output: 'export function CheckoutPage() {}' },
      { say: 'BillingService goes into CheckoutPage through useBillingClient.' },
    ];
    const items = itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
    const summary = '## Current work and next step\n- none';
    const { text, added } = backfillIdentifiers(summary, items, 0, new Map(), undefined, undefined, true);
    assert.deepEqual(added, []);
    const tail = text.slice(summary.length).trim();
    assert.match(
      tail,
      /^## Identifiers\n- … \d+ identifiers? of the replaced messages not listed: no room left in this summary$/,
      text,
    );
    for (const heading of Object.values(BACKFILL_HEADINGS)) assert.ok(!text.includes(heading), text);
  });
}
