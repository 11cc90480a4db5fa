/**
 * A program run by the full path of where it is installed (`~/.nvm/…/bin/pnpm`,
 * `node_modules/.bin/tsc`) is the same program as its bare name: a failure of the one is fixed by a
 * later success of the other, and is never shown as open work or as the next step.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commandTarget } from '../../src/compaction/retention/errors';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { WRITERS, type Step } from '../support/recordings';

const COREPACK = 'This project is configured to use yarn because /w/package.json has a "packageManager" field';
const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

test('commandTarget: an installed program named by its path is its bare name; a project script keeps its folder', () => {
  assert.equal(commandTarget('/home/u/.nvm/versions/node/v23.9.0/bin/pnpm --version 2>&1 | head -5'), 'pnpm --version');
  assert.equal(commandTarget('node_modules/.bin/tsc --noEmit'), 'tsc --noEmit');
  assert.equal(commandTarget('C:\\tools\\bin\\mvn.cmd package'), 'mvn.cmd package');
  assert.equal(commandTarget('./scripts/test.sh unit'), './scripts/test.sh unit');
  // Only the program word: a path argument stays as written.
  assert.equal(commandTarget('node /w/bin/cli.js run'), 'node /w/bin/cli.js run');
});

const STEPS: Step[] = [
  { user: 'Make pnpm usable in this project and run the build.' },
  { tool: 'bash', command: '/home/u/.nvm/versions/node/v23.9.0/bin/pnpm --version 2>&1 | head -5', output: COREPACK },
  { say: `Corepack refuses pnpm because of the packageManager field. ${filler(30)}` },
  { tool: 'bash', command: 'COREPACK_ENABLE_PROJECT_SPEC=0 pnpm --version 2>&1 | tail -3', output: '10.33.2' },
  { say: `pnpm works with the override. ${filler(30)}` },
  { tool: 'bash', command: 'COREPACK_ENABLE_PROJECT_SPEC=0 pnpm build', output: `compiled ${filler(10)}` },
  { say: 'Built.' },
];

for (const format of ['claude-code', 'codex', 'openhands'] as const) {
  test(`${format}: a failure of a program run by its installed path, fixed by its bare name, is not open`, () => {
    const w = WRITERS[format];
    const items = itemsFromEntries(importTranscriptTextSync(w.write(STEPS), w.file).entries);
    const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 8000);
    assert.doesNotMatch(summary, /^- open: .*pnpm/m, summary);
    assert.doesNotMatch(summary, /Next step: resolve/, summary);
    assert.match(summary, /fixed: `[^`]*bin\/pnpm --version/, summary);
  });
}
