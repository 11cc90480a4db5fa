/**
 * A failure is fixed only by a later success of the same command (same program, subcommand, target
 * and options: option values and display options aside) or by an edit of a file it names followed by
 * a passing check; never one
 * command's failure by a different command's success. Each fixed failure is listed once, and the
 * summary's fixed/open lines agree with the checkpoint's scorecard. Recorded in Cline's format.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cline, compactExtractive, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { commandTarget } from '../../src/compaction/retention/errors';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

/** The extractive summary of a Cline recording of `steps`, and its checkpoint's scorecard. */
async function compacted(steps: Step[]) {
  const r = await compactExtractive(
    itemsFromEntries(importTranscriptTextSync(cline(steps), 'api_conversation_history.json').entries),
  );
  assert.ok('context' in r && 'checkpoints' in r, 'compacted');
  const summary = r.context.find((i) => i.kind === 'summary');
  assert.ok(summary, 'a summary was written');
  return {
    summary: textWithPlaceholders(summary.message.content),
    card: r.checkpoints.find((c) => c.strategy === 'extractive')?.retention,
  };
}

const fail = (command: string, output: string): Step => ({ tool: 'bash', command, output, ok: false });
const pass = (command: string, output = 'done'): Step => ({ tool: 'bash', command, output });

const cloudWork: Step[] = [
  { user: 'set up the database instance and the terraform plan' },
  fail(
    'gcloud sql instances patch main-db --project=dev-1 --assign-ip',
    'ERROR: (gcloud.sql.instances.patch) HTTPError 400: invalid request',
  ),
  pass('gcloud sql instances describe main-db --project=dev-1 --format="yaml(settings)"', 'settings: {}'),
  fail('gcloud sql connect main-db --user=app --project=dev-1', 'ERROR: (gcloud.sql.connect) connection refused'),
  fail('terraform plan -var-file=dev.tfvars', 'Error: Missing required argument in terraform/main.tf'),
  fail('terraform plan -var-file=dev.tfvars -no-color', 'Error: Missing required argument in terraform/main.tf'),
  fail('terraform plan -var-file=prod.tfvars 2>&1 | tail -20', 'Error: Missing required argument in terraform/main.tf'),
  { tool: 'edit', path: 'src/app.ts', old: 'a', new: 'b' },
  pass('npm run build', 'built in 2s'),
  { tool: 'edit', path: 'terraform/main.tf', old: 'region = ""', new: 'region = "us-central1"' },
  pass('terraform plan -var-file=dev.tfvars', 'Plan: 3 to add, 0 to change, 0 to destroy.'),
  { say: `Working on it. ${filler(1500)}` },
  { user: 'go on' },
  { say: 'ok' },
];

test('cline: a failure is never paired with a different command’s success, nor fixed by an unrelated edit and build', async () => {
  const { summary } = await compacted(cloudWork);
  assert.doesNotMatch(summary, /- fixed: `gcloud sql instances patch[^\n]*→[^\n]*describe/, summary);
  assert.doesNotMatch(summary, /- fixed: `gcloud sql connect/, summary);
  assert.match(summary, /^- open: `gcloud sql connect main-db/m, summary);
  assert.match(summary, /^- open: `gcloud sql instances patch main-db[^\n]*--assign-ip/m, summary);
});

test('cline: a command failing in several variants and then passing is fixed once', async () => {
  const { summary } = await compacted(cloudWork);
  const fixedPlans = summary.split('\n').filter((l) => /^- fixed: `terraform plan/.test(l));
  assert.equal(fixedPlans.length, 1, summary);
  assert.doesNotMatch(summary, /^- open: `terraform plan/m, summary);
});

test('cline: the summary’s fixed and open failures agree with the scorecard’s counts', async () => {
  const { summary, card } = await compacted(cloudWork);
  assert.ok(card, 'the checkpoint has a scorecard');
  const lines = summary.split('\n');
  const fixed = lines.filter((l) => l.startsWith('- fixed: ')).length;
  const open = lines.filter((l) => l.startsWith('- open: ')).length;
  assert.deepEqual({ fixed, open }, { fixed: card.errors.resolved, open: card.errors.open }, summary);
});

test('commandTarget: option names are the operation; values, display options and plumbing are aside', () => {
  const same = (a: string, b: string) => assert.equal(commandTarget(a), commandTarget(b), `${a} | ${b}`);
  const differ = (a: string, b: string) => assert.notEqual(commandTarget(a), commandTarget(b), `${a} | ${b}`);
  differ(
    'gcloud sql instances patch db --project=p --assign-ip',
    'gcloud sql instances patch db --project=p --database-flags=cloudsql.iam_authentication=on',
  );
  differ('terraform plan -var-file=dev.tfvars', 'terraform plan -var-file=dev.tfvars -lock=false');
  differ('gcloud sql instances patch db', 'gcloud sql instances describe db');
  same('pytest -x -q tests/a.py', 'pytest tests/a.py');
  same('pytest -vv --tb=short tests/a.py', 'pytest tests/a.py');
  same('npm test -- --watch=false', 'npm test');
  same('npx jest --ci --runInBand --colors', 'npx jest');
  same(
    'gcloud sql instances patch db --project=a --assign-ip',
    'gcloud sql instances patch db --project=b --assign-ip',
  );
  same(
    'cd /w && terraform plan -var-file=dev.tfvars 2>&1 | tail -20',
    'terraform plan -var-file=prod.tfvars -no-color',
  );
  same('gcloud auth list --format="value(account name)"', 'gcloud auth list --quiet');
});

test('cline: a command that failed and then passed with another option is still open; display options aside it is fixed', async () => {
  const { summary, card } = await compacted([
    { user: 'give the database instance a public address' },
    fail(
      'gcloud sql instances patch main-db --project=dev-1 --assign-ip',
      'ERROR: (gcloud.sql.instances.patch) Constraint constraints/sql.restrictPublicIp violated',
    ),
    pass('gcloud sql instances patch main-db --project=dev-1 --database-flags=x=on', 'Patching instance...done.'),
    fail('pytest -x -q tests/test_api.py', 'FAILED tests/test_api.py::test_get - AssertionError: 1 failed'),
    { tool: 'edit', path: 'src/api.py', old: 'a', new: 'b' },
    pass('pytest tests/test_api.py', '3 passed in 0.2s'),
    fail('npm test -- --watch=false', 'FAIL src/app.test.ts\n1 failed'),
    pass('npm test', 'Tests: 4 passed'),
    { say: `Patched. ${filler(1500)}` },
    { user: 'go on' },
    { say: 'ok' },
  ]);
  assert.match(summary, /^- open: `gcloud sql instances patch main-db --project=dev-1 --assign-ip`/m, summary);
  assert.doesNotMatch(summary, /^- fixed: `gcloud sql instances patch/m, summary);
  assert.match(summary, /^- `gcloud sql instances patch main-db --project=dev-1 --assign-ip` → failed/m, summary);
  assert.doesNotMatch(summary, /--assign-ip` → failed, then fixed/, summary);
  assert.match(
    summary,
    /^- fixed: `pytest -x -q tests\/test_api.py` failed[^\n]*`pytest tests\/test_api.py` passed/m,
    summary,
  );
  assert.match(summary, /^- fixed: `npm test -- --watch=false` failed[^\n]*`npm test` passed/m, summary);
  assert.deepEqual({ open: card?.errors.open, resolved: card?.errors.resolved }, { open: 1, resolved: 2 }, summary);
  assert.equal(card?.errors.shownOpen, 0, summary);
});
