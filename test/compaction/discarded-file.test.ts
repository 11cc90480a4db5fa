/**
 * A file the person's later request discards ("Discard the cloudbuild-terraform.yaml strategy.") is
 * no current work: "Files edited most recently" names it last, marked as set aside, and its ledger
 * line says so; a change of the file after the request brings it back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';

const STEPS: Step[] = [
  { user: 'deploy the app with terraform' },
  { tool: 'write', path: '/w/terraform/main.tf', content: 'resource "google_cloud_run_service" "app" {}\n' },
  { tool: 'write', path: '/w/cloudbuild-terraform.yaml', content: 'steps:\n  - name: hashicorp/terraform\n' },
  { say: 'Cloud Build will run terraform for you.' },
  {
    user: 'I now have the IAM roles. Discard the cloudbuild-terraform.yaml strategy. Run terraform apply locally.',
  },
  { tool: 'bash', command: 'terraform plan', output: 'Plan: 1 to add' },
];

function summary(format: keyof typeof WRITERS, steps: Step[]): string {
  const { write, file } = WRITERS[format];
  const items = itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
  return new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 6000);
}

for (const format of ['claude-code', 'cline', 'codex'] as const) {
  test(`${format}: a file the user's later request discards is marked, not current work`, () => {
    const s = summary(format, STEPS);
    const recent = /^- Files edited most recently: .*$/m.exec(s)?.[0] ?? s;
    const names = recent.slice('- Files edited most recently: '.length).split(', ');
    assert.match(names.at(-1) ?? '', /cloudbuild-terraform\.yaml \(the user asked to discard this approach\)/, recent);
    assert.match(names[0], /main\.tf$/, recent);
    const line = s.split('\n').find((l) => /cloudbuild-terraform\.yaml: created/.test(l)) ?? s;
    assert.match(line, /discard/, line);
    assert.doesNotMatch(s.split('\n').find((l) => /main\.tf: created/.test(l)) ?? '', /discard/);
  });

  test(`${format}: a file changed again after the request that discarded it is current work again`, () => {
    const s = summary(format, [
      ...STEPS,
      { tool: 'write', path: '/w/cloudbuild-terraform.yaml', content: 'steps: []\n' },
    ]);
    const recent = /^- Files edited most recently: .*$/m.exec(s)?.[0] ?? s;
    assert.doesNotMatch(recent, /discard/, recent);
  });
}
