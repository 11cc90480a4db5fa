/**
 * Identifiers and code names come only from tokens that occur in the span as identifiers: not from
 * the keys of a tool call's arguments or of a recording's output envelope (`old_str`, `exit_code`),
 * an escape in JSON text (`\nOutput`), a command's options (`-NoProfile`), a handle (`@zCasee`), a
 * placeholder (`YOUR_API_KEY_HERE`), an example path from instructions (`/path/to/config.json`), a
 * piece of a path built from parts (`/page.tsx` of `app/[id]/page.tsx`), or a token cut by a clip.
 * Checked in every format with tool calls, and on the extraction itself.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, compactExtractive, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { extractIdentifiers } from '../../src/compaction/summary/identifiers/identifiers';
import { namesOfMessage } from '../../src/compaction/summary/identifiers/worked-names';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

const work: Step[] = [
  {
    user: 'Wire the billing client. The docs say to keep the key in /path/to/config.json, set as YOUR_API_KEY_HERE until we have one.',
  },
  { say: 'I will call `createInvoice` from the client and ask `@zCasee` for the real key.' },
  {
    tool: 'bash',
    command: 'powershell -NoProfile -Command "Get-Content billing/settings.json"',
    output: '{ "currency": "EUR" }',
    exit: 0,
  },
  { tool: 'read', path: 'app/[invoiceId]/page.tsx', output: 'export default function InvoicePage() {}' },
  {
    tool: 'write',
    path: 'src/billing/client.ts',
    content:
      'export function createInvoice(customerId: string) {\n  const apiKey = "YOUR_API_KEY_HERE";\n  console.log("sent\\nOutput ready");\n  return postInvoice(customerId, apiKey);\n}\n',
  },
  {
    tool: 'bash',
    command: 'npm run build',
    output: "src/billing/client.ts(4,10): error TS2304: Cannot find name 'postInvoice'.",
    ok: false,
  },
  {
    tool: 'edit',
    path: 'src/billing/client.ts',
    old: 'return postInvoice(customerId, apiKey);',
    new: 'return sendInvoiceRequest(customerId, apiKey);',
  },
  { tool: 'bash', command: 'npm run build', output: 'built in 2s', exit: 0 },
  { say: `Done. ${filler(2500)}` },
  { user: 'thanks' },
  { say: 'ok' },
];

/** The body of the section whose heading starts with `heading`, up to the next heading. */
function section(summary: string, heading: string): string {
  const lines = summary.split('\n');
  const at = lines.findIndex((l) => l.startsWith(`## ${heading}`));
  if (at < 0) return '';
  const end = lines.findIndex((l, i) => i > at && l.startsWith('## '));
  return lines.slice(at + 1, end < 0 ? undefined : end).join('\n');
}

const NOT_NAMES = [
  'exit_code',
  'duration_seconds',
  'old_str',
  'new_str',
  'file_text',
  'nOutput',
  'NoProfile',
  'zCasee',
];

for (const [format, { write, file }] of Object.entries(WRITERS)) {
  test(`${format}: code names and identifiers are the span's own, without schema keys, options, handles, placeholders or example paths`, async () => {
    const t = importTranscriptTextSync(write(work), file);
    const r = await compactExtractive(itemsFromEntries(t.entries));
    const item = r.context.find((i) => i.kind === 'summary');
    assert.ok(item, 'a summary was written');
    const summary = textWithPlaceholders(item.message.content);
    const names = section(summary, 'Code names');
    assert.match(summary, /\bcreateInvoice\b/, summary);
    assert.match(names, /\bpostInvoice\b/, summary);
    assert.match(summary, /\bsendInvoiceRequest\b/, summary);
    for (const n of [...NOT_NAMES, 'YOUR_API_KEY_HERE']) assert.doesNotMatch(names, new RegExp(`\\b${n}\\b`), summary);
    const ids = summary
      .split('\n')
      .filter((l) => /^- /.test(l))
      .map((l) => l.slice(2));
    assert.ok(!ids.some((l) => l.startsWith('/path/to/')), summary);
    assert.ok(!ids.includes('/page.tsx') && !ids.includes('app'), summary);
    const card = r.checkpoints.find((c) => c.retention)?.retention;
    assert.ok(card, 'the checkpoint has a scorecard');
    assert.ok(!card.missing.identifiers.includes('YOUR_API_KEY_HERE'), JSON.stringify(card));
  });
}

test('identifier extraction drops example paths, pieces of built paths and tokens cut by a clip', () => {
  const ids = extractIdentifiers(
    [
      'copy it to /path/to/file.txt or foo/bar.ts, then open src/real/module.ts',
      'the route is app/[slug]/page.tsx and the glob src/*.test.ts',
      'see lib/DevPanel.ts and docs/Dev\n[… 1200 characters clipped …]\nrest',
      'it printed `packages/core/DevP…`',
    ].join('\n'),
  );
  assert.ok(ids.includes('src/real/module.ts'), ids.join('\n'));
  assert.ok(ids.includes('lib/DevPanel.ts'), ids.join('\n'));
  for (const bad of ['/path/to/file.txt', 'foo/bar.ts', '/page.tsx', 'docs/Dev', 'packages/core/DevP', '.test.ts'])
    assert.ok(!ids.includes(bad), `${bad} in\n${ids.join('\n')}`);
});

test('code names drop escapes, options, handles, placeholders and tokens cut by a clip', () => {
  const names = namesOfMessage({
    role: 'assistant',
    content:
      'Ran `pwsh -NoProfile` and printed "done\\nOutput"; asked `@zCasee`; set AIza_REDACTED_KEY; found loadInvoices and DevP…',
  });
  assert.ok(names.has('loadInvoices'), [...names.keys()].join(', '));
  for (const bad of ['NoProfile', 'nOutput', 'zCasee', 'AIza_REDACTED_KEY', 'DevP'])
    assert.ok(!names.has(bad), `${bad} in ${[...names.keys()].join(', ')}`);
});

const listing: Step[] = [
  { user: 'find where the parser lives and fix the empty-input case' },
  {
    tool: 'bash',
    command: 'find . -name "*.py" | grep -v test_',
    output: './tools/stale_helper.py\n./docs/conf_builder.py\n./pkg/parser/core_reader.py',
    exit: 0,
  },
  { tool: 'read', path: 'pkg/parser/core_reader.py', output: 'def read_input(text):\n    return text.split()' },
  {
    tool: 'edit',
    path: 'pkg/parser/core_reader.py',
    old: '    return text.split()',
    new: '    return text.split() if text else []',
  },
  { say: `Fixed. ${filler(2500)}` },
  { user: 'thanks' },
  { say: 'ok' },
];

for (const format of ['claude-code', 'swe-agent', 'codex'] as const) {
  test(`${format}: entries of a folder listing are no identifiers; the file the agent then used is named`, async () => {
    const { write, file } = WRITERS[format];
    const t = importTranscriptTextSync(write(listing), file);
    const r = await compactExtractive(itemsFromEntries(t.entries));
    const item = r.context.find((i) => i.kind === 'summary');
    assert.ok(item, 'a summary was written');
    const summary = textWithPlaceholders(item.message.content);
    assert.match(summary, /pkg\/parser\/core_reader\.py/, summary);
    assert.doesNotMatch(summary, /stale_helper|conf_builder/, summary);
  });
}
