/**
 * With little room, nothing leaves a summary in silence: a section the budget empties (errors and
 * fixes, commands and outcomes, the agent's answers) or a current-work line it drops (the plan) is
 * named in the summary's "left out" line, which says where to read it; and the newest request before
 * the kept messages, when shortened, keeps its instruction sentences ahead of the text that describes
 * the situation, cut at sentence ends with a marker.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, summaryOf, type Step } from '../support/recordings';
import { shortenRequest } from '../../src/compaction/summary/requests-section';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';

const filler = (n: number, word: string) => `${word} lorem ipsum dolor sit amet `.repeat(n);

const CONTEXT = [
  'I looked at the deploy logs from last night and the worker restarted nine times.',
  'Each restart came a few seconds after the queue reported a timeout, and the timeouts cluster around midnight.',
  'The dashboard shows the same pattern on the staging cluster, though less often.',
  'Our on-call notes say this started after the scheduler upgrade two weeks ago.',
];
const ASK = 'Fix the retry loop in src/retry.ts so it backs off exponentially.';
const RULE = 'Do not change the public API of src/queue.ts.';
/** A long request: what happened first, the instructions in its middle, more description after. */
const REQUEST = [...CONTEXT, ASK, RULE, ...CONTEXT.map((s) => s.replace('night', 'week'))].join(' ');

const steps: Step[] = [
  { user: 'Set up the worker service.' },
  {
    plan: [
      ['Write the worker', true],
      ['Add the queue client', false],
      ['Wire the retries', false],
    ],
  },
  { tool: 'write', path: 'src/worker.ts', content: `export const worker = 1; // ${filler(20, 'worker')}` },
  {
    tool: 'bash',
    command: 'npm run build',
    output: `error TS2304: Cannot find name 'Queue'. ${filler(10, 'tsc')}`,
    ok: false,
    exit: 2,
  },
  { tool: 'edit', path: 'src/worker.ts', old: 'export const worker = 1;', new: "import { Queue } from './queue';" },
  { tool: 'bash', command: 'npm run build', output: 'built in 1.2s', exit: 0 },
  { tool: 'bash', command: 'npm test', output: `12 passing ${filler(10, 'mocha')}`, exit: 0 },
  {
    say: `The worker builds and its tests pass. I found that the queue client retries without a delay. ${filler(30, 'found')}`,
  },
  { user: REQUEST },
  { tool: 'read', path: 'src/retry.ts', output: `export function retry() {} ${filler(20, 'retry')}` },
  {
    tool: 'edit',
    path: 'src/retry.ts',
    old: 'export function retry() {}',
    new: 'export function retry(delay = 100) {}',
  },
  { say: `Retries now back off. ${filler(20, 'backoff')}` },
  { user: 'Thanks. Now run the tests.' },
];

/** The lines of the summary's "left out" note (`- … left out here to fit the budget: …`). */
function leftOut(summary: string): string {
  return summary.split('\n').find((l) => l.startsWith('- … left out here to fit the budget:')) ?? '';
}

for (const format of ['claude-code', 'codex', 'openhands'] as const) {
  const { write, file } = WRITERS[format];

  test(`${format}: sections the budget leaves out are named in the summary's left-out line`, async () => {
    // The notes with room for every section, of the messages the small window's summary replaces.
    const items = itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
    const last = items.map((i) => i.message.role).lastIndexOf('user');
    const roomy = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items.slice(0, last), 6000);
    const small = (await summaryOf(write(steps), file, 1_400)).summary;
    // Each section the roomy summary holds is either in the small one or named as left out.
    const headings = ['Errors and fixes', 'Commands and outcomes', "Agent's answers and findings"];
    const note = leftOut(small);
    let named = 0;
    for (const h of headings) {
      if (!roomy.includes(`## ${h}`)) continue;
      if (small.includes(`## ${h}`)) continue;
      assert.match(
        note,
        new RegExp(`${h.replace(/[()']/g, '.')} \\(\\d+ lines?\\)`),
        `${h} left out in silence:\n${small}`,
      );
      named++;
    }
    assert.ok(named > 0, `the small window leaves some section out:\n${small}`);
    if (/Plan or to-do list|Latest plan/.test(roomy) && !/Plan or to-do list|Latest plan/.test(small.replace(note, '')))
      assert.match(note, /from the current work: [^\n]*[Pp]lan or to-do list/, small);
    assert.match(note, /read (it|them) in the replaced messages \(last line\)$/);
  });

  test(`${format}: the newest request, shortened, keeps its instructions ahead of its description`, async () => {
    const { summary } = await summaryOf(write(steps), file, 1_250);
    const requests = summary.slice(summary.indexOf('## Requests, verbatim'));
    assert.ok(!requests.includes(REQUEST), 'the request is shortened at this size');
    assert.ok(requests.includes(ASK), `the instruction is kept whole:\n${requests}`);
    // The constraint is kept whole beside it, or, with less room, among the standing rules.
    assert.ok(summary.includes(`${RULE}`), `the constraint is kept whole:\n${summary}`);
    assert.match(requests, /\[… [\d,]+ characters of this request left out …\]/);
  });
}

test('a request shortened keeps its imperatives and questions, cut at sentence ends with markers', () => {
  const text = [
    "I'm trying to understand the bug described in NOTES.md.",
    'I am looking at the trajectory at /tmp/run/e03964, which failed with error',
    '```',
    '{ "code": "LLMBadRequestError", "detail": "unexpected tool_use_id found in tool_result blocks" }',
    '```',
    'Thus, this conversation is one of the conversations exhibiting the bug we are analyzing.',
    '',
    "Let's focus on the toolu_01 tool_use_id. Is there a problem with it in that conversation, according to NOTES.md?",
  ].join('\n');
  const out = shortenRequest(text, 260);
  assert.ok(out.length <= 260, out);
  assert.ok(out.includes("Let's focus on the toolu_01 tool_use_id."), out);
  assert.ok(out.includes('Is there a problem with it in that conversation, according to NOTES.md?'), out);
  assert.match(out, /\[… [\d,]+ characters of this request left out …\]/);
  // A request with no instruction keeps its start and end, as before.
  const plain = 'The logs are long. '.repeat(30);
  assert.ok(shortenRequest(plain, 120).startsWith('The logs are long.'));
});
