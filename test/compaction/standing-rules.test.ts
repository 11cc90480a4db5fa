/**
 * The user's standing rules outlast ordinary requests: a prohibition with an object, in any casing
 * ("DO NOT touch … the old project"), is a standing rule and is the last request the budget leaves out
 * (shortened to its rule sentences first); acknowledgements ("Authentication complete - continue")
 * cost a few tokens and outlast the long ordinary requests; the items of a long specification are
 * that request's, not standing rules.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_WRITERS, WRITERS, summaryOf, type Step } from '../support/recordings';
import { ruleSentences } from '../../src/compaction/summary/prose';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { itemsFromEntries } from '../../src/compaction/context';
import { importTranscriptTextSync } from '../../src/transcripts';

const filler = (n: number, word: string) => `${`${word} lorem ipsum dolor sit amet `.repeat(n)}`;
const RULE = 'DO NOT touch or destroy any resources in the old project (shop-prod).';

const work: Step[] = [
  { user: `Move the shop to the new cloud project. ${filler(10, 'task')}` },
  { say: `Reading the project. ${filler(40, 'read')}` },
  { user: `${RULE} Create the new resources in shop-dev and pause for my approval. ${filler(12, 'infra')}` },
  { say: `Plan ready. ${filler(40, 'plan')}` },
  ...Array.from({ length: 10 }, (_, k): Step[] => [
    { user: `Step ${k}: change the module number ${k} in the new project. ${filler(14, `step${k}`)}` },
    { say: `Done step ${k}. ${filler(40, `done${k}`)}` },
    { user: 'Authentication complete - continue' },
    { say: `Continuing. ${filler(30, `cont${k}`)}` },
  ]).flat(),
  { user: 'Now deploy the service to shop-dev.' },
  { say: `Deploying. ${filler(20, 'deploy')}` },
];

for (const [format, { write, file }] of Object.entries(ALL_WRITERS)) {
  test(`${format}: a prohibition and the acknowledgements outlast long ordinary requests when the budget cuts`, async () => {
    const { summary } = await summaryOf(write(work), file, 1600);
    assert.match(summary, /left out here to fit the budget/, summary);
    assert.ok(summary.includes(RULE), summary);
    // SWE-agent wraps every message it sends in its task template: no request of it is short.
    if (format !== 'swe-agent') assert.match(summary, /^- Authentication complete - continue$/m, summary);
    assert.doesNotMatch(summary, /^- Step 3: change the module number 3 in the new project\. step3 lorem/m, summary);
  });
}

const spec: Step[] = [
  {
    user: [
      'Add a broker selector to the status page:',
      '1. Three radio buttons, one per broker',
      '2. Save the choice in localStorage',
      '3. Keep the test button – publish always goes to the active broker',
      '4. Show the broker name in the card title',
      '',
      'From now on, never hardcode a broker URL in a component.',
    ].join('\n'),
  },
  { say: `Added the selector. ${filler(60, 'sel')}` },
  { user: 'Remove the test button; publishing is done from the console now.' },
  { say: `Removed. ${filler(60, 'rm')}` },
];

for (const [format, { write, file }] of Object.entries(ALL_WRITERS)) {
  test(`${format}: the items of a long specification are not standing rules; a sentence that says it lasts is`, async () => {
    const { summary } = await summaryOf(write(spec), file);
    const rules = /## Standing rules[^\n]*\n([\s\S]*?)(\n\n|$)/.exec(summary)?.[1] ?? '';
    assert.match(rules, /never hardcode a broker URL/, summary);
    assert.doesNotMatch(rules, /publish always goes/, summary);
  });
}

test('rule sentences: prohibitions with an object in any casing; not scoping, not reports', () => {
  assert.deepEqual(
    ruleSentences(
      'DO NOT modify public/customer pages. Do not change other parts. I do not know why it fails. Do not add new functionality.',
    ),
    ['DO NOT modify public/customer pages.'],
  );
});

const findings: Step[] = [
  { user: 'Is the id toolu_42 used more than twice in the trajectory? Check the events.' },
  { say: `Looking at the events. ${filler(10, 'look')}` },
  { tool: 'bash', command: 'grep -c toolu_42 events/*.json', output: '2' },
  {
    say: 'There is NO problem with toolu_42: it appears exactly 2 times, once in the call and once in its result.',
  },
  { user: 'Then why did the request fail? Look at the error event.' },
  { say: `Reading the error event now. ${filler(10, 'now')}` },
  { tool: 'bash', command: 'cat events/error.json', output: 'missing result' },
];

for (const [format, { write, file }] of Object.entries(WRITERS)) {
  test(`${format}: the agent's answer that ended a turn is kept among its findings, with the request it answered`, () => {
    const items = itemsFromEntries(importTranscriptTextSync(write(findings), file).entries);
    const notes = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 4000);
    const answers = /## Agent's answers and findings[^\n]*\n([\s\S]*?)(\n\n|$)/.exec(notes)?.[1] ?? '';
    assert.match(answers, /^- \(to ".+"\) "There is NO problem with toolu_42: .*exactly 2 times/, notes);
    assert.doesNotMatch(answers, /Reading the error event now/, notes);
  });
}
