/**
 * The current-state line "Latest request in this part" points at the last request under "Requests,
 * verbatim" and quotes that same request: a request typed again (already listed earlier, so listed
 * once, at its first place) never makes the pointer quote an older request than the list ends with.
 * Recorded in Claude Code's, Codex's and OpenHands' formats.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, summaryOf, type Step } from '../support/recordings';
import { parseRequestsSection } from '../../src/compaction/summary/requests';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

for (const format of ['claude-code', 'codex', 'openhands'] as const) {
  test(`${format}: the latest-request pointer quotes the request the requests section ends with`, async () => {
    const { write, file } = WRITERS[format];
    const first = 'Please explain how the parser handles nested brackets in config files.';
    const second = 'Now check whether the tokenizer also drops trailing commas in arrays.';
    const steps: Step[] = [
      { user: first },
      { tool: 'read', path: 'src/parser.ts', output: filler(40) },
      { say: `The parser keeps a depth counter. ${filler(20)}` },
      { user: second },
      { tool: 'read', path: 'src/tokenizer.ts', output: filler(40) },
      { say: `Trailing commas are kept. ${filler(20)}` },
      { user: first },
      { tool: 'bash', command: 'grep -rn depth src', output: filler(30) },
      { say: `Same answer as before. ${filler(20)}` },
      { tool: 'read', path: 'src/config.ts', output: filler(60) },
      // A newer request after the one typed again: the summary's span ends before it.
      { user: 'Write the findings to NOTES.md as a short list.' },
      { tool: 'read', path: 'src/a.ts', output: filler(60) },
      { tool: 'read', path: 'src/b.ts', output: filler(60) },
      { tool: 'read', path: 'src/c.ts', output: filler(60) },
    ];
    const { summary } = await summaryOf(write(steps), file, 2000);
    const listed = parseRequestsSection(summary);
    // The span holds the request typed again (its last typed message is the first request).
    assert.match(summary, /Same answer as before/, summary);
    assert.doesNotMatch(summary, /Write the findings/, summary);
    assert.ok(listed.length >= 2, summary);
    const pointer = summary.split('\n').find((l) => l.startsWith('- Latest request in this part:'));
    assert.ok(pointer, summary);
    const quoted = /\("(.*?)…?"\)$/.exec(pointer)![1];
    assert.ok(listed.at(-1)!.startsWith(quoted), `${pointer}\nlast listed: ${listed.at(-1)}`);
    assert.ok(!first.startsWith(quoted), pointer);
  });
}
