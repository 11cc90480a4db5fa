/**
 * Tool output names no identifier of the work where it shows an installed package's code (search hits
 * in `node_modules`, a source map's `sources`), percent-encoded text (an address's query) or a log's
 * tracing ids.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { backfillIdentifiers } from '../../src/compaction/summary/identifiers/backfill';
import { extractIdentifiers } from '../../src/compaction/summary/identifiers/identifiers';

test('a hex run inside percent-encoded text is no hash; a whole one is', () => {
  const ids = extractIdentifiers(
    'open https://github.com/x/y/issues/new?body=Turbopack%20version%3A%20%603e37bb42%60%0A then commit 9f8e7d6c5b4a',
  );
  assert.ok(!ids.some((id) => /^[0-9a-f]+$/.test(id) && id !== '9f8e7d6c5b4a'), ids.join(' | '));
  assert.ok(ids.includes('9f8e7d6c5b4a'), ids.join(' | '));
});

test("a log's trace or request id is no hash; a commit is", () => {
  const ids = extractIdentifiers(
    '{\n  status: 403,\n  traceId: \'fb83413d78da8fb04b4ff9905f9a18d8\',\n  "request_id": "0a1b2c3d4e5f6a7b"\n}\nHEAD is now at 9f8e7d6c5b4a',
  );
  assert.ok(!ids.includes('fb83413d78da8fb04b4ff9905f9a18d8'), ids.join(' | '));
  assert.ok(!ids.includes('0a1b2c3d4e5f6a7b'), ids.join(' | '));
  assert.ok(ids.includes('9f8e7d6c5b4a'), ids.join(' | '));
});

const SEARCH_OUTPUT = [
  'Found 3 results.',
  '',
  'node_modules/@genkit-ai/googleai/lib/context-caching/index.js.map',
  '│----',
  '│{"version":3,"sources":["../../src/context-caching/index.ts"],"names":[]}',
  '│----',
  '',
  'src/lib/genkit-setup.ts',
  '│----',
  "│import { googleAI } from '@genkit-ai/googleai';",
  '│----',
  'node_modules/@genkit-ai/core/lib/cache.js:12:// see ../../src/cache/store.ts',
  'src/app/report/actions.ts:40:const cached = await contextCache(prompt);',
].join('\n');

const work: Step[] = [
  { user: 'where is the context cache configured?' },
  { tool: 'bash', command: 'grep -rn contextCache src node_modules/@genkit-ai', output: SEARCH_OUTPUT },
  { say: `It is set up in the genkit setup file. ${'The cache is created once per prompt. '.repeat(40)}` },
  { user: 'thanks' },
  { say: 'ok' },
];

for (const format of ['claude-code', 'cline', 'codex'] as const) {
  test(`${format}: search hits in installed packages name no identifier; the work's own hits do`, () => {
    const { write, file } = WRITERS[format];
    const span = itemsFromEntries(importTranscriptTextSync(write(work), file).entries);
    const { added } = backfillIdentifiers('## Current work and next step\n- none', span, 4000);
    for (const cited of ['../../src/context-caching/index.ts', '../../src/cache/store.ts'])
      assert.ok(!added.some((id) => id.includes(cited.slice(6))), added.join('\n'));
    assert.ok(!added.some((id) => id.startsWith('node_modules/@genkit-ai/googleai/lib')), added.join('\n'));
    assert.ok(added.includes('src/lib/genkit-setup.ts'), added.join('\n'));
    assert.ok(added.includes('src/app/report/actions.ts'), added.join('\n'));
  });
}
