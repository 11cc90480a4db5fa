/**
 * A compaction that reads an earlier summary carries its list items, never the notes about its
 * lists: the pointer line that ends the earlier summary (`[The 9 replaced messages are kept: …]`)
 * and a list's note of lines it left out (`- … 3 older lines not kept`) are not items of the new
 * summary's lists, and a carried line keeps one bullet. Recorded in Claude Code's and Codex's
 * formats.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chainedSummaries, WRITERS, type Step } from '../support/recordings';

const filler = (n: number) => 'the wrapper keeps the dtypes of the input frame. '.repeat(n);

/** Many distinct commands: the earlier summary's commands section leaves its oldest out. */
const FIRST: Step[] = [
  { user: 'Make set_output keep the dtypes of the input DataFrame.' },
  ...Array.from({ length: 40 }, (_, k) => ({
    tool: 'bash' as const,
    command: `grep -n "_wrap_in_pandas_container_${k}" /testbed/sklearn/utils/_set_output_${k}.py`,
    output: `${k}: def _wrap_in_pandas_container_${k}(data_to_wrap, *, columns, index=None):`,
  })),
  { say: `Found the wrapper. ${filler(4)}` },
];

const THEN: Step[] = [
  { user: 'Now run the reproduction script.' },
  { tool: 'bash', command: 'python /testbed/reproduce.py', output: 'float16 float16' },
  ...Array.from({ length: 6 }, (_, k) => ({ say: `Step ${k}: ${filler(30)}` })),
  { user: 'Good, submit it.' },
  ...Array.from({ length: 3 }, (_, k) => ({ say: `Submit step ${k}: ${filler(30)}` })),
];

for (const format of ['claude-code', 'codex'] as const) {
  const { write, file } = WRITERS[format];
  test(`${format}: an earlier summary's pointer and list notes are no items of the summary that reads it`, async () => {
    const { first, second } = await chainedSummaries(write, file, FIRST, THEN, undefined, 500);
    assert.match(first, /^- … \d+ older lines? not kept$/m, first);
    assert.ok(first.includes('cp-first'), first);
    const lines = second.split('\n');
    // One pointer line, the new summary's own, at its end.
    assert.ok(!second.includes('cp-first'), second);
    assert.equal(lines.filter((l) => l.startsWith('[The ')).length, 1, second);
    assert.ok(!lines.some((l) => l.startsWith('- - ')), second);
    // A list has at most one note of lines left out, its first line.
    for (const section of second.split(/\n(?=## )/)) {
      const notes = section.split('\n').filter((l) => /^- … \d+ older lines? not kept$/.test(l));
      assert.ok(notes.length <= 1, section);
      if (notes.length) assert.equal(section.split('\n')[1], notes[0], section);
    }
  });
}
