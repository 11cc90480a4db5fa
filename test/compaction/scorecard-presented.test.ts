/**
 * The scorecard counts what a summary presents, not what it merely mentions: a file changed is named
 * where the summary says it was changed (a files-changed section, a line saying it was created or
 * edited), not as a bare identifier; an open failure is named where the summary shows it failing; a
 * typed request is kept where an item of the text is that request (whole, or cut with a mark), not
 * where another request or a tool call repeats one of its sentences. Spans in several recording
 * formats; a model summary from a loopback OpenAI-compatible endpoint; extractive summaries whose
 * requests section the scorecard must agree with.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { compact } from '../../src/compaction/rewrite/compactor';
import { retentionScorecard } from '../../src/compaction/retention/scorecard';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { summarizerFromFlags } from '../../src/summarizers/from-options';
import { quarterCounter } from '../support/generate';
import { summaryItem } from '../support/conversation';
import { WRITERS, compactExtractive, sectionOf, type Step } from '../support/recordings';

const FORMATS = ['claude-code', 'codex', 'cline'] as const;
const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

const WORK: Step[] = [
  { user: 'add a health endpoint and wire it into the router' },
  { tool: 'write', path: '/w/src/health.ts', content: `export function healthHandler() { return 1; }\n${filler(30)}` },
  { tool: 'edit', path: '/w/src/router.ts', old: 'routes = []', new: 'routes = [healthHandler]' },
  {
    tool: 'bash',
    command: 'npm run typecheck',
    output: "src/router.ts(2,1): error TS2304: Cannot find name 'x'.",
    ok: false,
  },
  { say: `The type check still fails. ${filler(30)}` },
];

function span(format: (typeof FORMATS)[number], steps: Step[] = WORK) {
  const { write, file } = WRITERS[format];
  return itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
}

for (const format of FORMATS) {
  test(`${format}: files changed listed only as identifiers are not named; a files-changed section or an edit line names them`, () => {
    const bare = [
      'The agent finished everything; all tests pass. Next step: none.',
      '',
      "## Identifiers from tool output (not the user's words)",
      '- /w/src/health.ts',
      '- /w/src/router.ts',
      '- npm run typecheck',
    ].join('\n');
    const card = retentionScorecard({ replaced: span(format), inserted: [summaryItem(bare)] });
    assert.ok(card);
    assert.deepEqual(card.filesChanged, { total: 2, named: 0 }, bare);
    assert.deepEqual(card.missing.filesChanged, ['/w/src/health.ts', '/w/src/router.ts']);
    assert.equal(card.errors.open, 1);
    assert.equal(card.errors.openNamed, 0, 'a command among identifiers is not named as failing');

    const presented = [
      'Created /w/src/health.ts with the handler.',
      '',
      '## Files changed',
      '- /w/src/router.ts: routes list',
      '',
      '## Errors and fixes',
      '- open: `npm run typecheck` → exit 1',
    ].join('\n');
    const named = retentionScorecard({ replaced: span(format), inserted: [summaryItem(presented)] });
    assert.ok(named);
    assert.deepEqual(named.filesChanged, { total: 2, named: 2 }, presented);
    assert.equal(named.errors.openNamed, 1);

    // A denial or a list of files read is no change; nor is the user's own request.
    const denied = [
      'No files were changed; /w/src/health.ts was not modified.',
      '## Files changed (created or edited; files read)',
      '- read only: /w/src/router.ts',
      '## Requests, verbatim',
      '- please edit /w/src/router.ts',
      '- `npm run typecheck` → ok',
    ].join('\n');
    const none = retentionScorecard({ replaced: span(format), inserted: [summaryItem(denied)] });
    assert.ok(none);
    assert.deepEqual(none.filesChanged, { total: 2, named: 0 }, denied);
    assert.equal(none.errors.openNamed, 0, 'a run shown as ok is not named as failing');
  });
}

const RULE = 'DO NOT touch or destroy any resources in the old project (acme-prod).';
const FIRST = `${RULE} That project stays live until the cutover, and the billing team reads its logs every morning before nine.`;
const SECOND = `Explain each command before you run it and wait for my go-ahead. ${RULE}`;

for (const format of FORMATS) {
  test(`${format}: a request is not kept because another request's item or a tool call repeats its sentence`, () => {
    const steps: Step[] = [
      { user: 'migrate the storage to the new bucket' },
      { user: FIRST },
      { user: SECOND },
      { tool: 'bash', command: `echo "${RULE}" >> NOTES.md`, output: '' },
      { user: 'now run the migration' },
    ];
    const summary = [
      '## Current work and next step',
      `- Last tool call: bash command=echo "${RULE}" >> NOTES.md`,
      '## Standing rules',
      `- ${RULE}`,
      '## Requests, verbatim',
      '- migrate the storage to the new bucket',
      `- ${RULE} [… 98 characters of this request left out …]`,
      '[1 earlier request (120 characters) left out here to fit the budget]',
      '- now run the migration',
    ].join('\n');
    const card = retentionScorecard({ replaced: span(format, steps), inserted: [summaryItem(summary)] });
    assert.ok(card);
    assert.deepEqual(card.requests, { total: 4, whole: 2, shortened: 1, leftOut: 1 }, summary);
    assert.deepEqual(card.missing.requests, [
      `shortened: ${FIRST.slice(0, FIRST.lastIndexOf(' ', 79))}…`,
      `left out: ${SECOND.slice(0, SECOND.lastIndexOf(' ', 79))}…`,
    ]);
  });

  test(`${format}: a request repeated word for word in a note is not kept`, () => {
    const steps: Step[] = [{ user: 'run gcloud auth login to switch accounts' }, { user: 'deploy it' }];
    const summary = [
      '- Last tool call: bash command=run gcloud auth login to switch accounts',
      '## Requests',
      '- deploy it',
    ].join('\n');
    const card = retentionScorecard({ replaced: span(format, steps), inserted: [summaryItem(summary)] });
    assert.ok(card);
    assert.deepEqual(card.requests, { total: 2, whole: 1, shortened: 0, leftOut: 1 });
  });
}

for (const format of FORMATS) {
  test(`${format}: a request an earlier summary showed cut is whole where the new summary shows it as it stood`, () => {
    const cutItem = `- ${RULE} [… 98 characters of this request left out …] before nine.`;
    const earlier = summaryItem(['## Requests, verbatim', cutItem].join('\n'));
    const replaced = [earlier, ...span(format, [{ user: 'now run the migration' }, { say: 'ok' }])];
    const kept = retentionScorecard({
      replaced,
      inserted: [summaryItem(['## Requests, verbatim', cutItem, '- now run the migration'].join('\n'))],
    });
    assert.ok(kept);
    assert.deepEqual(kept.requests, { total: 2, whole: 2, shortened: 0, leftOut: 0 });
    const dropped = retentionScorecard({
      replaced,
      inserted: [summaryItem(['## Requests, verbatim', `- ${RULE}`, '- now run the migration'].join('\n'))],
    });
    assert.ok(dropped);
    assert.deepEqual(
      dropped.requests,
      { total: 2, whole: 1, shortened: 0, leftOut: 1 },
      'a part alone is no item of it',
    );
  });
}

for (const format of FORMATS) {
  test(`${format}: a request the summary shows with a value masked is kept as it is shown`, () => {
    const request = "Connect to the broker - Auth: username 'dock-user', password 'harbour-22' (local tests only)";
    const steps: Step[] = [{ user: request }, { user: 'then publish a test message' }];
    const masked =
      "Connect to the broker - Auth: [masked secret] 'dock-user', password [masked secret] (local tests only)";
    const whole = retentionScorecard({
      replaced: span(format, steps),
      inserted: [summaryItem(['## Requests, verbatim', `- ${masked}`, '- then publish a test message'].join('\n'))],
    });
    assert.ok(whole);
    assert.deepEqual(whole.requests, { total: 2, whole: 2, shortened: 0, leftOut: 0 });
    const cut = retentionScorecard({
      replaced: span(format, steps),
      inserted: [
        summaryItem(
          [
            '## Requests, verbatim',
            '- Connect to the broker - Auth: [masked secret] [… 40 characters of this request left out …] only)',
            '- then publish a test message',
          ].join('\n'),
        ),
      ],
    });
    assert.ok(cut);
    assert.deepEqual(cut.requests, { total: 2, whole: 1, shortened: 1, leftOut: 0 });
  });
}

/** What a summary's requests section states: items whole, items cut, and requests it says it left out. */
function sectionCounts(summary: string) {
  const lines = sectionOf(summary, 'Requests, verbatim').split('\n');
  // Each item with its continuation lines (indented two spaces): a cut mark may be on any of them.
  const items: string[] = [];
  for (const l of lines)
    if (l.startsWith('- ')) items.push(l);
    else if (items.length && l.startsWith('  ')) items[items.length - 1] += `\n${l}`;
  const cut = items.filter((l) => l.includes('characters of this request left out')).length;
  const leftOut = lines.reduce(
    (n, l) => n + Number(/^\[(\d+) earlier requests? \([\d,]+ characters\) left out here/.exec(l)?.[1] ?? 0),
    0,
  );
  return { whole: items.length - cut, shortened: cut, leftOut };
}

for (const format of FORMATS) {
  test(`${format}: the scorecard's request counts are the ones the summary's requests section states`, async () => {
    // Many long requests that share their rule sentence, and short replies: some are cut, some left out.
    const steps: Step[] = [{ user: `Set up the project. ${filler(8)}` }];
    for (let i = 0; i < 14; i++) {
      steps.push(
        {
          user:
            i % 2
              ? `Step ${i}: ${filler(12)} ${RULE} ${filler(6)} end of step ${i}.`
              : `${RULE} Then do step ${i}: ${filler(14)}`,
        },
        { tool: 'bash', command: `make step-${i}`, output: `done ${i}\n${filler(10)}` },
      );
    }
    steps.push({ user: 'now finish the last step' }, { tool: 'bash', command: 'make last', output: filler(10) });
    const { write, file } = WRITERS[format];
    const r = await compactExtractive(itemsFromEntries(importTranscriptTextSync(write(steps), file).entries), 2400);
    const cp = r.checkpoints.find((c) => c.strategy === 'extractive' && c.retention);
    assert.ok(cp, r.checkpoints.map((c) => c.strategy).join(', '));
    const summary = cp.inserted.map((i) => textWithPlaceholders(i.message.content)).join('\n');
    const stated = sectionCounts(summary);
    assert.ok(stated.shortened + stated.leftOut > 0, `the budget cuts or leaves out requests:\n${summary}`);
    const { whole, shortened, leftOut } = cp.retention!.requests;
    assert.deepEqual({ whole, shortened, leftOut }, stated, summary);
  });
}

/** A loopback OpenAI-compatible endpoint that streams `reply` to every chat completion. */
async function endpoint(reply: string) {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const chunk = (delta: object, finish: string | null) =>
        `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: reply }, null));
      res.write(chunk({}, 'stop'));
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, close: () => server.close() };
}

for (const format of ['claude-code', 'codex'] as const) {
  test(`${format}: a model summary that only claims the work done names no file changed`, async () => {
    const server = await endpoint(
      'The agent finished everything; all tests pass and the PR was merged. Next step: none.',
    );
    try {
      const meter = new TokenMeter({ counter: quarterCounter });
      const items = span(format, [...WORK, { user: 'what next?' }, { say: filler(4) }]);
      const summarizer = summarizerFromFlags(
        { summarizer: 'openai', baseUrl: server.url, summaryModel: 'm', summaryWindow: 128_000 },
        (t) => meter.countText(t),
        {},
      );
      const window = Math.ceil(1.25 * items.reduce((n, i) => n + meter.countMessage(i.message), 0));
      const r = await compact({
        items,
        meter,
        summarizer,
        options: {
          budget: { contextWindow: window, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 },
          trigger: 'manual',
          force: true,
        },
      });
      const cp = r.checkpoints.find((c) => c.retention && c.strategy !== 'collapse');
      assert.ok(cp, JSON.stringify(r.status));
      const summary = cp.inserted.map((i) => textWithPlaceholders(i.message.content)).join('\n');
      assert.match(summary, /all tests pass/, summary);
      assert.deepEqual(cp.retention!.filesChanged, { total: 2, named: 0 }, summary);
    } finally {
      server.close();
    }
  });
}
