/**
 * Tool output recorded as JSON text (Codex) holds its lines as `\n` escapes: a path, a hash or an id
 * at the start of such a line is read as one, as on the output's first line and as in the formats
 * that record the output's text itself. A Windows path in JSON text is read with single separators
 * and ends where an escape begins.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, summaryOf, windowFor, type Step } from '../support/recordings';
import { extractIdentifiers } from '../../src/compaction/summary/identifiers/identifiers';

const filler = (n: number) => 'The registry now resolves the local server after the search. '.repeat(n);

const work: Step[] = [
  { user: 'find where the provider is created' },
  {
    tool: 'bash',
    command: 'rg -l "createProvider"',
    output: 'src/ai/fallback-chain.ts\nsrc/ai/providers/lmstudio-provider.ts\n/srv/app/config/provider-table.json',
  },
  { say: `Found the three places. ${filler(40)}` },
  { user: 'thanks' },
  { say: 'ok' },
];

for (const format of ['codex', 'claude-code', 'openhands'] as const) {
  test(`${format}: paths on every line of a tool output are identifiers, not only on its first`, async () => {
    const { write, file } = WRITERS[format];
    // Room beside the sections for the identifiers this reads (a smaller one names what it leaves out first).
    const { summary } = await summaryOf(write(work), file, windowFor(write(work), file, 1.95));
    for (const p of [
      'src/ai/fallback-chain.ts',
      'src/ai/providers/lmstudio-provider.ts',
      '/srv/app/config/provider-table.json',
    ])
      assert.ok(summary.includes(p), `${p} missing:\n${summary}`);
    // The escape's letter is never glued to a path read after it.
    assert.doesNotMatch(summary, /nsrc\/ai|n\/srv\/app/, summary);
  });
}

test('tokens after a JSON line break or tab escape are read; a Windows path in JSON text has single separators', () => {
  const json = JSON.stringify({
    output:
      'ok\nsrc/a/first.ts\n/home/u/app/second.py\n\tdeadbeef12\ncall_abc123def\nC:\\Apps\\Web\\main.ts\nnext.md done',
  });
  const ids = extractIdentifiers(json);
  for (const id of [
    'src/a/first.ts',
    '/home/u/app/second.py',
    'deadbeef12',
    'call_abc123def',
    'C:\\Apps\\Web\\main.ts',
    'next.md',
  ])
    assert.ok(ids.includes(id), `${id} not in ${ids.join(' | ')}`);
  assert.ok(!ids.some((id) => /^n(?:src|\/home|next)|\\n/.test(id)), ids.join(' | '));
  // Outside JSON text a Windows folder may begin with n, r or t: no escape there.
  assert.ok(extractIdentifiers('see C:\\Users\\nick\\notes.md').includes('C:\\Users\\nick\\notes.md'));
  assert.ok(!extractIdentifiers('see C:\\Users\\nick\\notes.md').includes('otes.md'));
});
