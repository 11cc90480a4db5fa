/**
 * Finished work never reads as open or as the next step, in the summary and its scorecard alike, in
 * several recording formats: a failure reached by another run later (the same command with options
 * added, a global option before the subcommand, another program naming the same URL, signed-in work
 * after a failed sign-in) is fixed; a failure left when an earlier turn ended is no next step; a
 * message that tool calls followed is in progress whatever it says; a plan or a question handed over
 * by a tool waits for the user; and the current-work line and the next step never disagree.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, summaryOf, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { errorSignatures } from '../../src/compaction/retention/errors';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);
const FORMATS = ['claude-code', 'codex', 'cline'] as const;

/** The notes of the whole recording (nothing kept after them) and its error signatures. */
function notesAndErrors(format: keyof typeof WRITERS, steps: Step[]) {
  const { write, file } = WRITERS[format];
  const entries = importTranscriptTextSync(write(steps), file).entries;
  const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(itemsFromEntries(entries), 6000);
  return { summary, errors: errorSignatures(entries, 0, entries.length) };
}

const PEER = 'npm ERR! ERESOLVE unable to resolve dependency tree\nnpm ERR! peer react@"^18" from next-auth@5.0.0';

for (const format of FORMATS) {
  test(`${format}: a failed run is fixed by a later run of it with options added, not by one with other options`, () => {
    const { summary, errors } = notesAndErrors(format, [
      { user: 'add next-auth and switch the database to IAM sign-in' },
      { tool: 'bash', command: 'npm install next-auth@beta bcryptjs', output: PEER, ok: false },
      { tool: 'bash', command: 'npm install next-auth@beta bcryptjs --legacy-peer-deps', output: 'added 12 packages' },
      {
        tool: 'bash',
        command: 'gcloud sql instances patch db1 --assign-ip',
        output: 'ERROR: (gcloud.sql.instances.patch) HTTPError 400: Organization Policy check failure',
        ok: false,
      },
      {
        tool: 'bash',
        command: 'gcloud sql instances patch db1 --database-flags=cloudsql.iam_authentication=on',
        output: 'Patching Cloud SQL instance...done.',
      },
      { tool: 'bash', command: 'terraform plan', output: 'Error: No configuration files', ok: false },
      { tool: 'bash', command: 'terraform -chdir=infra plan -out=tfplan', output: 'Plan: 14 to add, 0 to change' },
      { say: `Installed next-auth with --legacy-peer-deps; the plan runs from infra/. ${filler(20)}` },
      { tool: 'read', path: 'infra/main.tf', output: `resource "x" {}\n${filler(20)}` },
    ]);
    assert.match(
      summary,
      /^- fixed: `npm install next-auth@beta bcryptjs` failed[^\n]*fixed by adding --legacy-peer-deps/m,
      summary,
    );
    assert.match(summary, /^- fixed: `terraform plan` failed[^\n]*fixed by adding -chdir -out/m, summary);
    assert.match(summary, /^- open: `gcloud sql instances patch db1 --assign-ip`/m, summary);
    assert.doesNotMatch(summary, /^- open: `(?:npm install|terraform)/m, summary);
    const state = (prefix: string) => errors.find((e) => e.key.startsWith(prefix))?.state;
    assert.equal(state('npm install'), 'resolved');
    assert.equal(state('terraform plan'), 'resolved');
    assert.equal(state('gcloud sql instances patch db1 --assign-ip'), 'open');
  });

  test(`${format}: a failed action is worked around by another program naming the same URL; a failed sign-in by signed-in work`, () => {
    const { summary, errors } = notesAndErrors(format, [
      { user: 'create the media bucket and list the projects' },
      {
        tool: 'bash',
        command: 'gsutil mb -p media-dev-1 -l us-central1 gs://media-dev-bucket/',
        output: 'ERROR: (gsutil) Unable to read file [C:\\SDK\\platform\\gsutil\\VERSION]: Permission denied',
        ok: false,
      },
      {
        tool: 'bash',
        command: 'gcloud storage buckets create gs://media-dev-bucket --project=media-dev-1 --location=us-central1',
        output: 'Creating gs://media-dev-bucket/...',
      },
      {
        tool: 'bash',
        command: 'gcloud auth login --no-launch-browser',
        output: 'ERROR: gcloud crashed (EOFError): EOF when reading a line',
        ok: false,
      },
      { user: 'I signed in myself in my own terminal, go ahead with the listing' },
      { tool: 'bash', command: 'gcloud projects list --format=json', output: '[{"projectId": "media-dev-1"}]' },
      // Another failure whose resource only a removal names later: not worked around.
      {
        tool: 'bash',
        command: 'mkdir /srv/media/cache',
        output: 'mkdir: cannot create directory: Permission denied',
        ok: false,
      },
      { tool: 'bash', command: 'rm -rf /srv/media/cache', output: '' },
      { tool: 'read', path: 'README.md', output: `# Media\n${filler(20)}` },
    ]);
    assert.match(summary, /^- fixed: `gsutil mb[^\n]*worked around by `gcloud storage buckets create/m, summary);
    assert.match(summary, /^- fixed: `gcloud auth login --no-launch-browser`[^\n]*signed in later/m, summary);
    assert.match(summary, /^- open: `mkdir \/srv\/media\/cache`/m, summary);
    const state = (prefix: string) => errors.find((e) => e.key.startsWith(prefix))?.state;
    assert.equal(state('gsutil mb'), 'resolved');
    assert.equal(state('gcloud auth login'), 'resolved');
    assert.equal(state('mkdir'), 'open');
  });

  test(`${format}: a failure left when an earlier turn ended is listed, never the next step`, () => {
    const { summary } = notesAndErrors(format, [
      { user: 'deploy the worker to the staging cluster' },
      {
        tool: 'bash',
        command: 'kubectl apply -f deploy/worker.yaml',
        output: 'error: You must be logged in to the server (Unauthorized)',
        ok: false,
      },
      { say: `I could not deploy: the cluster refuses the credentials. ${filler(20)}` },
      { user: 'leave the deployment for now and write the README section on configuration' },
      { tool: 'write', path: 'README.md', content: `# Worker\n## Configuration\n${filler(20)}` },
      { tool: 'read', path: 'src/config.ts', output: `export const config = {};\n${filler(20)}` },
    ]);
    assert.match(
      summary,
      /^- unresolved when that turn ended \(a newer request came after it\): `kubectl apply -f deploy\/worker\.yaml`/m,
      summary,
    );
    assert.doesNotMatch(summary, /^- open:/m, summary);
    assert.doesNotMatch(summary, /Next step: resolve/, summary);
    assert.match(summary, /Next step: continue with the latest request/, summary);
  });

  test(`${format}: a step the tool calls after it carried out is done, but the turn is not: the agent goes on`, () => {
    const { summary } = notesAndErrors(format, [
      { user: 'update the config and run the tests' },
      { tool: 'edit', path: 'src/config.ts', old: 'retries: 1', new: 'retries: 3' },
      { say: 'Updated the config: retries are now 3.' },
      { tool: 'bash', command: 'npm test', output: `PASS test/config.test.ts\n${filler(10)}` },
    ]);
    assert.match(
      summary,
      /- Step carried out \(announced in the agent's last message here; the tool calls after it succeeded; the turn was not over\): "Updated the config/,
      summary,
    );
    assert.doesNotMatch(summary, /Work completed|reported done/, summary);
    assert.match(summary, /Next step: continue with the latest request/, summary);
  });
}

/** Appends a hand-over call (a plan awaiting approval) to a recording, in Cline's and Claude Code's own shapes. */
function withPlan(format: 'cline' | 'claude-code', text: string, plan: string): string {
  if (format === 'cline') {
    const msgs = JSON.parse(text) as unknown[];
    msgs.push({
      role: 'assistant',
      content: [
        { type: 'text', text: 'I reviewed the configuration.' },
        { type: 'tool_use', id: 'plan1', name: 'plan_mode_respond', input: { response: plan } },
      ],
    });
    return JSON.stringify(msgs);
  }
  const lines = text.split('\n');
  const last = JSON.parse(lines.at(-1)!) as { uuid: string };
  lines.push(
    JSON.stringify({
      sessionId: 's1',
      cwd: '/w',
      version: '2.1.0',
      isSidechain: false,
      timestamp: '2026-01-01T00:00:00.000Z',
      type: 'assistant',
      uuid: 'plan',
      parentUuid: last.uuid,
      message: {
        role: 'assistant',
        id: 'rplan',
        model: 'claude-x',
        content: [{ type: 'tool_use', id: 'plan1', name: 'ExitPlanMode', input: { plan } }],
      },
    }),
  );
  return lines.join('\n');
}

for (const format of ['cline', 'claude-code'] as const) {
  test(`${format}: a plan handed over for approval waits for the user; it is never work completed`, () => {
    const { write, file } = WRITERS[format];
    const steps: Step[] = [
      { user: 'plan the deployment of phase 4' },
      {
        tool: 'read',
        path: 'terraform/main.tf',
        output: `resource "google_cloud_run_service" "app" {}\n${filler(20)}`,
      },
    ];
    const plan =
      'Great news! The configuration is already set up and configured. Plan: 1. run terraform apply 2. verify the service.';
    const entries = importTranscriptTextSync(withPlan(format, write(steps), plan), file).entries;
    const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(itemsFromEntries(entries), 6000);
    assert.match(summary, /- Waiting for the user \(the agent ended its turn with a plan awaiting approval\)/, summary);
    assert.match(
      summary,
      /Next step: the user's turn \(the agent ended its turn waiting for the user's answer or approval\)/,
      summary,
    );
    assert.doesNotMatch(summary, /Work completed|reported done|In progress/, summary);
    // The plan kept after the summary (the span ends before it): the person's word is still awaited.
    const items = itemsFromEntries(entries);
    const at = items.findIndex((it) => /plan_mode_respond|ExitPlanMode/.test(JSON.stringify(it.message)));
    assert.ok(at > 0);
    const before = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(
      items.slice(0, at),
      6000,
      undefined,
      items.slice(at),
    );
    // The span itself ends mid-work (a read, no plan yet): the agent moves next there; the messages
    // kept after it end waiting for the person's word.
    assert.match(
      before,
      /Next step: continue with the latest request \(the work in progress here went on in the messages kept after this summary, which end waiting for the user's answer or approval\)/,
      before,
    );
  });
}

for (const [format, { write, file }] of Object.entries(WRITERS)) {
  test(`${format}: the current-work line and the next step agree on who moves next`, async () => {
    const base: Step[] = [
      { user: 'add the changelog entry for the ADR index' },
      { tool: 'write', path: 'CHANGELOG.md', content: `# Changelog\n- ADR index\n${filler(40)}` },
      { say: `Done. Added the ADR index entry to CHANGELOG.md. ${filler(200)}` },
    ];
    for (const steps of [
      base,
      [...base, { user: 'now add the release date to the changelog heading' } as Step],
      [
        ...base,
        { user: 'now add the release date to the changelog heading' } as Step,
        { say: 'Added the date.' } as Step,
      ],
      [
        { user: 'add the changelog entry for the ADR index and commit it' },
        { say: `Writing the entry first. ${filler(200)}` },
        { tool: 'write', path: 'CHANGELOG.md', content: `# Changelog\n- ADR index\n${filler(40)}` },
        { tool: 'bash', command: 'git commit -am "docs: changelog"', output: '[main 1a2b3c4] docs: changelog' },
        { say: 'Committed the changelog entry.' },
      ] as Step[],
    ]) {
      const { summary } = await summaryOf(write(steps), file);
      if (/^- Work completed/m.test(summary)) assert.match(summary, /Next step: the user's/, summary);
      if (/Next step: the user's/.test(summary))
        assert.doesNotMatch(summary, /^- In progress \(the agent's last message here/m, summary);
      if (/Next step: continue with the latest request/.test(summary))
        assert.doesNotMatch(summary, /^- Work completed/m, summary);
    }
  });
}

for (const format of ['claude-code', 'cline'] as const) {
  test(`${format}: a final answer followed by a new request in the span is an earlier request's answer, whatever the work on the new one does after it`, () => {
    const { write, file } = WRITERS[format];
    const steps: Step[] = [
      { user: 'add the changelog entry for the ADR index' },
      { tool: 'write', path: 'CHANGELOG.md', content: `# Changelog\n- ADR index\n${filler(20)}` },
      { say: `Done. Added the ADR index entry to CHANGELOG.md. ${filler(20)}` },
      { user: 'now run the docs build and fix what it reports' },
      { tool: 'bash', command: 'npm run docs:build', output: 'built 12 pages' },
      { tool: 'bash', command: 'npm run docs:check', output: 'ok' },
    ];
    const items = itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
    // The span ends at the new request; the work on it stays after the summary.
    const at = items.findIndex(
      (it, i) => i > 0 && it.message.role === 'assistant' && /docs:build/.test(JSON.stringify(it.message)),
    );
    assert.ok(at > 0);
    const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(
      items.slice(0, at),
      6000,
      undefined,
      items.slice(at),
    );
    assert.match(summary, /- Answered an earlier request \([^)]*\): "Done\./, summary);
    assert.doesNotMatch(summary, /In progress|Work completed/, summary);
    assert.match(summary, /Next step: continue with the latest request/, summary);
  });
}

for (const [format, { write, file }] of Object.entries(WRITERS)) {
  test(`${format}: a span ending mid-work is in progress and its next step is the user's only when the kept messages end the turn, wherever the span ends`, () => {
    const steps: Step[] = [
      { user: 'check why the settlement transaction failed and fix the retry' },
      { say: `I will look at the failed transaction first. ${filler(20)}` },
      { tool: 'bash', command: 'cast tx 0xabc123 --rpc-url http://127.0.0.1:8545', output: 'status 0 (failed)' },
      { tool: 'read', path: 'src/settle.ts', output: `export function settle() {}\n${filler(20)}` },
      { tool: 'edit', path: 'src/settle.ts', old: 'retries: 1', new: 'retries: 3' },
      { say: `Done: the retry now runs three times. ${filler(20)}` },
    ];
    const items = itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
    let midWork = 0;
    for (let at = 2; at < items.length; at++) {
      const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(
        items.slice(0, at),
        6000,
        undefined,
        items.slice(at),
      );
      if (/^- (?:In progress|Step carried out)/m.test(summary)) {
        midWork++;
        // The work went on after the span: the next step is the user's only by what the kept
        // messages end with (here the agent's final answer), never by the span's own last message.
        if (/Next step: the user's/.test(summary))
          assert.match(
            summary,
            /Next step: the user's turn \([^)]*went on in the messages kept after this summary, which end with the agent's final answer/,
            `split at ${at}:\n${summary}`,
          );
      }
      if (/Next step: the user's turn \(the (?:agent ended|latest request appears done)/.test(summary))
        assert.doesNotMatch(summary, /^- (?:In progress|Step carried out)/m, summary);
    }
    assert.ok(midWork > 0, 'some split ends mid-work');
  });
}

for (const format of ['claude-code', 'openhands', 'codex'] as const) {
  test(`${format}: a span of tool calls alone, the agent's final answer kept after it, ends mid-work: the next step says the agent answered and waits for the user`, () => {
    const { write, file } = WRITERS[format];
    const steps: Step[] = [
      { user: 'summarize what the investigation found so far' },
      { tool: 'bash', command: 'ls /w/notes', output: `findings.md\n${filler(20)}` },
      { tool: 'read', path: '/w/notes/findings.md', output: `# Findings\n${filler(20)}` },
      { say: `The investigation found the retry bug. ${filler(20)}` },
    ];
    const items = itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
    const answer = items.findIndex(
      (i) => i.message.role === 'assistant' && /investigation found/.test(JSON.stringify(i.message)),
    );
    assert.ok(answer > 2, 'the answer follows the tool calls');
    const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(
      items.slice(0, answer),
      6000,
      undefined,
      items.slice(answer),
    );
    assert.doesNotMatch(summary, /Next step: continue with the latest request/, summary);
    assert.match(
      summary,
      /Next step: the user's turn \(the work in progress here went on in the messages kept after this summary, which end with the agent's final answer: it finished and waits for the user's next request\)/,
      summary,
    );
    assert.doesNotMatch(summary, /^- Work completed/m, summary);
  });
}

for (const format of FORMATS) {
  test(`${format}: a plan failing to read its input file is fixed by a later pass without it; a sign-in for other credentials is not fixed by the program's own work`, () => {
    const { summary, errors } = notesAndErrors(format, [
      { user: 'plan the infrastructure for the dev project' },
      {
        tool: 'bash',
        command: 'gcloud auth application-default login --no-launch-browser',
        output: 'ERROR: gcloud crashed (EOFError): EOF when reading a line',
        ok: false,
      },
      {
        tool: 'bash',
        command: 'terraform plan -var-file="terraform.tfvars"',
        output: 'Error: Failed to read variables file\nGiven variables file terraform.tfvars does not exist.',
        ok: false,
      },
      { tool: 'bash', command: 'gcloud sql instances describe db1', output: 'state: RUNNABLE' },
      { tool: 'bash', command: 'terraform -chdir=infra plan -out=tfplan', output: 'Plan: 14 to add, 0 to change' },
      { say: `The plan is saved in infra/tfplan. ${filler(20)}` },
      { tool: 'read', path: 'infra/main.tf', output: `resource "x" {}\n${filler(20)}` },
    ]);
    assert.match(summary, /^- fixed: `terraform plan -var-file="terraform\.tfvars"`[^\n]*without -var-file/m, summary);
    assert.match(summary, /^- open: `gcloud auth application-default login --no-launch-browser`/m, summary);
    const state = (prefix: string) => errors.find((e) => e.key.startsWith(prefix))?.state;
    assert.equal(state('terraform plan'), 'resolved');
    assert.equal(state('gcloud auth application-default login'), 'open');
  });
}

for (const format of FORMATS) {
  test(`${format}: a failed shell command that would have moved a file is listed as the command with its cause, never as the file`, () => {
    const { summary } = notesAndErrors(format, [
      { user: 'rename the variables file so terraform loads it' },
      {
        tool: 'bash',
        command: 'mv terraform.tfvars terraform.auto.tfvars && terraform validate',
        output: 'mv: cannot stat terraform.tfvars: No such file or directory',
        ok: false,
      },
      { say: `The variables file does not exist here. ${filler(20)}` },
    ]);
    assert.doesNotMatch(summary, /^- (?:open|fixed): (?:changing )?terraform(?:\.auto)?\.tfvars/m, summary);
    assert.match(
      summary,
      /^- open: `mv terraform\.tfvars terraform\.auto\.tfvars && terraform validate` → [^\n]*cannot stat/m,
      summary,
    );
  });
}
