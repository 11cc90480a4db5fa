/**
 * When a summary is summarised again, the files its earlier summaries held are carried apart by what
 * happened to them: a file the earlier summary lists as read only is carried as read, never in the
 * same list as a changed file, and a changed file keeps its line of what changed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { summaryOf, WRITERS, type Step } from '../support/recordings';
import { keepEarlierHoldings, KEPT_HEADING, READ_LINE } from '../../src/compaction/summary/earlier-holdings';
import type { ContextItem } from '../../src/compaction/types';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

const work: Step[] = [
  { user: 'rename the config loader' },
  { tool: 'read', path: 'docs/loader_guide.md', output: 'How the loader works.' },
  { tool: 'read', path: 'src/config_schema.ts', output: 'export const schema = {};' },
  { tool: 'edit', path: 'src/config_loader.ts', old: 'function load()', new: 'function loadConfig()' },
  { say: `Renamed. ${filler(2500)}` },
  { user: 'thanks, now the docs' },
  { say: 'ok' },
];

for (const format of ['claude-code', 'cline', 'openhands'] as const) {
  test(`${format}: an earlier summary's read files are carried as read, apart from its changed files`, async () => {
    const { write, file } = WRITERS[format];
    const earlier = await summaryOf(write(work), file);
    assert.match(earlier.summary, /read only: .*loader_guide\.md/, earlier.summary);
    const item: ContextItem = {
      id: 'ck-1~s',
      kind: 'summary',
      message: { role: 'user', content: earlier.summary },
      covers: ['m1', 'm2'],
      checkpointId: 'ck-1',
    };
    const carried = keepEarlierHoldings('## Current work\n- writing the docs', [item]);
    const kept = carried.slice(carried.indexOf(KEPT_HEADING));
    const lines = kept.split('\n');
    const read = lines.find((l) => l.startsWith(READ_LINE)) ?? '';
    assert.ok(read.includes('docs/loader_guide.md') && read.includes('src/config_schema.ts'), kept);
    assert.ok(!read.includes('config_loader.ts'), `the changed file is not carried as read:\n${kept}`);
    const changed = lines.filter((l) => l.includes('src/config_loader.ts'));
    assert.ok(changed.length > 0 && changed.every((l) => !l.startsWith(READ_LINE)), kept);
    for (const l of lines.filter((x) => x.startsWith('- Files also named:')))
      assert.ok(!/loader_guide|config_schema/.test(l), `read files are not listed with other names:\n${kept}`);
  });
}
