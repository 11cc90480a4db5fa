/**
 * What the commands found out about the machine (a program not installed or not on the PATH, a
 * runtime that cannot start, a version found) is kept in the summary's environment section, one line
 * per program, when the budget drops the older command lines those probes were; a program found later
 * (after installing it) is no longer listed as missing; the lines carry into a later summary.
 * Recorded in each agent's format that runs commands.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { environmentFacts, environmentLines } from '../../src/compaction/summary/ledger/environment';
import { sectionOf, WRITERS, type Step } from '../support/recordings';
import { quarterCounter } from '../support/generate';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { importTranscriptTextSync } from '../../src/transcripts';
import { keepMessageMemos } from '../../src/compaction/message-memo';
import { itemsFromEntries } from '../../src/compaction/context';
import type { ContextItem } from '../../src/compaction/types';

const ENV = 'Environment';
const filler = (n: number) => 'The module was listed and its exports read one by one. '.repeat(n);

/** `n` listings of modules: commands that succeed, each with a few lines of output. */
const listings = (n: number, from = 0): Step[] =>
  Array.from({ length: n }, (_, i): Step => ({
    tool: 'bash',
    command: `ls src/module${from + i}/ && wc -l src/module${from + i}/index.ts`,
    output: `index.ts\nservice${from + i}.ts\n${100 + i} src/module${from + i}/index.ts`,
    exit: 0,
  }));

/** Probes, then many other commands: at a small budget the probes' own command lines go. */
const probes: Step[] = [
  { user: 'add unit tests for the reservation service and run them' },
  { tool: 'bash', command: 'which mvn && mvn -version 2>&1 | head -3', output: 'mvn not found', ok: false },
  {
    tool: 'bash',
    command: 'java -version 2>&1',
    output: 'The operation couldn’t be completed. Unable to locate a Java Runtime.\nPlease visit http://www.java.com.',
    ok: false,
  },
  { tool: 'bash', command: 'cargo build', output: 'bash: cargo: command not found', ok: false },
  { tool: 'bash', command: 'node --version', output: 'v20.11.0', exit: 0 },
  ...listings(60),
  { say: filler(2) },
  { user: 'now write the tests without maven' },
  { say: 'ok' },
];

/** The extractive notes of the recording of `steps` in `format`, in `tokens` tokens (room for every section). */
function notesOf(
  format: keyof typeof WRITERS,
  steps: readonly Step[],
  tokens = 4000,
  before: ContextItem[] = [],
): string {
  const { write, file } = WRITERS[format];
  const items = itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
  return new ExtractiveSummarizer(quarterCounter.countText).notes([...before, ...items], tokens);
}

for (const format of Object.keys(WRITERS) as Array<keyof typeof WRITERS>) {
  test(`${format}: programs found missing and versions found stay listed when older command lines are dropped`, () => {
    const summary = notesOf(format, probes, 500);
    const env = sectionOf(summary, ENV);
    assert.match(env, /^- not available: mvn \("mvn not found"\)$/m, summary);
    assert.match(env, /^- not available: java \("Unable to locate a Java Runtime"\)$/m, summary);
    assert.match(env, /^- not available: cargo \("bash: cargo: command not found"\)$/m, summary);
    assert.match(env, /^- available: node \("v20\.11\.0"\)$/m, summary);
    // The budget was tight: the probes' own command lines are among those not kept.
    const commands = sectionOf(summary, 'Commands and outcomes');
    assert.match(commands, /^- … \d+ older lines not kept/, summary);
    assert.doesNotMatch(commands, /which mvn/, summary);
    assert.equal((env.match(/: mvn /g) ?? []).length, 1, 'one line per program');
  });
}

for (const format of ['claude-code', 'codex', 'openhands'] as const) {
  test(`${format}: a program installed and found later is no longer listed as missing`, () => {
    const notes = notesOf(format, [
      ...probes.slice(0, 3),
      { tool: 'bash', command: 'brew install maven', output: '==> Pouring maven--3.9.6.all.bottle.tar.gz', exit: 0 },
      {
        tool: 'bash',
        command: 'mvn -version',
        output: 'Apache Maven 3.9.6 (bc0240f3)\nMaven home: /opt/maven',
        exit: 0,
      },
      { say: 'done' },
    ]);
    const env = sectionOf(notes, ENV);
    assert.doesNotMatch(env, /not available: mvn/, notes);
    assert.match(env, /^- available: mvn \("Apache Maven 3\.9\.6 \(bc0240f3\)"\)$/m, notes);
    assert.match(env, /^- not available: java /m, notes);
  });

  test(`${format}: the environment lines carry into a later summary, a later probe deciding`, () => {
    const first = notesOf(format, probes.slice(0, 5));
    const earlier: ContextItem = {
      id: 'cp~s',
      kind: 'summary',
      message: { role: 'user', content: first },
      covers: [],
      checkpointId: 'cp',
    };
    const second = notesOf(
      format,
      [
        { user: 'install a JDK and try again' },
        { tool: 'bash', command: 'brew install openjdk@17', output: '==> Pouring openjdk@17', exit: 0 },
        { tool: 'bash', command: 'java -version 2>&1', output: 'openjdk version "17.0.10" 2024-01-16', exit: 0 },
        { say: 'done' },
      ],
      4000,
      [earlier],
    );
    const env = sectionOf(second, ENV);
    assert.match(env, /^- not available: mvn \("mvn not found"\)$/m, second);
    assert.match(env, /^- not available: cargo /m, second);
    assert.match(env, /^- available: java \("openjdk version '17\.0\.10' 2024-01-16"\)$/m, second);
    assert.doesNotMatch(env, /not available: java/, second);
  });
}

test('the shells’ and launchers’ words for a missing program are read, the program named in the command', () => {
  const cases: Array<[string, string, string]> = [
    ['cargo build', '/bin/sh: line 1: cargo: command not found', 'cargo'],
    ['gradle test', 'zsh: command not found: gradle', 'gradle'],
    ['yarn install', 'sh: 1: yarn: not found', 'yarn'],
    ['mvn -q test', "'mvn' is not recognized as an internal or external command,", 'mvn'],
    ['dotnet build', "dotnet : The term 'dotnet' is not recognized as the name of a cmdlet, function", 'dotnet'],
    ['env node server.js', "env: 'node': No such file or directory", 'node'],
  ];
  for (const [command, output, subject] of cases) {
    const missing = environmentFacts(command, output, true);
    assert.deepEqual(
      missing.map((f) => [f.subject, f.found]),
      [[subject, false]],
      `${command}: ${output}`,
    );
  }
  // A line that names no program of the command is no fact about the machine.
  assert.deepEqual(environmentFacts('cat notes.txt', 'File: command not found', false), []);
});

test('a which that printed no path says the program is not on the PATH; a path or a version says it is there', () => {
  assert.deepEqual(environmentFacts('which gradle', 'Exit code 1', true), [
    { subject: 'gradle', found: false, said: 'not found on the PATH (which gradle)' },
  ]);
  assert.deepEqual(environmentFacts('which gradle', '/usr/local/bin/gradle', false), [
    { subject: 'gradle', found: true, said: '/usr/local/bin/gradle' },
  ]);
  // The stub on the PATH that finds no runtime: missing, whatever `which` printed.
  assert.deepEqual(
    environmentFacts('which java; java -version 2>&1', '/usr/bin/java\nUnable to locate a Java Runtime.', true).map(
      (f) => [f.subject, f.found],
    ),
    [['java', false]],
  );
  // Two version queries: each its own line.
  assert.deepEqual(
    environmentFacts('node -v && npm -v', 'v20.11.0\n10.2.4', false).map((f) => [f.subject, f.said]),
    [
      ['node', 'v20.11.0'],
      ['npm', '10.2.4'],
    ],
  );
  assert.deepEqual(
    environmentFacts('python3 -c "import numpy"', "ModuleNotFoundError: No module named 'numpy'", true),
    [{ subject: 'python module numpy', found: false, said: "No module named 'numpy'" }],
  );
  // A test run whose code imports a missing module of the project is no probe of the machine.
  assert.deepEqual(environmentFacts('pytest tests/', "E   ModuleNotFoundError: No module named 'app.db'", true), []);
});

test('a successful run of a program listed as missing removes it; a program is listed once, the latest fact deciding', () => {
  const run = (command: string, ok: boolean, env?: ReturnType<typeof environmentFacts>) => ({
    kind: 'command',
    command,
    ok,
    ...(env ? { env } : {}),
  });
  const lines = environmentLines([
    run('which mvn', true, environmentFacts('which mvn', 'mvn not found', true)),
    run('which gradle', true, environmentFacts('which gradle', 'gradle not found', true)),
    run('which mvn', true, environmentFacts('which mvn', 'mvn not found', true)),
    run('./gradlew wrapper && gradle test', true),
  ]);
  assert.deepEqual(lines, ['- not available: mvn ("mvn not found")']);
  // A failed run of it says nothing of whether it is installed now.
  assert.deepEqual(environmentLines([], lines, [run('mvn test', false)]), lines);
  assert.deepEqual(environmentLines([], lines, [run('mvn -q test', true)]), []);
});

test('a grown span reads the programs of its commands kept from the span before: the same lines as a reading that keeps nothing', () => {
  const run = (command: string, ok: boolean, env?: ReturnType<typeof environmentFacts>) => ({
    kind: 'command',
    command,
    ok,
    ...(env ? { env } : {}),
  });
  const span = [
    run('which mvn', true, environmentFacts('which mvn', 'mvn not found', true)),
    run('which gradle', true, environmentFacts('which gradle', 'gradle not found', true)),
    run('ls src && cat pom.xml | head', true),
  ];
  const fresh = (actions: typeof span) => {
    keepMessageMemos(false);
    try {
      return environmentLines(actions);
    } finally {
      keepMessageMemos(true);
    }
  };
  assert.deepEqual(environmentLines(span), fresh(span));
  // The next compaction: the same action objects, then new ones (gradle runs now, mvn still missing).
  const grown = [...span, run('./gradlew wrapper && gradle test', true), run('npm test', true)];
  const lines = environmentLines(grown);
  assert.deepEqual(lines, fresh(grown));
  assert.deepEqual(lines, ['- not available: mvn ("mvn not found")']);
  assert.deepEqual(environmentLines(grown), lines, 'a third reading, every command kept');
});
