/**
 * A cleanup whose failure the command ignores (`taskkill /F /IM node.exe || true`, `pkill vite;
 * npm run dev`, `rm -f x 2>/dev/null`) means "stop it if it runs", "remove it if it is there": when
 * its only error says there was nothing to act on ("ERROR: The process … not found", "No such
 * process", "no process found"), the command did not fail. Any other error of the same command
 * still fails it, and a cleanup whose status is the command's own is judged as before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commandVerdict } from '../../src/compaction/retention/outcome';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { sectionOf, WRITERS, type Step } from '../support/recordings';

const TASKKILL = 'ERROR: The process "node.exe" not found.';

test('an ignored cleanup that found nothing to act on did not fail', () => {
  const ok: Array<[string, string]> = [
    ['taskkill /F /IM node.exe || true', TASKKILL],
    ['taskkill /F /IM node.exe & npm run dev', `${TASKKILL}\n> dev\n> next dev\nready on http://localhost:3000`],
    ['kill %1 || true', 'bash: kill: %1: no such job'],
    ['killall node || true', 'node: no process found'],
    ['kill 4242 || true', 'bash: kill: (4242) - No such process'],
    ['rm build/app.js || true', "rm: cannot remove 'build/app.js': No such file or directory"],
    [
      'rm build/app.js 2>/dev/null; npm run build',
      "rm: cannot remove 'build/app.js': No such file or directory\nbuilt in 2s",
    ],
    ['docker rm -f api || true', 'Error response from daemon: No such container: api'],
    [
      'Stop-Process -Name node -ErrorAction SilentlyContinue',
      'Stop-Process : Cannot find a process with the name "node". Verify the process name and call the cmdlet again.\nAt line:1 char:1\n+ Stop-Process -Name node\n+ ~~~~~~~~~~~~~~~~~~~~~~~',
    ],
  ];
  for (const [command, output] of ok)
    for (const [exit, flag] of [
      [0, undefined],
      [undefined, true],
      [undefined, undefined],
    ] as const)
      assert.equal(
        commandVerdict(command, output, exit, flag).failed,
        false,
        `${command} (exit ${exit}, flag ${flag})`,
      );
  const failed: Array<[string, string | undefined, number | undefined]> = [
    // Another error of the same command is its failure.
    [
      'taskkill /F /IM node.exe & npm run dev',
      `${TASKKILL}\nError: listen EADDRINUSE: address already in use :::3000`,
      0,
    ],
    [
      'pkill node; npm run build',
      "kill: (12) - No such process\nnpm ERR! enoent ENOENT: no such file or directory, open '/w/package.json'",
      1,
    ],
    // A cleanup whose status is the command's own: the recorded status decides.
    ['taskkill /F /IM node.exe', TASKKILL, 128],
    ['rm build/app.js && npm run build', "rm: cannot remove 'build/app.js': No such file or directory", 1],
  ];
  for (const [command, output, exit] of failed)
    assert.equal(commandVerdict(command, output, exit, undefined).failed, true, command);
});

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

const STEPS: Step[] = [
  { user: 'restart the dev server on a clean port' },
  { tool: 'bash', command: 'taskkill /F /IM node.exe || true', output: TASKKILL, exit: 0 },
  { tool: 'bash', command: 'npm run dev', output: `ready on http://localhost:3000\n${filler(5)}`, exit: 0 },
  { say: `The dev server runs on port 3000. ${filler(10)}` },
];

for (const format of ['claude-code', 'codex', 'openhands', 'cline'] as const) {
  test(`${format}: an ignored kill that found no process is no failure of the summary`, () => {
    const w = WRITERS[format];
    const items = itemsFromEntries(importTranscriptTextSync(w.write(STEPS), w.file).entries);
    const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 8000);
    const line = sectionOf(summary, 'Commands and outcomes')
      .split('\n')
      .find((l) => l.includes('taskkill'));
    assert.ok(line, summary);
    assert.doesNotMatch(line, /→ (?:error|failed)/i, line);
    assert.doesNotMatch(summary, /open: `taskkill/, summary);
    assert.doesNotMatch(summary, /process "node\.exe" not found/, summary);
  });
}
