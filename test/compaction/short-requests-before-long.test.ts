/**
 * Short requests and approvals ("Approved - proceed with phase 2") outlast a long request when the
 * room is tight: when the latest request kept after the summary takes most of the target, the
 * summary shortens the long requests (the first one by its head and tail, with a marker) rather than
 * leaving out a dozen short replies.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, summaryOf, sectionOf, type Step } from '../support/recordings';
import { renderRequestsSection } from '../../src/compaction/summary/requests-section';

const APPROVALS = Array.from({ length: 10 }, (_, k) => `Approved - proceed with phase ${k + 2}`);

/** A long first request, ten approvals each followed by work, then a latest request of about `latest` characters. */
function steps(latest: number): Step[] {
  const first =
    'Migrate the reporting service to the new cloud project. ' +
    'The service reads incident reports from the old database and writes summaries to a bucket. '.repeat(8);
  return [
    { user: first },
    { tool: 'bash', command: 'ls src', output: 'app lib services' },
    { say: 'Here is the plan in phases. Phase 1 is the database move.' },
    ...APPROVALS.flatMap((a, k): Step[] => [
      { user: a },
      { tool: 'bash', command: `npm run phase-${k + 2}`, output: `phase ${k + 2} done`, exit: 0 },
      { say: `Phase ${k + 2} is complete; shall I go on?` },
    ]),
    {
      user: `Here is the log of the last deployment run:\n${'step ok: resource updated in place\n'.repeat(latest / 36)}`,
    },
    { say: 'Looking at the log now.' },
  ];
}

for (const format of ['claude-code', 'codex', 'cline'] as const) {
  test(`${format}: every approval stays whole while a long latest request takes most of the target`, async () => {
    const { write, file } = WRITERS[format];
    // The latest request kept after the summary is about 6k characters: well over half the target.
    const { summary } = await summaryOf(write(steps(6000)), file, 2800);
    const section = sectionOf(summary, 'Requests, verbatim');
    for (const a of APPROVALS) assert.ok(section.split('\n').includes(`- ${a}`), `${a} missing:\n${summary}`);
    // The long first request is shortened with a marker, never left out.
    assert.match(section, /^- Migrate the reporting service[^\n]*\[… [\d,]+ characters of this request left out …\]/m);
  });
}

test('long requests are shortened or left out before any short one is, the first and newest included', () => {
  const long = 'Refactor the storage layer so that every write goes through one queue. '.repeat(10);
  const entries = [long, ...APPROVALS.slice(0, 5), long.replace('storage', 'auth'), ...APPROVALS.slice(5), long];
  const count = (t: string) => Math.ceil(t.length / 4);
  for (const budget of [230, 250, 300]) {
    const s = renderRequestsSection(entries, budget, count);
    for (const a of APPROVALS) assert.ok(s.text.split('\n').includes(`- ${a}`), s.text);
    assert.match(
      s.text,
      /^- Refactor the storage layer[^\n]*\[… [\d,]+ characters of this request left out …\]/m,
      s.text,
    );
    assert.ok(s.tokens <= budget, `${s.tokens}`);
  }
});
