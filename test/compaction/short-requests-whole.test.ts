/**
 * A short request (up to `SHORT_REQUEST_CHARS` characters) is never shortened, whatever the budget:
 * it costs few tokens, and cut at both ends it says nothing; nor is one whose cut would leave out
 * fewer characters than its marker costs (`MIN_LEFT_OUT_CHARS`). Only long requests are clipped, their
 * kept parts ending and starting at sentence or line ends, with a marker counting what was left out;
 * when even that does not fit, requests are left out whole (and counted) rather than cut short.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  renderRequestsSection,
  shortenKeepingRules,
  shortenRequest,
  MIN_LEFT_OUT_CHARS,
  SHORT_REQUEST_CHARS,
} from '../../src/compaction/summary/requests-section';
import { ALL_WRITERS, summaryOf, type Step } from '../support/recordings';

const MARKER = /\[… [\d,]+ characters of this request left out …\]/;
const count = (t: string) => Math.ceil(t.length / 4);

/** Short requests (about 100 characters) between long ones made of short sentences. */
function requests(): string[] {
  const out: string[] = [];
  for (let k = 0; k < 12; k++) {
    out.push(
      `In src/app/page${k}.tsx give the status field a green background and ten pixels of padding all around it.`,
    );
    out.push(
      Array.from({ length: 30 }, (_, j) => `Step ${k}.${j} moves the card ${j} px to the right.`).join(' ') +
        ` Keep the header of page ${k} as it is.`,
    );
  }
  return out;
}

test('a request of 120 characters or less is never shortened, however small the room', () => {
  const all = requests();
  const short = all.filter((r) => r.length <= SHORT_REQUEST_CHARS);
  assert.ok(short.length >= 12 && short.every((r) => r.length > 90), 'short requests of about 100 characters');
  for (const budget of [400, 700, 1000, 1500]) {
    const section = renderRequestsSection(all, budget, count).text;
    for (const r of short)
      for (const line of section.split('\n'))
        if (line.startsWith(`- ${r.slice(0, 20)}`)) assert.equal(line, `- ${r}`, `${budget}: ${line}`);
    // What is shortened is a long request, with its marker.
    for (const line of section.split('\n').filter((l) => MARKER.test(l) && !l.startsWith('['))) {
      const source = all.find((r) => r.startsWith(line.slice(2, 12)));
      assert.ok(source === undefined || source.length > SHORT_REQUEST_CHARS, line);
    }
  }
  for (const r of short) {
    assert.equal(shortenRequest(r, 60), r);
    assert.equal(shortenKeepingRules(r, 60), r);
  }
});

test('a request is not shortened for a cut that would leave out less than its marker costs', () => {
  const request =
    'so, in this conversation, does the hypothesis of the analysis hold? Look at the first tool_call_id and the error after it. Is the tool_call_id used more than twice?';
  assert.ok(request.length > SHORT_REQUEST_CHARS && request.length - 120 < MIN_LEFT_OUT_CHARS);
  assert.equal(shortenRequest(request, 120), request);
  assert.equal(shortenKeepingRules(request, 120), request);
  // Cut to keep whole sentences, a request that would lose less than its marker costs stays whole.
  const asks =
    'so, in this conversation, does the hypothesis of the analysis hold? You can inspect the whole conversation. Is the tool_call_id used more than twice?';
  assert.equal(shortenRequest(asks, asks.length - 82), asks);
  const long = `${request} ${'The trajectory shows the events in order. '.repeat(4)}`;
  assert.match(shortenRequest(long, 120), MARKER, 'a longer one is shortened');
});

test('a long request is clipped at sentence ends', () => {
  const long = requests()[1];
  for (const max of [60, 120, 200]) {
    const out = shortenRequest(long, max);
    assert.match(out, MARKER, out);
    const [head, tail] = out.split(MARKER).map((s) => s.trim());
    if (head) assert.match(head, /[.!?:]$/, `${max}: ${out}`);
    if (tail) assert.ok(/^[A-Z]/.test(tail), `${max}: ${out}`);
  }
});

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

for (const format of ['aider', 'claude-code', 'cline'] as const) {
  test(`${format}: short requests stay whole in a summary whose long requests are shortened`, async () => {
    const steps: Step[] = [];
    for (let k = 0; k < 10; k++) {
      steps.push({ user: `make the cards of row ${k} all the same width of 350px and center them in the window` });
      steps.push({ say: `Done with row ${k}. ${filler(30)}` });
      steps.push({
        user: `${Array.from({ length: 25 }, (_, j) => `Rule ${k}.${j} says card ${j} moves right.`).join(' ')} Show the diff.`,
      });
      steps.push({ say: `Updated row ${k}. ${filler(30)}` });
    }
    steps.push({ user: 'now make the header sticky' });
    const { write, file } = ALL_WRITERS[format];
    const { summary } = await summaryOf(write(steps), file, 3000);
    const section = summary.slice(summary.indexOf('## Requests, verbatim'));
    assert.match(section, /characters of this request left out|left out here to fit the budget/, 'not all fit whole');
    for (let k = 0; k < 10; k++) {
      const r = `make the cards of row ${k} all the same width of 350px and center them in the window`;
      const line = section
        .split('\n')
        .find((l) => l.includes(`row ${k} all`) || l.startsWith(`- make the cards of row ${k} `));
      if (line) assert.equal(line, `- ${r}`, section);
    }
  });
}
