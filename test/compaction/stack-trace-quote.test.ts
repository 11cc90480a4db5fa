/**
 * A failure shown by a stack trace is quoted by the line that says what failed, in the summary's
 * "Errors and fixes" and in the scorecard's failure line alike, in several recording formats: a
 * Python traceback by the exception that ends it (the last one of a chain), never by its head
 * "Traceback (most recent call last):"; a Java or Node trace by its error line, never by an `at …`
 * frame.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { errorSignatures } from '../../src/compaction/retention/errors';
import { errorLines } from '../../src/compaction/text';
import { failureLine } from '../../src/compaction/retention/outcome';

function read(format: keyof typeof WRITERS, steps: Step[]) {
  const { write, file } = WRITERS[format];
  const entries = importTranscriptTextSync(write(steps), file).entries;
  const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(itemsFromEntries(entries), 6000);
  return { summary, errors: errorSignatures(entries, 0, entries.length) };
}

const TRACEBACK = [
  'Loading config',
  'Traceback (most recent call last):',
  '  File "/w/repro.py", line 9, in <module>',
  '    main()',
  '  File "/w/repro.py", line 5, in main',
  "    return table['b']",
  "KeyError: 'b'",
].join('\n');

const CHAINED = [
  'Traceback (most recent call last):',
  '  File "/w/load.py", line 3, in load',
  "    rows = table['rows']",
  "KeyError: 'rows'",
  '',
  'During handling of the above exception, another exception occurred:',
  '',
  'Traceback (most recent call last):',
  '  File "/w/load.py", line 8, in <module>',
  '    load()',
  'RuntimeError: config has no rows',
].join('\n');

for (const format of ['swe-agent', 'openhands', 'claude-code', 'codex'] as const) {
  test(`${format}: a Python traceback is quoted by its exception line, never by its head`, () => {
    const { summary, errors } = read(format, [
      { user: 'make repro.py print the table' },
      { tool: 'bash', command: 'python /w/repro.py', output: TRACEBACK, ok: false },
      { tool: 'bash', command: 'python /w/load.py', output: CHAINED, ok: false },
      { say: 'Both scripts fail; looking at the table next.' },
    ]);
    assert.match(summary, /^- open: `python \/w\/repro\.py` → (?:exit 1: )?KeyError: 'b'$/m, summary);
    assert.match(summary, /^- open: `python \/w\/load\.py` → (?:exit 1: )?RuntimeError: config has no rows$/m, summary);
    assert.doesNotMatch(summary, /Traceback \(most recent call last\)/, summary);
    const line = (key: string) => errors.find((e) => e.key === key)?.line;
    // The scorecard names the failure by the same line.
    if (format === 'swe-agent') {
      assert.equal(line('python /w/repro.py'), "KeyError: 'b'");
      assert.equal(line('python /w/load.py'), 'RuntimeError: config has no rows');
    }
  });
}

const JAVA = [
  'Starting orders service',
  'java.lang.NullPointerException',
  '\tat com.acme.orders.OrderException.wrap(OrderException.java:12)',
  '\tat com.acme.orders.Main.main(Main.java:5)',
].join('\n');

for (const format of ['claude-code', 'codex', 'cline', 'openhands'] as const) {
  test(`${format}: a Java stack trace is quoted by its exception line, never by an "at …" frame`, () => {
    const { summary } = read(format, [
      { user: 'start the orders service' },
      { tool: 'bash', command: 'java -jar orders.jar', output: JAVA, ok: false },
      { say: 'The service does not start.' },
    ]);
    assert.match(summary, /^- open: `java -jar orders\.jar` → [^\n]*java\.lang\.NullPointerException/m, summary);
    assert.doesNotMatch(summary, /^- open: [^\n]*→[^\n]*\bat com\.acme/m, summary);
  });
}

test('error lines and the failure line read a stack trace for what failed', () => {
  const node = [
    '/w/app.js:3',
    "    throw new Error('pool closed')",
    '',
    'Error: pool closed',
    '    at Object.<anonymous> (/w/app.js:3:11)',
    '    at Module._compile (node:internal/modules/cjs/loader:1105:14)',
  ].join('\n');
  assert.deepEqual(errorLines(TRACEBACK, 2), ["KeyError: 'b'"]);
  assert.equal(failureLine(TRACEBACK), "KeyError: 'b'");
  assert.equal(failureLine(CHAINED), 'RuntimeError: config has no rows');
  assert.equal(errorLines(node, 1)[0], 'Error: pool closed');
  // A traceback cut before its exception is still named by its head: no other line says more.
  assert.equal(
    failureLine('Traceback (most recent call last):\n  File "/w/a.py", line 1'),
    'Traceback (most recent call last):',
  );
});
