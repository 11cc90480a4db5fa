/**
 * A summary's identifier lists do not name again the files its files section names by folder. The
 * same work in several recording formats.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { backfillIdentifiers } from '../../src/compaction/summary/identifiers/backfill';

const READS = Array.from({ length: 8 }, (_, i) => `src/feature/module${i}.ts`);

const work: Step[] = [
  { user: 'make the chat handler talk to the local model server' },
  {
    tool: 'edit',
    path: 'src/chat/handler.ts',
    old: 'const url = OLLAMA_URL;',
    new: 'const baseUrl = (process.env.LOCAL_MODEL_URL || "").replace(/\\/$/, "");',
  },
  ...READS.map((path, i): Step => ({ tool: 'read', path, output: `export const value${i} = ${i};` })),
  ...Array.from({ length: 6 }, (_, i): Step => ({
    tool: 'bash',
    command: `grep -rn "handler${i}" src/feature`,
    output: `src/feature/x.ts:${i}: handler${i}()`,
    exit: 0,
  })),
  {
    say: `The handler now reads the server address from the environment. ${'It was checked against each module. '.repeat(100)}`,
  },
  // The latest request: kept after the summary, a small part of the target.
  { user: 'now run the tests' },
];

for (const format of ['claude-code', 'codex'] as const) {
  test(`${format}: identifier lists do not name again a file the files section names by folder`, () => {
    const { write, file } = WRITERS[format];
    const items = itemsFromEntries(importTranscriptTextSync(write(work), file).entries);
    const summary = `## Files changed (created or edited, what changed; moves; files read)\n- in src/feature/: read ${READS.map((p) => p.split('/').pop()).join(', ')}\n- in src/chat/: edited handler.ts`;
    const { added } = backfillIdentifiers(summary, items, 4000);
    for (const p of [...READS, 'src/chat/handler.ts'])
      assert.ok(!added.includes(p), `${p} listed again: ${added.join(', ')}`);
  });
}
