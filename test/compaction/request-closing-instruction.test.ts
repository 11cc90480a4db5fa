/**
 * A request shortened to fit keeps its instructions over its context, and among them first the one it
 * closes with (what to do now: "Run terraform apply locally…"); a sentence that only introduces the
 * instructions after it ("Please proceed … with the following instructions:") gives way to them. A
 * marker stands wherever text was left out. Read through each format's own request text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { collectRequests } from '../../src/compaction/summary/requests';
import { renderRequestsSection, shortenRequest } from '../../src/compaction/summary/requests-section';

const REQUEST = [
  'Good news. My Google Admin just granted my personal user account elevated permissions, including Project IAM Admin, Cloud Run Admin, Cloud SQL Admin, and Service Account User.',
  '',
  'Because I now have these roles, we do not need to use Cloud Build to bypass local permission restrictions. We can revert to executing Terraform locally.',
  '',
  'Please proceed with Phase 4 with the following instructions:',
  '',
  'Discard the cloudbuild-terraform.yaml strategy.',
  '',
  'Ensure the Terraform code for the Cloud Run service explicitly uses the service_account_name argument pointing to our mra-app-runner service account.',
  '',
  'Run terraform apply locally using the plan we generated earlier (or generate a new plan and apply it) to deploy the Next.js application to Cloud Run.',
].join('\n');
const KEY = 'Run terraform apply locally using the plan we generated earlier';
const MARKER = /\[… [\d,]+ characters of this request left out …\]/;

test('a request shortened keeps its closing instruction first, then the others over the context', () => {
  for (const max of [200, 400]) {
    const out = shortenRequest(REQUEST, max);
    assert.ok(out.length <= max, `${max}: ${out}`);
    assert.ok(out.includes(KEY), `${max}: ${out}`);
    assert.match(out, MARKER, out);
    assert.ok(!out.includes('Good news'), `${max}: the context goes first: ${out}`);
  }
  // With room for them, every instruction stays, the list's introduction and the context left out.
  const roomy = shortenRequest(REQUEST, 400);
  assert.ok(roomy.includes('Discard the cloudbuild-terraform.yaml strategy.'), roomy);
  assert.ok(roomy.includes('Ensure the Terraform code'), roomy);
  // A sign-off worded as an imperative is not what the request asks.
  const signed = `${REQUEST}\n\nLet me know if anything in the plan is unclear to you before you start the work.`;
  assert.ok(shortenRequest(signed, 200).includes(KEY), shortenRequest(signed, 200));
});

for (const format of ['cline', 'claude-code', 'codex'] as const) {
  test(`${format}: the newest request of a summary, shortened to fit, keeps its closing instruction`, () => {
    const { write, file } = WRITERS[format];
    const steps: Step[] = [
      { user: 'Deploy the app to Cloud Run in phases.' },
      { say: 'Phase 3 is done.' },
      { user: REQUEST },
      { say: 'Understood.' },
    ];
    const requests = collectRequests(itemsFromEntries(importTranscriptTextSync(write(steps), file).entries));
    assert.equal(requests.length, 2, requests.join('\n---\n'));
    const section = renderRequestsSection(requests, 75, (t) => Math.ceil(t.length / 4));
    assert.ok(section.shortened > 0, section.text);
    assert.ok(section.text.includes(KEY), section.text);
    assert.match(section.text, MARKER, section.text);
  });
}
