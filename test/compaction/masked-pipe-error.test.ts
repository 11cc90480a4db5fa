/**
 * A run piped into a filter (`pnpm --version 2>&1 | head -5`, `npm run build | tail -3`) exits with
 * the filter's status: the outcome comes from what the run printed. Output that opens a failure
 * report, or a version query answered with no version, is a failure, not "ok"; a cleanup that found
 * nothing to act on is still no failure.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commandVerdict } from '../../src/compaction/retention/outcome';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { sectionOf, WRITERS, type Step } from '../support/recordings';

const COREPACK = 'This project is configured to use yarn because /w/package.json has a "packageManager" field';

test('a filtered run whose output reports a failure, or a version query with no version, failed', () => {
  const failed: Array<[string, string]> = [
    ['pnpm --version 2>&1 | head -5', COREPACK],
    ['/opt/node/bin/pnpm -v 2>&1 | tail -1', 'No version is set for command pnpm'],
    ['npm run build 2>&1 | tail -3', 'Error: Cannot find module "next"\n    at Module._resolve (node:internal)'],
    ['node scripts/seed.js | tail -5', 'ERROR: relation "users" does not exist'],
  ];
  for (const [command, output] of failed)
    for (const [exit, flag] of [
      [0, undefined],
      [undefined, true],
      [undefined, undefined],
    ] as const)
      assert.equal(commandVerdict(command, output, exit, flag).failed, true, `${command} (exit ${exit}, flag ${flag})`);
});

test('a filtered run that answered, and an ignored cleanup that found nothing, did not fail', () => {
  const ok: Array<[string, string]> = [
    ['pnpm --version 2>&1 | head -5', '10.4.1'],
    ['java -version 2>&1 | head -1', 'openjdk version "17.0.2" 2022-01-18'],
    ['npm run build 2>&1 | tail -3', 'Error: retrying fetch\nCompiled successfully in 4.2s'],
    // A filter that let nothing through says nothing about the run.
    ['node --version | grep v18', ''],
    ['rm -f build/app.js 2>/dev/null || true', "rm: cannot remove 'build/app.js': No such file or directory"],
    ['taskkill /F /IM node.exe || true', 'ERROR: The process "node.exe" not found.'],
  ];
  for (const [command, output] of ok) assert.equal(commandVerdict(command, output, 0, true).failed, false, command);
});

const STEPS: Step[] = [
  { user: 'Check which package manager versions are installed.' },
  { tool: 'bash', command: 'pnpm --version 2>&1 | head -5', output: COREPACK, exit: 0 },
  { tool: 'bash', command: 'rm -f /w/tmp.lock 2>/dev/null || true', output: '', exit: 0 },
  { say: 'Corepack refuses pnpm here.' },
];

for (const format of ['claude-code', 'codex', 'cline', 'openhands'] as const) {
  test(`${format}: a version query whose filtered output is an error is not shown as ok`, () => {
    const w = WRITERS[format];
    const items = itemsFromEntries(importTranscriptTextSync(w.write(STEPS), w.file).entries);
    const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 8000);
    const commands = sectionOf(summary, 'Commands and outcomes');
    const line = commands.split('\n').find((l) => l.includes('pnpm --version'));
    assert.ok(line, summary);
    assert.doesNotMatch(line, /→ ok\b/, line);
    assert.match(line, /configured to use yarn/, line);
    const cleanup = commands.split('\n').find((l) => l.includes('rm -f'));
    if (cleanup) assert.doesNotMatch(cleanup, /fail/, cleanup);
  });
}
