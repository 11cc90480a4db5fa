/**
 * Under a tight budget the typed requests come before lists of names: while a request is shortened
 * or left out, no identifier line takes room the requests could use. The identifier lists shrink
 * first, down to the line that counts what they left out ("… N more identifiers not listed"), and
 * the latest request stays whole. Recordings written in test/support/recordings.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_WRITERS, summaryOf, type Step } from '../support/recordings';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

/** Turns that each name many paths and ids, and ask in long requests. */
function steps(): Step[] {
  const out: Step[] = [];
  for (let k = 0; k < 8; k++) {
    out.push({
      user: `Refactor the dashboard cards of section ${k} for consistency. ${Array.from(
        { length: 14 },
        (_, j) => `Card ${k}.${j} gets padding p-6, margin m-4 and a green badge when connected.`,
      ).join(' ')} Show the diff.`,
    });
    out.push({
      tool: 'read',
      path: `src/app/section${k}/page.tsx`,
      output: Array.from(
        { length: 12 },
        (_, j) => `import { Card${k}${j} } from '@/components/ui/card${k}-${j}';`,
      ).join('\n'),
    });
    out.push({
      tool: 'edit',
      path: `src/app/section${k}/page.tsx`,
      old: `className="p-4"`,
      new: `className="p-6 m-4"`,
    });
    out.push({
      say: `Section ${k} done: see src/lib/section${k}/helpers.ts and /api/section${k}/status. ${filler(20)}`,
    });
  }
  out.push({ user: 'now make the header sticky on every section page and keep the footer where it is' });
  return out;
}

const IDENTIFIER_LINE = /^## Identifiers[^\n]*\n((?:- [^\n]*\n?)*)/gm;

for (const format of ['claude-code', 'codex', 'aider'] as const) {
  test(`${format}: while requests are shortened, identifier lists give up their room and say how many they left out`, async () => {
    const { write, file } = ALL_WRITERS[format];
    const { summary, context } = await summaryOf(write(steps()), file, 5000);
    const section = summary.slice(summary.indexOf('## Requests, verbatim'));
    assert.match(
      section,
      /characters of this request left out|left out here to fit the budget/,
      'the requests do not all fit whole at this size',
    );
    const blocks = [...summary.matchAll(IDENTIFIER_LINE)];
    const lists = blocks.flatMap((m) => m[1].split('\n').filter(Boolean));
    for (const line of lists)
      assert.match(
        line,
        /^- … \d+ (?:more identifiers? not listed|identifiers? of the replaced messages not listed: no room left in this summary)$/,
        summary,
      );
    if (lists.length) assert.equal(lists.length, 1, 'one line counts what the lists left out');
    // A count standing alone is not put under one source's heading, as if that list were empty.
    for (const [block] of blocks)
      if (/^- … \d+ identifiers? of the replaced/m.test(block)) assert.match(block, /^## Identifiers\n/, summary);
    // The latest request is whole, in the summary or kept after it.
    const latest = 'now make the header sticky on every section page and keep the footer where it is';
    assert.ok(
      context.some((c) => c.includes(latest)),
      'the latest request is whole',
    );
  });
}
