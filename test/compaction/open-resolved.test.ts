/**
 * Open and resolved failures told apart, in every recording format: a failure fixed later is listed
 * as fixed with what fixed it and is never open nor the next step; text that is not a failure (a
 * file read that declares `error TEXT`, a search that found nothing, a test named "error") is no
 * failure at all; the recording's own success flag decides where it has one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, summaryOf, type Step } from '../support/recordings';
import { commandOutcome, commandSignature, fileOutcome } from '../../src/compaction/summary/ledger/run-outcome';
import { VERIFY } from '../../src/compaction/summary/ledger/ledger';

const filler = (n: number) => `${'lorem ipsum dolor sit amet '.repeat(n)}`;

/** Work where a failing test run is fixed by an edit and passes, a schema with an `error` column is read, and a search finds nothing. */
const fixedLater: Step[] = [
  { user: 'make the orders tests pass' },
  {
    tool: 'read',
    path: 'db/schema.sql',
    output: `CREATE TABLE jobs (\n  id INTEGER,\n  error TEXT,\n  status TEXT\n);\n-- ERROR: rows with a failed status are retried\n${filler(40)}`,
  },
  { tool: 'bash', command: 'grep -rn "legacyOrders" src', output: '', ok: false, exit: 1 },
  {
    tool: 'bash',
    command: 'npm test',
    output: `FAIL test/orders.test.js\n  ✕ rejects an order with error status\nError: expected 200 but was 500\n${filler(40)}`,
    ok: false,
  },
  { tool: 'edit', path: 'src/orders.js', old: 'return 500;', new: 'return 200;' },
  {
    tool: 'bash',
    command: 'npm test -- --runInBand',
    output: `PASS test/orders.test.js\n  ✓ rejects an order with error status\nTests: 4 passed, 4 total\n${filler(40)}`,
  },
  { say: `All orders tests pass now. ${filler(500)}` },
  { user: 'now add a README' },
  { say: 'Writing the README.' },
];

for (const [format, { write, file }] of Object.entries(WRITERS)) {
  test(`${format}: a failure fixed later is fixed, never open or the next step; a read schema and an empty search are no failures`, async () => {
    const { summary } = await summaryOf(write(fixedLater), file);
    assert.doesNotMatch(summary, /^- open:/m, summary);
    assert.doesNotMatch(summary, /Next step: resolve/, summary);
    assert.doesNotMatch(summary, /Latest error line/, summary);
    if (format !== 'swe-agent') {
      // The run that failed is listed as fixed, with the run that passed.
      assert.match(summary, /- fixed: `npm test` failed[^\n]*→[^\n]*`npm test -- --runInBand` passed/, summary);
    }
    assert.doesNotMatch(summary, /schema\.sql[^\n]*failed|`cat db\/schema\.sql` → failed/, summary);
    assert.doesNotMatch(summary, /`grep -rn "legacyOrders" src` → failed/, summary);
  });
}

test('a failure still unfixed at the end of the span stays open; it is the next step while the turn goes on', async () => {
  const failed: Step[] = [
    { user: 'deploy it' },
    {
      tool: 'bash',
      command: 'terraform plan',
      output: `Error: Invalid provider configuration\n${filler(40)}`,
      ok: false,
    },
  ];
  const goesOn: Step[] = [
    ...failed,
    { say: `Looking into the provider block. ${filler(500)}` },
    { tool: 'read', path: 'infra/providers.tf', output: `provider "google" {}\n${filler(40)}` },
    { tool: 'read', path: 'infra/main.tf', output: `module "x" {}\n${filler(40)}` },
  ];
  // The agent stopped with the failure unfixed ("go on" continues the same request): the person moves next.
  const ended: Step[] = [
    ...failed,
    { say: `Looking into the provider block. ${filler(500)}` },
    { user: 'go on' },
    { say: 'ok' },
  ];
  for (const { write, file } of Object.values(WRITERS)) {
    const on = await summaryOf(write(goesOn), file);
    assert.match(on.summary, /^- open: `terraform plan`/m, `${on.format}: ${on.summary}`);
    assert.match(on.summary, /Next step: resolve `terraform plan`/, on.summary);
    const stopped = await summaryOf(write(ended), file);
    // SWE-agent's writer words "go on" as a new task: the failure is listed as an earlier turn's.
    assert.match(
      stopped.summary,
      stopped.format === 'swe-agent'
        ? /^- unresolved when that turn ended \(a newer request came after it\): `terraform plan`/m
        : /^- open: `terraform plan`/m,
      `${stopped.format}: ${stopped.summary}`,
    );
    assert.doesNotMatch(stopped.summary, /Next step: resolve/, stopped.summary);
    // SWE-agent's writer words "go on" as a new task: the failure is an earlier turn's, not named as the next step.
    if (stopped.format !== 'swe-agent')
      assert.match(
        stopped.summary,
        /Next step: the user's turn \(the agent ended its turn with failures not fixed: `terraform plan`\)/,
        stopped.summary,
      );
  }
});

test('a failure fixed in the steps kept after the summary is not open', async () => {
  const steps: Step[] = [
    { user: 'fix the reproduction' },
    {
      tool: 'bash',
      command: 'python /testbed/reproduce.py',
      output: `Traceback (most recent call last):\nValueError: bad dtype\n${filler(40)}`,
      ok: false,
    },
    { say: filler(500) },
    { tool: 'edit', path: '/testbed/lib/core.py', old: 'a', new: 'b' },
    { tool: 'bash', command: 'python /testbed/reproduce.py', output: 'dtypes preserved: float16 float16' },
  ];
  for (const { write, file } of Object.values(WRITERS)) {
    const { summary } = await summaryOf(write(steps), file);
    assert.doesNotMatch(summary, /^- open:/m, summary);
    assert.doesNotMatch(summary, /Next step: resolve/, summary);
  }
});

test('a command run several times, failing here and passing in the steps kept after the summary, is not shown as failing', async () => {
  const failing = (n: number): Step => ({
    tool: 'bash',
    command: 'python /testbed/reproduce.py',
    output: `Traceback (most recent call last):\nKeyError: 'sepal length (cm)' (${n})\n${filler(40)}`,
    ok: false,
  });
  const steps: Step[] = [
    { user: 'fix the dtype reproduction' },
    {
      tool: 'read',
      path: '/testbed/lib/core.py',
      output: `    49\ttry:\n    50\t    cast(frame)\n    51\texcept Exception:\n    52\t    raise TypeError('bad dtype')\n${filler(20)}`,
    },
    failing(1),
    { tool: 'edit', path: '/testbed/lib/core.py', old: 'a', new: 'b' },
    failing(2),
    { say: filler(500) },
    { tool: 'edit', path: '/testbed/lib/core.py', old: 'b', new: 'c' },
    failing(3),
    { tool: 'edit', path: '/testbed/lib/core.py', old: 'c', new: 'd' },
    { tool: 'bash', command: 'python /testbed/reproduce.py', output: 'Output dtypes: float16 category' },
  ];
  for (const { write, file } of Object.values(WRITERS)) {
    const { summary, format } = await summaryOf(write(steps), file);
    const line = summary.split('\n').find((l) => l.startsWith('- `python /testbed/reproduce.py` →'));
    assert.ok(line, `${format}: ${summary}`);
    assert.match(
      line,
      /succeeded when run again in the steps kept after this summary \(ran ([23])×, \1 failed\)/,
      format,
    );
    assert.doesNotMatch(summary, /^- open:/m, summary);
    assert.doesNotMatch(summary, /Next step: resolve/, summary);
    // Neither the fixed failure's lines nor a file's code naming an exception are quoted as errors.
    assert.doesNotMatch(summary, /Error in tool output|Latest error line/, summary);
  }
});

test('outcome rules: a denial, a probe’s no, the stated exit status, the flag, then the wording', () => {
  assert.equal(commandOutcome('npm test', 'Error: looks bad but passed', true).ok, true, 'flag beats wording');
  assert.equal(
    commandOutcome(
      'node check.js',
      'Command executed successfully (exit code 0).\nOutput:\nError: read ECONNRESET',
      true,
    ).ok,
    false,
    'exit 0 with an error report failed',
  );
  assert.deepEqual(commandOutcome('npm test', 'The user denied this operation.'), {
    ok: false,
    denied: true,
    answer: 'denied by the user',
  });
  assert.equal(commandOutcome('npm test', 'all fine', false).ok, false, 'flag beats wording');
  assert.deepEqual(commandOutcome('grep -n foo src/a.ts', 'Exit code 1'), { ok: true, exit: 1, answer: 'no match' });
  assert.equal(commandOutcome('which mvn && mvn -version', 'Exit code 1\nmvn not found', false).answer, 'not found');
  assert.equal(commandOutcome('cat schema.sql', 'CREATE TABLE t (error TEXT);\nERROR: logged line').ok, true);
  assert.deepEqual(commandOutcome('cat missing.sql', 'cat: missing.sql: No such file or directory'), {
    ok: true,
    answer: 'not found',
  });
  assert.equal(
    commandOutcome(
      'cd infra && type terraform.tfvars',
      'Command failed with exit code 1.\nThe system cannot find the file specified.',
    ).answer,
    'not found',
  );
  assert.equal(commandOutcome('npm run build', 'error TS2304: Cannot find name x').ok, false);
  assert.equal(commandOutcome('grep -E "(" a', 'grep: Unmatched ( or \\(\nError: bad pattern\nExit code 2').ok, false);
  assert.equal(fileOutcome(true, 'error TEXT,\nfailed_at TIMESTAMP').ok, true, 'a read is its file');
  assert.equal(fileOutcome(true, 'File does not exist: a.ts').ok, false);
  assert.equal(commandSignature('cd infra && terraform plan -out=tfplan'), 'terraform plan');
  assert.equal(commandSignature('npx tsc --noEmit 2>&1 | findstr error'), 'tsc --noEmit');
  assert.equal(commandSignature('python /testbed/reproduce.py'), 'python /testbed/reproduce.py');
});

test('a verification is a program run, not a word in a path or an argument', () => {
  for (const c of ['npm test', 'cd a && npx tsc --noEmit', 'pytest -q tests', 'npm run test:unit', 'python -m pytest'])
    assert.ok(VERIFY.test(c), c);
  for (const c of ['ls eslint.config.mjs', 'cat Makefile', 'mvn -version', 'grep -r jest package.json'])
    assert.ok(!VERIFY.test(c), c);
});
