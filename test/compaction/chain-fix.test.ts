/**
 * A failed chain `a && b` whose last segment is a check is fixed by a later passing run of that
 * segment alone, in the summary and in its scorecard alike; a chain ending in a search or a file
 * listing is not (its last segment's success says nothing of the step that failed). Recorded in
 * Claude Code's format.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { claudeCode, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { chainTailTarget, errorSignatures } from '../../src/compaction/retention/errors';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);
const YARN = 'This project is configured to use yarn because /home/u/package.json has a "packageManager" field';

test('chainTailTarget: the last segment of an && chain when it is a check, nothing otherwise', () => {
  assert.equal(chainTailTarget('node --version && pnpm --version 2>&1'), 'pnpm --version');
  assert.equal(chainTailTarget('cd /w && npm ci && npm test -- --watch=false'), 'npm test');
  assert.equal(chainTailTarget('pnpm --version && cat package.json | grep -E "packageManager"'), undefined);
  assert.equal(chainTailTarget('npm test'), undefined);
  assert.equal(chainTailTarget('npm ci; npm test'), undefined);
  assert.equal(chainTailTarget('grep -q "a && b" x.txt'), undefined);
});

function summaryAndErrors(steps: Step[]) {
  const entries = importTranscriptTextSync(claudeCode(steps), 'session.jsonl').entries;
  const items = itemsFromEntries(entries);
  const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 5000);
  const errors = errorSignatures(entries, 0, entries.length);
  return { summary, errors };
}

test('claude-code: a failed `node --version && pnpm --version` is fixed by a later passing `pnpm --version`', () => {
  const { summary, errors } = summaryAndErrors([
    { user: 'check the toolchain, then build' },
    { tool: 'bash', command: 'node --version && pnpm --version 2>&1', output: `v22.16.0\n${YARN}`, ok: false },
    { tool: 'bash', command: 'COREPACK_ENABLE_PROJECT_SPEC=0 pnpm --version 2>&1 | tail -3', output: '10.33.2' },
    { say: `pnpm works with the override. ${filler(40)}` },
    { tool: 'bash', command: 'COREPACK_ENABLE_PROJECT_SPEC=0 pnpm build', output: `compiled ${filler(20)}` },
    { say: `Built. ${filler(40)}` },
  ]);
  assert.doesNotMatch(summary, /^- open: `node --version/m, summary);
  assert.doesNotMatch(summary, /Next step: resolve/, summary);
  assert.match(summary, /^- fixed: `node --version && pnpm --version/m, summary);
  const chain = errors.find((e) => e.key.startsWith('node --version'));
  assert.equal(chain?.state, 'resolved', JSON.stringify(errors));
});

test('claude-code: a chain that ends in a search stays open when only the search passes later', () => {
  const { summary, errors } = summaryAndErrors([
    { user: 'build it and check the bundle exports' },
    {
      tool: 'bash',
      command: 'npm run build && cat dist/index.js | grep -c export',
      output: 'npm ERR! Missing script: "build"\nnpm ERR! A complete log of this run can be found in: /tmp/x.log',
      ok: false,
    },
    { tool: 'bash', command: 'cat dist/index.js | grep -c export', output: '12' },
    { say: `The old bundle exports 12 names. ${filler(40)}` },
  ]);
  assert.match(summary, /^- open: `npm run build && cat dist\/index\.js/m, summary);
  const chain = errors.find((e) => e.key.startsWith('npm run build'));
  assert.equal(chain?.state, 'open', JSON.stringify(errors));
});
