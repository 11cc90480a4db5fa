/**
 * A failed command is fixed by a later success of the same program and subcommand run with
 * environment assignments before it; the failure is quoted by the line that tells its cause, not by
 * its bare exit status; and an edit made in between is not said to have caused the fix (the rule
 * paired the two runs, not the edit). Recorded in Claude Code's format.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { claudeCode, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { commandTarget } from '../../src/compaction/retention/errors';
import { failureLines } from '../../src/compaction/summary/ledger/command-errors';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);
const YARN = 'This project is configured to use yarn because /home/u/package.json has a "packageManager" field';

test('commandTarget: environment assignments before the program are not part of what runs', () => {
  assert.equal(commandTarget('COREPACK_ENABLE_PROJECT_SPEC=0 pnpm --version 2>&1 | tail -3'), 'pnpm --version');
  assert.equal(commandTarget('env CI=1 FOO="a b" npm test'), 'npm test');
  // Option names stay part of the command.
  assert.notEqual(
    commandTarget('A=1 gcloud sql instances patch db --assign-ip'),
    commandTarget('gcloud sql instances patch db --database-flags=x'),
  );
});

test('claude-code: a failure fixed by an env-prefixed run is fixed, quoted by its cause, with no invented edit', () => {
  const steps: Step[] = [
    { user: 'add the readiness script and build the project' },
    { tool: 'bash', command: 'pnpm --version 2>&1', output: YARN, ok: false },
    {
      tool: 'edit',
      path: '/w/package.json',
      old: '"test": "vitest"',
      new: '"test": "vitest",\n"readiness": "node x.mjs"',
    },
    { tool: 'bash', command: 'COREPACK_ENABLE_PROJECT_SPEC=0 pnpm --version 2>&1 | tail -3', output: '10.33.2' },
    { say: `pnpm works with the override. ${filler(40)}` },
    { tool: 'bash', command: 'COREPACK_ENABLE_PROJECT_SPEC=0 pnpm build', output: `compiled ${filler(20)}` },
    { say: `Built. ${filler(40)}` },
    { user: 'commit it' },
    { tool: 'bash', command: 'git commit -am "feat: readiness"', output: '[main abc1234] feat: readiness' },
    { say: 'Committed.' },
  ];
  const items = itemsFromEntries(importTranscriptTextSync(claudeCode(steps), 'session.jsonl').entries);
  const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 5000);
  assert.match(
    summary,
    /^- fixed: `pnpm --version( 2>&1)?` failed \("This project is configured to use yarn/m,
    summary,
  );
  assert.doesNotMatch(summary, /^- open: `pnpm/m, summary);
  assert.doesNotMatch(summary, /Next step: resolve/, summary);
  assert.doesNotMatch(summary, /after editing/, summary);
  assert.doesNotMatch(summary, /failed \("Exit code 1"\)/, summary);
});

test('the latest error line of a run that printed only an exit status and its last words is those words', () => {
  assert.deepEqual(failureLines('node --version && pnpm --version 2>&1', `Exit code 1\nv22.16.0\n${YARN}`), [YARN]);
});
