/**
 * A run whose exit status cannot tell its failure: a command that prints its run's status (`…; echo
 * "exit=$?"` printing `exit=2`) failed with that status, whatever the echo's; a command whose status
 * is masked (`|| true`, `; echo`, `start /B`, `nohup`, a trailing `&`) failed when its output opens
 * or ends on a fatal error (`Error starting proxy: … bind: …`, `fatal: …`, a traceback). Neither
 * reads content a command showed (a grep's hits, a log), nor a passing run's words about errors, as
 * a failure; and such a failure is fixed by a later success of the same run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commandVerdict } from '../../src/compaction/retention/outcome';
import { commandOutcome } from '../../src/compaction/summary/ledger/run-outcome';
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

const PROXY_FAILED = [
  '2026/04/28 16:37:32 Authorizing with Application Default Credentials',
  '2026/04/28 16:37:32 Error starting proxy: [proj:us-central1:db] Unable to mount socket: listen tcp 127.0.0.1:5432: bind: Only one usage of each socket address (protocol/network address/port) is normally permitted.',
  '2026/04/28 16:37:32 The proxy has encountered a terminal error: unable to start',
  '2026/04/28 16:37:32 Sending SIGINT signal for proxy to shutdown.',
].join('\n');

const CLI_MISSING = [
  'warning: API_KEY is not set; the CLI may fail to authenticate.',
  '',
  'error: `zerion` CLI not found on PATH.',
  '',
  'Install it from https://example.com/cli',
].join('\n');

test('a status the command printed for its run decides, whatever the echo exited with', () => {
  const failed: Array<[string, string]> = [
    ['node scripts/check.mjs BAD; echo "exit=$?"', `${CLI_MISSING}\nexit=2`],
    ['make build; echo "exit code: $?"', 'cc -o app main.c\nexit code: 1'],
    ['npm run lint & echo EXIT:%ERRORLEVEL%', 'lint done\nEXIT:1'],
    ['pwsh -File build.ps1; Write-Host "Exit status $LASTEXITCODE"', 'Building…\nExit status 2'],
    // The status of a run piped into a filter is the filter's: the run's own error lines decide.
    ['node scripts/check.mjs BAD 2>&1 | head -10; echo "exit=$?"', `${CLI_MISSING}\nexit=0`],
  ];
  for (const [command, output] of failed)
    for (const flag of [true, undefined])
      assert.equal(commandVerdict(command, output, 0, flag).failed, true, `${command} (flag ${flag})`);
  assert.equal(commandOutcome('node s.mjs BAD; echo "exit=$?"', `${CLI_MISSING}\nexit=2`, true).exit, 2);
  const ok: Array<[string, string]> = [
    ['npm test; echo "exit=$?"', '12 passing, 0 errors\nexit=0'],
    ['grep -rn "error" src; echo "rc=$?"', 'rc=1'],
    ['node migrate.js; echo "exit=$?"', 'Migrated 3 tables\nexit=0'],
  ];
  for (const [command, output] of ok) assert.equal(commandVerdict(command, output, 0, true).failed, false, command);
});

test('a masked status fails on a fatal error the output opens or ends on, and only then', () => {
  const failed: Array<[string, string]> = [
    ['taskkill /F /IM proxy.exe 2>nul & cd c:\\app && start /B cloud-sql-proxy.exe proj:db --port=5432', PROXY_FAILED],
    ['nohup node server.js &', 'Error: listen EADDRINUSE: address already in use :::3000'],
    [
      'git push origin main || true',
      'fatal: could not read Username for https://github.com: terminal prompts disabled',
    ],
    [
      'python manage.py migrate || echo done',
      'Traceback (most recent call last):\n  File "manage.py", line 3\nKeyError: 1\ndone',
    ],
    ['./start.sh; echo started', 'bind: address already in use\nstarted'],
  ];
  for (const [command, output] of failed)
    for (const [exit, flag] of [
      [0, undefined],
      [undefined, true],
    ] as const)
      assert.equal(commandVerdict(command, output, exit, flag).failed, true, `${command} (exit ${exit}, flag ${flag})`);
  const ok: Array<[string, string]> = [
    // Content shown: a grep's hits and a log file hold the word, they are not the run's error.
    ['grep -rn "Error" src/ || true', 'src/a.ts:3: Error: thrown when the key is missing'],
    ['cat logs/app.log || true', 'Error starting proxy: bind: address already in use'],
    ['docker logs api 2>&1 | tail -3', 'Error: connection refused\nError: connection refused'],
    // Runs that passed, naming errors on the way.
    ['npm test || true', '✓ reports an error: bad input\n✓ error: handles timeouts\n12 passing, 0 errors'],
    ['npm run build; echo built', 'Compiled with 0 errors\nbuilt'],
    ['nohup node server.js &', 'Error: retrying connection\nServer listening on :3000, started successfully'],
    // A failure logged on the way of a run that went on and passed.
    [
      'node seed.js || true',
      ['seeding', 'a', 'b', 'c', 'd', 'Error: row 3 skipped', 'e', 'f', 'g', 'h', 'i', 'Done: seeded 40 rows'].join(
        '\n',
      ),
    ],
  ];
  for (const [command, output] of ok) assert.equal(commandVerdict(command, output, 0, true).failed, false, command);
});

const INSTANCE = 'example-agency-dev-1:us-central1:example-database-instance';

const BACKGROUND: Step[] = [
  { user: 'Start the database proxy so the app can connect.' },
  {
    tool: 'bash',
    // Longer than a command's key: what it launches is told from the whole line.
    command: `taskkill /F /IM cloud-sql-proxy.exe 2>nul & cd c:\\app && start /B cloud-sql-proxy.exe ${INSTANCE} --port=5432`,
    output: PROXY_FAILED,
    exit: 0,
  },
  { say: 'The port is still in use.' },
];

const ECHOED: Step[] = [
  { user: 'Check that the readiness script fails on a bad address.' },
  {
    tool: 'bash',
    command: 'node scripts/readiness.mjs NOT_AN_ADDRESS; echo "exit=$?"',
    output: `${CLI_MISSING}\nexit=2`,
    exit: 0,
  },
  { say: 'The script stops there.' },
];

/** The line of the commands section naming `what`. */
function commandLine(summary: string, what: string): string | undefined {
  return sectionOf(summary, 'Commands and outcomes')
    .split('\n')
    .find((l) => l.includes(what));
}

for (const format of ['claude-code', 'cline', 'codex'] as const) {
  test(`${format}: a background start that failed, and a printed exit status, are not "ok"`, () => {
    const started = notesOf(format, BACKGROUND);
    const line = commandLine(started, 'start /B');
    assert.ok(line, started);
    assert.doesNotMatch(line, /→ ok\b/, line);
    assert.match(sectionOf(started, 'Errors and fixes'), /open: `[^`]*start \/B[^`]*`.*Error starting proxy/, started);
    const echoed = notesOf(format, ECHOED);
    const run = commandLine(echoed, 'readiness.mjs');
    assert.ok(run, echoed);
    assert.match(run, /→ failed \(exit 2\)/, run);
  });

  test(`${format}: a later success of the same background start resolves its failure`, () => {
    const steps: Step[] = [
      ...BACKGROUND,
      { tool: 'bash', command: 'taskkill /F /IM cloud-sql-proxy.exe', output: 'SUCCESS: terminated.', exit: 0 },
      {
        tool: 'bash',
        command: `cd c:\\app && start "CloudSQLProxy" cloud-sql-proxy.exe ${INSTANCE} --port=5432`,
        output: '',
        exit: 0,
      },
      { say: 'The proxy is running.' },
    ];
    const summary = notesOf(format, steps);
    const errors = sectionOf(summary, 'Errors and fixes');
    assert.match(errors, /fixed: `[^`]*start \/B/, summary);
    assert.doesNotMatch(errors, /open:/, summary);
    assert.doesNotMatch(sectionOf(summary, 'Current work and next step'), /resolve|failures not fixed/, summary);
  });
}
