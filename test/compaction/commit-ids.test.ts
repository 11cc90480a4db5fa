/**
 * A commit's id stays with what made it: the line of a successful `git commit` says which commit it
 * made (the id its output printed), so the id survives where the commits section gives way to the
 * budget; and the id in a commit notice Aider prints is a commit, named in the commits section, never
 * an identifier of the conversation, while an id the agent itself wrote still is one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_WRITERS, WRITERS, summaryOf, sectionOf, type Step } from '../support/recordings';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

const work: Step[] = [
  { user: 'add a health route and commit it' },
  { tool: 'write', path: 'src/health.ts', content: 'export function healthRoute() {\n  return "ok";\n}' },
  {
    tool: 'bash',
    command: 'git add -A && git commit -m "feat: add health route"',
    output: '[main f8e6fe0] feat: add health route\n 1 file changed, 3 insertions(+)',
    exit: 0,
  },
  { say: `Committed. ${filler(2500)}` },
  { user: 'thanks' },
  { say: 'ok' },
];

for (const [format, { write, file }] of Object.entries(WRITERS)) {
  test(`${format}: the line of a git commit that succeeded names the commit it made`, async () => {
    const { summary } = await summaryOf(write(work), file);
    const line = sectionOf(summary, 'Commands and outcomes')
      .split('\n')
      .find((l) => l.includes('git commit'));
    assert.ok(line, summary);
    assert.match(line, /→ ok, commit f8e6fe0\b/, summary);
  });
}

/** Aider's work: `n` edits, each committed by Aider (`> Commit c0ffeNN …`), after a message naming an id of the agent's own. */
function aiderCommits(n: number): string {
  const { write } = ALL_WRITERS.aider;
  const steps: Step[] = [
    { user: 'add the health routes' },
    { say: 'I will start from the state of 0a1b2c3d, the last release.' },
  ];
  for (let i = 0; i < n; i++)
    steps.push({
      tool: 'write',
      path: `src/route${i}.ts`,
      content: `export function route${i}() {\n  return ${i};\n}`,
    });
  steps.push({ say: `Added them. ${filler(2500)}` }, { user: 'thanks' }, { say: 'ok' });
  let text = write(steps);
  for (let i = 0; i < n; i++)
    text = text.replace(
      `> Applied edit to src/route${i}.ts  `,
      `> Applied edit to src/route${i}.ts  \n> Commit c0ffe${i.toString(16).padStart(2, '0')} feat: add route ${i}  `,
    );
  return text;
}

test("aider: the ids of Aider's commit notices are commits, not identifiers of the conversation", async () => {
  // More commits than the commits section names: the oldest ones are counted there, not named.
  const { summary } = await summaryOf(aiderCommits(30), ALL_WRITERS.aider.file);
  assert.match(sectionOf(summary, 'Commits made'), /commit c0ffe1d: feat: add route 29/, summary);
  // The five oldest are counted, not named: no list of the summary names them.
  for (let i = 0; i < 5; i++) assert.doesNotMatch(summary, new RegExp(`c0ffe0${i}`), summary);
  // An id the agent wrote in its own words is kept.
  assert.match(summary, /0a1b2c3d/, summary);
});
