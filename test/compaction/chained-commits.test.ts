/**
 * A compaction that reads an earlier summary carries its commits as commits: the commits the agent
 * made (its own `git commit` output) are listed once each, an earlier summary's list merges with the
 * new span's instead of nesting inside it, and hex ids from other output (a `git log` listing of older
 * commits, a request's trace id) are never listed as commits. Recorded in Claude Code's, Codex's and
 * Cline's formats.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chainedSummaries, WRITERS, type Step } from '../support/recordings';

const filler = (n: number) => 'the settlement flow keeps each balance in cents. '.repeat(n);

const FIRST: Step[] = [
  { user: 'Add the settlement module and commit it.' },
  {
    tool: 'bash',
    command: 'git log --oneline -3',
    output: '88bf269 feat: older work\nb73f2b8 fix: older fix\n3cddee6 init',
  },
  {
    tool: 'bash',
    command: 'curl -s https://api.example.com/v1/quote',
    output: '{"error":"forbidden","status":403,"traceId":"fb83413d78da4c2e"}',
  },
  { tool: 'write', path: '/w/src/settle.ts', content: 'export function settle() { return 0; }\n' },
  {
    tool: 'bash',
    command: 'git add -A && git commit -m "feat: settlement module"',
    output: '[main 1a2b3c4] feat: settlement module\n 1 file changed',
  },
  ...Array.from({ length: 6 }, (_, k) => ({ say: `Step ${k}: ${filler(30)}` })),
  { say: 'The settlement module is committed.' },
  { user: 'Good. What comes next?' },
  { say: 'The refunds come next.' },
];

const THEN: Step[] = [
  { user: 'Now add the refunds and commit.' },
  { tool: 'edit', path: '/w/src/settle.ts', old: 'return 0;', new: 'return refund();' },
  { tool: 'bash', command: 'git commit -am "feat: refunds"', output: '[main 5d6e7f8] feat: refunds\n 1 file changed' },
  ...Array.from({ length: 6 }, (_, k) => ({ say: `Refund step ${k}: ${filler(30)}` })),
  { say: 'Refunds are committed.' },
  { user: 'Thanks. Now the reports page.' },
  ...Array.from({ length: 4 }, (_, k) => ({ say: `Report step ${k}: ${filler(30)}` })),
];

/** The lines of `summary` that list commits. */
function commitLinesOf(summary: string): string[] {
  return summary.split('\n').filter((l) => /^- (?:commit |earlier commits:|Commits:)/.test(l));
}

/** The lines of `summary` that name a commit as one: its lists, and a command's line naming the commit it made. */
function namingCommits(summary: string): string[] {
  return summary.split('\n').filter((l) => /^- (?:commit |earlier commits:|Commits:)|→ ok, commit /.test(l));
}

for (const format of ['claude-code', 'codex', 'cline'] as const) {
  const { write, file } = WRITERS[format];
  test(`${format}: a chained summary lists the agent's commits once each and no other hex id as a commit`, async () => {
    const { first, second } = await chainedSummaries(write, file, FIRST, THEN);
    assert.ok(
      commitLinesOf(first).some((l) => l.includes('1a2b3c4')),
      first,
    );
    const lines = commitLinesOf(second);
    // The earlier summary's commit stays a commit whatever the room (listed, or named by the line of
    // the command that made it), listed once at most; the span's own gives way first.
    assert.ok(lines.filter((l) => l.includes('1a2b3c4')).length <= 1, second);
    assert.ok(
      namingCommits(second).some((l) => l.includes('1a2b3c4')),
      second,
    );
    assert.ok(lines.filter((l) => l.includes('5d6e7f8')).length <= 1, second);
    for (const other of ['88bf269', 'b73f2b8', 'fb83413d78da4c2e'])
      assert.ok(!namingCommits(second).some((l) => l.includes(other)), `${other}:\n${second}`);
    assert.doesNotMatch(second, /\(Commits:/, second);
  });
}
