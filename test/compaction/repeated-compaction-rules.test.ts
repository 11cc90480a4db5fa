/**
 * Repeated compaction (a summary of a summary) keeps the user's standing rules and the requests that
 * define the task: a summary squeezed by a context far over its window (a huge pasted log is the
 * latest request) still lists the standing rules, and a later summary with room shows the requests
 * the squeezed one had to leave out whole again. What a summary leaves out is said in the summary
 * (how many requests or rules, and where to read them), never dropped in silence; the pasted output
 * inside a request is what is shortened first, its first and last lines and its error line kept.
 * The same work in each recording format.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, compactExtractive, sectionOf, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { renderRequestsSection } from '../../src/compaction/summary/requests-section';
import { parseRequestsSection } from '../../src/compaction/summary/requests';
import type { ContextItem } from '../../src/compaction/types';
import type { CompactionResult } from '../../src/compaction/outcome';
import { describeCompaction } from '../../src/compaction/outcome-text';

const TASK =
  'Here are the details for the new cloud project. We are completely dropping Firebase from this deployment and replacing it with native cloud services. Work in four phases: 1 database, 2 auth, 3 cleanup, 4 deployment.';
const RULES = [
  'Do not proceed to the next phase until I review and approve your work.',
  'I do not want drastic, sweeping changes made all at once.',
  'DO NOT touch or destroy any resources in the old project (shop-prod).',
];
const APPROVALS = ['Approved - Proceed to Phase 2: Auth Refactor', 'Approved - Proceed to Phase 3: Firebase Cleanup'];

/** A dev server's log as a person pastes it: `lines` lines, a stack trace with an error line in the middle. */
function pastedLog(lines: number): string {
  const out = ['c:\\apps\\shop>npm run dev', '', '> shop@0.1.0 dev', '> next dev -p 9002', ''];
  for (let i = 0; out.length < lines - 2; i++) {
    out.push(` GET /api/orders/${i} 200 in ${100 + i}ms (next.js: ${90 + i}ms, application-code: 10ms)`);
    if (i === 20) {
      out.push('Failed to fetch orders Error: read ECONNRESET');
      out.push('    at async query (src\\lib\\db.ts:13:15)');
      out.push('    at async getOrders (src\\app\\actions.ts:17:20)');
    }
  }
  out.push('  errno: -4077,', "  code: 'ECONNRESET'");
  return out.join('\n');
}

const say = (what: string): Step => ({ say: `${what} ${'The work goes on as planned, step by step. '.repeat(6)}` });

const before: Step[] = [
  { user: 'Read the attached write-up of the shop and summarise the application from the code.' },
  say('Read the code.'),
  { user: `${TASK} ${RULES[0]} ${RULES[1]}` },
  say('Phase 1 plan ready.'),
  { tool: 'write', path: 'src/lib/db.ts', content: 'export const query = () => pool.query();\n'.repeat(4) },
  { user: APPROVALS[0] },
  say('Auth refactored.'),
  { tool: 'edit', path: 'src/lib/auth.ts', old: 'firebase', new: 'nextauth' },
  { user: APPROVALS[1] },
  say('Cleanup done.'),
  { user: `${RULES[2]} Create the resources in the new project and pause for my approval.` },
  say('Plan updated.'),
  // The latest request: a huge pasted log, far over the small window, kept after the first summary.
  { user: `Error:\n${pastedLog(900)}` },
  say('Looking at the connection error.'),
];
const after: Step[] = [
  { user: 'The database is running. How do I confirm it connects to the dev database?' },
  say('Checking the port.'),
  { tool: 'bash', command: 'netstat -an', output: 'TCP 127.0.0.1:5432 LISTENING' },
  say('The proxy listens now: run the check below.'),
];

/** The text of the summary a compaction wrote (the summary item of its context not in `old`). */
function summaryIn(r: CompactionResult, old: readonly ContextItem[] = []): string {
  const s = r.context.find((i) => i.kind === 'summary' && !old.includes(i));
  assert.ok(s, `a summary was written (${describeCompaction(r.status)})`);
  return textWithPlaceholders(s.message.content);
}

for (const [format, { write, file }] of Object.entries(WRITERS)) {
  test(`${format}: a summary squeezed by a huge pasted log keeps the standing rules, and the next summary shows the requests it left out`, async () => {
    const first = itemsFromEntries(importTranscriptTextSync(write(before), file).entries);
    const squeezed = await compactExtractive(first, 6000);
    const s1 = summaryIn(squeezed);
    const rules1 = sectionOf(s1, 'Standing rules');
    for (const rule of RULES) assert.ok(rules1.includes(rule), `the squeezed summary keeps "${rule}":\n${s1}`);
    // The squeezed summary says what it left out, and where to read it.
    const left =
      /\[(\d+) earlier requests? \([\d,]+ characters\) left out here to fit the budget; read them in the replaced messages \(last line\)\]/.exec(
        s1,
      );
    assert.ok(left, `the squeezed summary names the requests it left out:\n${s1}`);

    // The work goes on; the next compaction (a summary of that summary) has room.
    const all = itemsFromEntries(importTranscriptTextSync(write([...before, ...after]), file).entries);
    const next = [...squeezed.context, ...all.slice(first.length)];
    const again = await compactExtractive(next, 5000);
    const s2 = summaryIn(again, squeezed.context);
    const rules2 = sectionOf(s2, 'Standing rules');
    for (const rule of RULES) assert.ok(rules2.includes(rule), `the summary of the summary keeps "${rule}":\n${s2}`);
    const requests = sectionOf(s2, 'Requests, verbatim');
    assert.ok(requests.includes(TASK), `the request that defines the task is back whole:\n${s2}`);
    for (const a of APPROVALS) assert.ok(requests.includes(a), `"${a}" is back:\n${s2}`);
    assert.doesNotMatch(requests, /left out here to fit the budget/, s2);
  });
}

for (const [format, { write, file }] of Object.entries(WRITERS)) {
  test(`${format}: when a summary of a summary cannot show the requests an earlier one left out, it says how many`, async () => {
    const first = itemsFromEntries(importTranscriptTextSync(write(before), file).entries);
    const squeezed = await compactExtractive(first, 6000);
    const s1 = summaryIn(squeezed);
    const count = Number(/\[(\d+) earlier requests? \(/.exec(s1)?.[1] ?? 0);
    assert.ok(count > 0, s1);
    // The earlier summary read from its text alone (a file of `compact --out` brought back in): the
    // line saying what it left out is carried, its count in the next summary's line.
    const plain = squeezed.context.map((i) => (i.kind === 'summary' ? { ...i, requests: undefined } : i));
    const all = itemsFromEntries(importTranscriptTextSync(write([...before, ...after]), file).entries);
    const again = await compactExtractive([...plain, ...all.slice(first.length)], 5000);
    const s2 = summaryIn(again, plain);
    const carried =
      /\[(\d+) earlier requests? \([\d,]+ characters\) left out here to fit the budget; read them in the replaced messages \(last line\)\]/.exec(
        s2,
      );
    assert.ok(carried && Number(carried[1]) >= count, `the left-out requests are still counted:\n${s2}`);
  });
}

test('requests section: the pasted output inside a request is condensed before any request is shortened or left out', () => {
  const count = (t: string) => Math.ceil(t.length / 4);
  const log = pastedLog(300);
  const requests = [
    'Read the write-up and summarise the application.',
    TASK,
    ...APPROVALS,
    `I provided a new key but now I'm getting the following error\n\n${log}`,
    'Now deploy to the dev project.',
  ];
  const whole = renderRequestsSection(requests, 100_000, count);
  assert.equal(whole.whole, requests.length, 'all fit whole when there is room');
  const section = renderRequestsSection(requests, 600, count);
  const text = section.text;
  assert.equal(section.omitted, 0, text);
  assert.ok(text.includes(`- ${TASK}`), text);
  for (const a of APPROVALS) assert.ok(text.includes(`- ${a}`), text);
  // The person's words, the log's first and last lines and its error line stay; a marker counts the rest.
  assert.ok(text.includes("I provided a new key but now I'm getting the following error"), text);
  assert.ok(text.includes('c:\\apps\\shop>npm run dev'), text);
  assert.ok(text.includes('Failed to fetch orders Error: read ECONNRESET'), text);
  assert.ok(text.includes("code: 'ECONNRESET'"), text);
  assert.match(
    text,
    /\[… [\d,]+ lines \([\d,]+ characters\) of pasted output left out; read them in the replaced messages \(last line\) …\]/,
  );
  assert.equal(section.shortened, 1, text);
});

test('requests section: a line saying an earlier summary left requests out is carried, its count joined with new ones', () => {
  const count = (t: string) => Math.ceil(t.length / 4);
  const earlier = [
    "## Requests, verbatim (oldest first; the user's own words)",
    '- Build the order service.',
    '[3 earlier requests (240 characters) left out here to fit the budget]',
    '- Add pagination to the list.',
  ].join('\n');
  const read = parseRequestsSection(earlier);
  assert.equal(read.length, 3, 'the note is read in its place');
  const again = renderRequestsSection([...read, 'Now add a search box.'], 10_000, count);
  assert.match(
    again.text,
    /- Build the order service\.\n\[3 earlier requests \(240 characters\) left out here to fit the budget; read them in the replaced messages \(last line\)\]\n- Add pagination/,
  );
  assert.equal(again.omitted, 3);
  assert.equal(again.whole, 3);
});
