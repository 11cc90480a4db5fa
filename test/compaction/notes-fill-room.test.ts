/**
 * A summary whose target is mostly free (few typed requests in the span, little kept after it) fills
 * that room before it leaves a section or a file's detail out, and its identifier lists do not name
 * again the files its files section names by folder. The same work in several recording formats.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, sectionOf, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { compact } from '../../src/compaction/rewrite/compactor';
import { backfillIdentifiers } from '../../src/compaction/summary/identifiers/backfill';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { quarterCounter } from '../support/generate';

const meter = new TokenMeter({ counter: quarterCounter });
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

for (const format of ['claude-code', 'codex', 'openai-chat'] as const) {
  test(`${format}: a summary with room to spare keeps its sections and what changed in the file, within its target`, async () => {
    const { write, file } = WRITERS[format];
    const items = itemsFromEntries(importTranscriptTextSync(write(work), file).entries);
    const total = items.reduce((n, i) => n + meter.countMessage(i.message), 0);
    const window = 2400;
    assert.ok(total > window * 0.3, `${total} tokens: over the target`);
    const r = await compact({
      items,
      meter,
      summarizer: new ExtractiveSummarizer((s) => meter.countText(s)),
      options: {
        budget: { contextWindow: window, reservedOutput: 0, compactAt: 0.8, compactTo: 0.3 },
        trigger: 'manual',
        force: true,
        keepRecentSteps: 0,
      },
    });
    const s = r.context.find((i) => i.kind === 'summary');
    assert.ok(s, `${format}: a summary`);
    const summary = textWithPlaceholders(s.message.content);
    const after = r.context.reduce((n, i) => n + meter.countMessage(i.message), 0);
    assert.ok(after <= Math.ceil(window * 0.3), `${after} tokens over the target ${window * 0.3}`);
    assert.doesNotMatch(summary, /left out here to fit the budget/, summary);
    assert.match(sectionOf(summary, 'Files changed'), /src\/chat\/handler\.ts: edited; last change: /, summary);
  });
}

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
