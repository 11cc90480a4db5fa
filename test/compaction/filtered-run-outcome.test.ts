/**
 * A compiler or test run piped into a filter (`npx tsc --noEmit 2>&1 | findstr /c:"error TS"`,
 * `| grep error`, `| tail -5`) exits with the filter's status: when what it printed holds the
 * compiler's or runner's error lines (`error TS2559`, `FAILED`, a traceback, `2 failed`), the run
 * failed, whatever that status. And a check run before a later request, which later edits and runs
 * superseded, is not shown as the current state of the work.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commandVerdict } from '../../src/compaction/retention/outcome';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { sectionOf, WRITERS, type Step } from '../support/recordings';

/** The extractive notes of the whole recording `steps` in `format`, with room for every section. */
function notesOf(format: keyof typeof WRITERS, steps: readonly Step[]): string {
  const w = WRITERS[format];
  const items = itemsFromEntries(importTranscriptTextSync(w.write(steps), w.file).entries);
  return new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 8000);
}

const TSC_ERRORS = [
  "src/map/Marker.tsx(12,5): error TS2559: Type '{ id: string; }' has no properties in common with type 'Props'.",
  "src/map/Layer.tsx(40,9): error TS2322: Type 'number' is not assignable to type 'string'.",
].join('\n');

test('a run piped into a filter failed when the output holds its error lines, whatever the exit status', () => {
  const cases: Array<[string, string]> = [
    ['cd c:\\app && npx tsc --noEmit 2>&1 | findstr /c:"error TS"', TSC_ERRORS],
    ['npx tsc --noEmit | grep error', TSC_ERRORS],
    ['npm run build 2>&1 | head -20', TSC_ERRORS],
    ['pytest -q 2>&1 | tail -3', 'FAILED tests/test_api.py::test_login - AssertionError\n2 failed, 40 passed in 3.1s'],
    ['python manage.py migrate | tail -5', 'Traceback (most recent call last):\n  File "x.py", line 3\nKeyError: 1'],
  ];
  for (const [command, output] of cases) {
    for (const [exit, flag] of [
      [0, undefined],
      [undefined, true],
      [undefined, undefined],
    ] as const)
      assert.equal(commandVerdict(command, output, exit, flag).failed, true, `${command} (exit ${exit}, flag ${flag})`);
  }
});

test('a filtered run without error lines, a search for error text and a log filter are no failures', () => {
  const ok: Array<[string, string]> = [
    ['npx tsc --noEmit 2>&1 | findstr /c:"error TS"', ''],
    ['pytest -q | tail -1', '42 passed in 2.0s'],
    // Searching files for the words finds content, not a failure of the search.
    ['grep -rn "error TS" docs/ | head', 'docs/notes.md:3: error TS2559 was fixed by typing the props'],
    ['git log --oneline | grep FAILED', 'a1b2c3d Fix FAILED login test'],
    ['docker logs api 2>&1 | grep -c Traceback', '3'],
  ];
  for (const [command, output] of ok)
    assert.equal(commandVerdict(command, output, 0, undefined).failed, false, command);
});

const FILTERED: Step[] = [
  { user: 'Fix the type errors in the map components.' },
  { tool: 'bash', command: 'npx tsc --noEmit 2>&1 | grep "error TS"', output: TSC_ERRORS, exit: 0 },
  { say: 'Two errors remain.' },
];

for (const format of ['claude-code', 'codex', 'cline'] as const) {
  test(`${format}: a type check whose filtered output lists errors is not reported as ok`, () => {
    const summary = notesOf(format, FILTERED);
    const line = sectionOf(summary, 'Commands and outcomes')
      .split('\n')
      .find((l) => l.includes('npx tsc'));
    assert.ok(line, summary);
    assert.doesNotMatch(line, /→ ok\b/, line);
    assert.match(summary, /error TS2559/, 'the error is quoted');
  });
}

const SUPERSEDED: Step[] = [
  { user: 'Fix the type errors in the map components.' },
  { tool: 'bash', command: 'npx tsc --noEmit', output: `${TSC_ERRORS}\nFound 2 errors.`, ok: false, exit: 2 },
  { say: 'Two errors remain; I will type the props next.' },
  { user: 'Also add a legend to the map.' },
  { tool: 'edit', path: '/w/src/map/Marker.tsx', old: 'props', new: 'props: MarkerProps' },
  { tool: 'write', path: '/w/src/map/Legend.tsx', content: 'export function Legend() { return null; }\n' },
  { tool: 'bash', command: 'npm run dev', output: 'ready - started server on 0.0.0.0:3000' },
  { say: 'The legend is in place.' },
  { user: 'Now style the legend.' },
];

for (const format of ['claude-code', 'codex', 'openhands'] as const) {
  test(`${format}: a check that later edits and runs superseded is not the current state`, () => {
    const summary = notesOf(format, SUPERSEDED);
    const current = sectionOf(summary, 'Current work and next step');
    assert.ok(current, summary);
    assert.doesNotMatch(current, /Verification|error TS2559/, current);
  });
}
