/**
 * A hex run is listed as an identifier only where git printed it (a `git log` line, a `git commit`'s
 * `[main a1b2c3d]`, the word commit beside it): a sub-agent's id, a checksum or a build id would
 * read as a commit in a list of bare ids.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { backfillIdentifiers } from '../../src/compaction/summary/identifiers/backfill';

const work: Step[] = [
  { user: 'what changed since the release, and is the bundle the one we shipped?' },
  {
    tool: 'bash',
    command: 'git log --oneline -3 && sha256sum dist/app.tgz && cat build.txt',
    output: [
      '9f8e7d6 fix login redirect',
      '4be9a4b add health route',
      '3f2a1b4c5d6e7f8091a2b3c4d5e6f708  dist/app.tgz',
      'build 0a1b2c3d4e5f ready; agentId: a06052d82085211f8',
    ].join('\n'),
  },
  {
    tool: 'bash',
    command: 'git commit -am "bump version"',
    output: '[main c0ffee1] bump version\n 1 file changed',
    exit: 0,
  },
  { say: `Two commits since the release. ${'The bundle matches the one shipped last week. '.repeat(40)}` },
  { user: 'thanks' },
  { say: 'ok' },
];

for (const format of ['claude-code', 'codex', 'openhands'] as const) {
  test(`${format}: only hashes git printed are listed as identifiers`, () => {
    const { write, file } = WRITERS[format];
    const span = itemsFromEntries(importTranscriptTextSync(write(work), file).entries);
    const { added } = backfillIdentifiers('## Current work and next step\n- none', span, 4000);
    for (const notCommit of ['3f2a1b4c5d6e7f8091a2b3c4d5e6f708', '0a1b2c3d4e5f', 'a06052d82085211f8'])
      assert.ok(!added.includes(notCommit), added.join('\n'));
    for (const commit of ['9f8e7d6', '4be9a4b', 'c0ffee1']) assert.ok(added.includes(commit), added.join('\n'));
  });
}
