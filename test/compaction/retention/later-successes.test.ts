/**
 * Which later success resolves a failed command, by the one rule the summary's ledger and the
 * retention scorecard share (`LaterSuccesses`): the same command; the same one with options added
 * (not narrowing ones, not other options); another action naming the same URL or path; signed-in
 * work of the same program after a failed sign-in.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LaterSuccesses } from '../../../src/compaction/retention/errors';

/** The kind of fix `later` (successes, in order after the failure) gives the failed `command`, or undefined. */
function fixOf(command: string, later: string[]): string | undefined {
  const s = new LaterSuccesses();
  // The failure stands at position 0, the successes after it.
  for (let k = 0; k < later.length; k++) s.add(later[k], k + 1);
  return s.fix(command, 0)?.by;
}

test('options added to the same command fix it; other or narrowing options do not', () => {
  assert.equal(fixOf('npm install', ['npm install --legacy-peer-deps']), 'options added');
  assert.equal(fixOf('cd infra && terraform plan', ['terraform -chdir=infra plan -out=tfplan']), 'options added');
  assert.equal(
    fixOf('gcloud sql instances patch db --assign-ip', ['gcloud sql instances patch db --database-flags=x=on']),
    undefined,
  );
  assert.equal(fixOf('pytest tests/test_a.py', ['pytest tests/test_a.py -k test_one']), undefined);
  assert.equal(fixOf('npm install', ['npm install --dry-run']), undefined);
  assert.equal(fixOf('npm install left-pad', ['npm install --legacy-peer-deps']), undefined);
});

test('another action naming the same URL or path works around a failed action; checks and removals do not', () => {
  assert.equal(
    fixOf('gsutil mb -p proj-1 gs://media-bucket/', [
      'gcloud storage buckets create gs://media-bucket --project=proj-1',
    ]),
    'worked around',
  );
  assert.equal(fixOf('gsutil mb -p proj-1 gs://media-bucket/', ['gsutil ls gs://media-bucket']), undefined);
  assert.equal(fixOf('mkdir /srv/cache', ['rm -rf /srv/cache']), undefined);
  // A resource name alone names the thing, not the work: another action on it is no workaround.
  assert.equal(fixOf('gcloud sql connect db-instance-1', ['gcloud sql instances patch db-instance-1 --x']), undefined);
  // A failed check is fixed only by that check passing.
  assert.equal(fixOf('node scripts/check.mjs /srv/data', ['cp /srv/data /tmp/data']), undefined);
});

test('signed-in work of the same program resolves a failed sign-in; configuring, versions and revoking do not', () => {
  assert.equal(fixOf('gcloud auth login --no-launch-browser', ['gcloud sql instances describe db']), 'signed in');
  // Application Default Credentials are not what gcloud's own commands use.
  assert.equal(
    fixOf('gcloud auth application-default login --no-launch-browser', ['gcloud sql instances describe db']),
    undefined,
  );
  assert.equal(fixOf('gcloud auth login', ['gcloud config set project p1']), undefined);
  assert.equal(fixOf('gcloud auth login', ['gcloud --version']), undefined);
  assert.equal(fixOf('gcloud auth login', ['az account show']), undefined);
  assert.equal(fixOf('gcloud auth revoke old@example.com', ['gcloud projects list']), undefined);
});
