/**
 * One time and number format everywhere: the checkpoint document and its tab, the sidebar and the
 * editor's pickers write local times and figures through one `Intl` helper in the display locale (the
 * records keep ISO 8601 UTC): no "…Z" timestamp beside a local one, no "16.34" beside "04:34 PM".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import type * as Documents from '../../src/views/documents/checkpoint-documents';
import { loadWithVscodeShim } from '../support/vscode-shim';
import type { CheckpointRecord } from '../../src/service/records';
import { readdirSync, readFileSync } from 'node:fs';
import { formatClock, formatDateTime, formatWhen, setDisplayLocale } from '../../src/format/display';
import { formatTokens, formatTokensFull } from '../../src/format/tokens';

const { renderCheckpoint, checkpointTitle } = loadWithVscodeShim<typeof Documents>(
  path.join(__dirname, '../../src/views/documents/checkpoint-documents'),
);

const record = {
  id: 'cp-1',
  time: '2026-03-04T10:15:00.000Z',
  trigger: 'manual',
  strategy: 'summary',
  tokensBefore: 11_900,
  tokensAfter: 3_800,
  replacedIds: ['e1', 'e2'],
  replaced: [],
  inserted: [],
  summary: 'The parser was fixed.',
  dropped: 0,
  restored: true,
  restoredAt: '2026-03-04T11:20:00.000Z',
} as unknown as CheckpointRecord;

test('the checkpoint document gives the applied and restored times in local time', () => {
  const text = renderCheckpoint(record);
  assert.doesNotMatch(text, /\d{4}-\d\d-\d\dT\d\d:\d\d/, 'an ISO (UTC) timestamp is shown');
  assert.ok(text.includes(`| Time | ${formatDateTime(record.time)} |`), text);
  assert.ok(text.includes(`| Restored | ${formatDateTime(record.restoredAt)} |`), text);
  assert.ok(text.includes('| Tokens | 11,900 → 3,800 |'), text);
});

test('the tab title gives local time, trigger and tokens, in the same clock format as the sidebar', () => {
  assert.equal(checkpointTitle(record), `Checkpoint ${formatClock(record.time)} · manual · 12k → 3.8k`);
  assert.equal(formatWhen(record.time, new Date(record.time)), formatClock(record.time), 'the sidebar today');
});

test('the display locale sets every time and figure at once; an unknown tag falls back to en-US', (t) => {
  t.after(() => setDisplayLocale(undefined));
  // A fixed local time: the clock shows 16:34 wherever the test runs.
  const at = new Date(2026, 0, 12, 16, 34);
  assert.equal(setDisplayLocale('de'), 'de');
  assert.equal(formatClock(at), '16:34');
  assert.equal(formatDateTime(at), '12.01.26, 16:34');
  assert.equal(formatTokensFull(365_316), '365.316');
  assert.equal(formatTokens(11_900), '12k');
  assert.equal(formatTokens(9_500), '9,5k');
  assert.ok(renderCheckpoint(record).includes('| Tokens | 11.900 → 3.800 |'));
  setDisplayLocale('en-US');
  assert.equal(formatClock(at), '4:34 PM');
  assert.equal(formatDateTime(at), '1/12/26, 4:34 PM');
  assert.equal(formatTokensFull(365_316), '365,316');
  assert.equal(formatTokens(9_500), '9.5k');
  assert.equal(setDisplayLocale('not a locale!'), 'en-US');
});

test('no surface formats a time or a figure on its own (one helper, src/format/display.ts)', () => {
  const roots = ['src/views', 'src/webview'].map((d) => path.join(__dirname, '../../..', d));
  const offenders: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (file.endsWith('.ts') && /\.toLocale(Time|Date)?String\(|new Intl\./.test(readFileSync(file, 'utf8')))
        offenders.push(path.relative(path.join(__dirname, '../../..'), file));
    }
  };
  for (const root of roots) walk(root);
  assert.deepEqual(offenders, []);
});
