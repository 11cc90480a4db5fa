/**
 * A collapse checkpoint says what it collapsed: each tool result's call by its tool and main argument
 * (a path, a command), not only how many.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { compact } from '../../src/compaction/rewrite/compactor';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { callLabel, describeCollapse } from '../../src/compaction/rewrite/collapse';
import { cline, type Step } from '../support/recordings';
import { quarterCounter } from '../support/generate';

const meter = new TokenMeter({ counter: quarterCounter });

test('a call is named by its tool and main argument', () => {
  assert.equal(callLabel({ name: 'read_file', arguments: '{"path":"src/x.ts"}' }), 'read_file src/x.ts');
  assert.equal(callLabel({ name: 'Bash', arguments: '{"description":"run","command":"npm test"}' }), 'Bash npm test');
  assert.equal(callLabel({ name: 'shell', arguments: '{"command":["bash","-lc","ls -la"]}' }), 'shell ls -la');
  assert.equal(callLabel({ name: 'grep', arguments: 'not json' }), 'grep');
  assert.equal(callLabel(undefined), 'a tool result');
  const many = Array.from({ length: 14 }, (_, k) => ({ name: 'read_file', arguments: `{"path":"f${k}.ts"}` }));
  assert.equal(
    describeCollapse('Collapsed 3', [many[0], many[0], many[1]]),
    'Collapsed 3: read_file f0.ts (×2); read_file f1.ts.',
  );
  assert.match(describeCollapse('Collapsed 14', many), /read_file f11\.ts; and 2 more\.$/);
});

test('cline: the collapse checkpoint of a compaction names the files it collapsed', async () => {
  const steps: Step[] = [
    { user: 'Read the sources and tell me what they do.' },
    ...Array.from({ length: 6 }, (_, k) => ({
      tool: 'read' as const,
      path: `/w/src/part${k}.ts`,
      output: `export function part${k}() {\n${'  return compute(value);\n'.repeat(80)}}`,
    })),
    { say: 'They compute values.' },
    { user: 'Thanks.' },
    { say: 'You are welcome.' },
  ];
  const items = itemsFromEntries(importTranscriptTextSync(cline(steps), 'api_conversation_history.json').entries);
  const size = items.reduce((n, i) => n + meter.countMessage(i.message), 0);
  const r = await compact({
    items,
    meter,
    summarizer: new ExtractiveSummarizer((s) => meter.countText(s)),
    options: {
      budget: { contextWindow: Math.ceil(size * 1.1), reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 },
      trigger: 'manual',
      force: true,
    },
  });
  const collapse = r.checkpoints.find((c) => c.strategy === 'collapse');
  assert.ok(collapse, r.checkpoints.map((c) => c.strategy).join(', '));
  assert.match(
    collapse.summary,
    /^Collapsed \d+ older tool results? to one-line records: read_file \/w\/src\/part\d\.ts/,
  );
  for (const it of collapse.replaced) {
    const path = /part\d\.ts/.exec(JSON.stringify(it.message))?.[0];
    if (path) assert.ok(collapse.summary.includes(path), `${path} is named: ${collapse.summary}`);
  }
});
