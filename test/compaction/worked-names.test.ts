/**
 * Names of the code the agent worked with are kept, in every recording format: names it searched
 * for, called or constructed in code it wrote, named in its messages, or met in a failure — not
 * only the names an edit declared; not the names in the output of a successful read. Ranked, so a
 * tight budget keeps the names the agent used most strongly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_WRITERS, WRITERS, summaryOf, type Step } from '../support/recordings';
import {
  NAME_WEIGHT,
  NameTally,
  nameLines,
  namesOfMessage,
} from '../../src/compaction/summary/identifiers/worked-names';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { SECTIONS } from '../../src/compaction/summary/span-scan';
import type { ContextItem } from '../../src/compaction/types';

const filler = (n: number) => `${'lorem ipsum dolor sit amet '.repeat(n)}`;

const work: Step[] = [
  { user: 'fix the refund flow' },
  { say: `Looking around first. ${filler(400)}` },
  { tool: 'bash', command: 'grep -rn "applyRefundPolicy" src', output: 'src/refunds.ts:3: applyRefundPolicy' },
  {
    tool: 'read',
    path: 'src/refunds.ts',
    output: `export function applyRefundPolicy(order) {\n  return legacyOutputOnlyName(order);\n}\nexport function unrelatedHelperName() {}\n${filler(30)}`,
  },
  {
    tool: 'edit',
    path: 'src/refunds.ts',
    old: 'return legacyOutputOnlyName(order);',
    new: 'const entry = new RefundLedgerEntry(order);\n  return PaymentGateway.issueRefund(entry);',
  },
  {
    tool: 'bash',
    command: 'npm test',
    output: `TypeError: computeRefundTotal is not a function\n    at settleOrder (src/orders.ts:9:3)\n${filler(30)}`,
    ok: false,
  },
  { say: `The \`RefundService\` wraps the gateway; I will wire it next. ${filler(400)}` },
  { user: 'now add docs' },
  { say: 'Writing the docs.' },
];

const section = (summary: string) => {
  const at = summary.indexOf(SECTIONS.names);
  if (at < 0) return '';
  const end = summary.indexOf('\n\n', at);
  return summary.slice(at, end < 0 ? undefined : end);
};

for (const [format, { write, file }] of Object.entries(WRITERS)) {
  test(`${format}: names the agent searched for, called, constructed, quoted or met in a failure are kept; a read's output gives none`, async () => {
    const { summary } = await summaryOf(write(work), file, 6000);
    const names = section(summary);
    // Called, not declared: no ledger line holds these, only the names section.
    for (const n of ['issueRefund', 'PaymentGateway']) assert.match(names, new RegExp(`\\b${n}\\b`), summary);
    // Constructed, quoted, searched for, met in a failure: in the names section unless another line holds them.
    for (const n of ['RefundLedgerEntry', 'RefundService', 'computeRefundTotal', 'applyRefundPolicy'])
      assert.match(summary, new RegExp(`\\b${n}\\b`), `${n} missing:\n${summary}`);
    // Only the successful read's output named it.
    assert.doesNotMatch(names, /unrelatedHelperName/, summary);
  });
}

test('aider: names called and constructed in a SEARCH/REPLACE block are kept', async () => {
  const { summary } = await summaryOf(ALL_WRITERS.aider.write(work), ALL_WRITERS.aider.file);
  for (const n of ['issueRefund', 'RefundLedgerEntry', 'RefundService'])
    assert.match(summary, new RegExp(`\\b${n}\\b`), `${n} missing:\n${summary}`);
});

test('a name the agent declared or searched for ranks above an annotation repeated on every file', () => {
  const tally = new NameTally();
  for (let k = 0; k < 30; k++)
    tally.add(
      namesOfMessage({
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: `c${k}`,
            type: 'function',
            function: {
              name: 'Write',
              arguments: JSON.stringify({
                file_path: `E${k}.java`,
                content: '@GeneratedValue(strategy)\nprivate Long id;',
              }),
            },
          },
        ],
      }),
    );
  tally.add(
    namesOfMessage({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 's',
          type: 'function',
          function: { name: 'Grep', arguments: JSON.stringify({ pattern: 'findByRouteNumber' }) },
        },
      ],
    }),
  );
  tally.add(new Map([['scheduleReminder', NAME_WEIGHT.declared]]));
  const ranked = tally.ranked(10);
  assert.ok(ranked.indexOf('findByRouteNumber') < ranked.indexOf('GeneratedValue'), ranked.join(', '));
  assert.ok(ranked.indexOf('scheduleReminder') < ranked.indexOf('GeneratedValue'), ranked.join(', '));
});

test('the output of a successful tool call gives no names; a failed one gives the names in its error lines', () => {
  const out = { role: 'tool' as const, tool_call_id: 'x', content: 'TypeError: brokenThing is not a function' };
  assert.equal(namesOfMessage(out).size, 0);
  const failed = { role: 'tool' as const, tool_call_id: 'y', content: 'TypeError: brokenThing is not a function' };
  assert.equal(namesOfMessage(failed, true).get('brokenThing'), NAME_WEIGHT.failed);
});

test('names already written elsewhere in the notes are not listed again; lines hold the best ranked first', () => {
  const lines = nameLines(['alphaOne', 'betaTwo', 'gammaThree'], new Set(['betaTwo']));
  assert.deepEqual(lines, ['- alphaOne, gammaThree']);
});

test('a tight budget keeps the best ranked names and drops the least used first', () => {
  const items: ContextItem[] = [
    { id: 'u', kind: 'raw', covers: [] as string[], message: { role: 'user', content: 'go' } },
  ];
  const names = Array.from({ length: 120 }, (_, k) => `nameNumber${String.fromCharCode(65 + (k % 26))}x${k}`);
  // The first names are searched for (strongest), the rest only mentioned in code written once.
  items.push({
    id: 'a',
    kind: 'raw',
    covers: [] as string[],
    message: {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'g',
          type: 'function',
          function: { name: 'Grep', arguments: JSON.stringify({ pattern: names.slice(0, 5).join('|') }) },
        },
        {
          id: 'w',
          type: 'function',
          function: {
            name: 'Write',
            arguments: JSON.stringify({ file_path: 'a.ts', content: names.slice(5).join(' + ') }),
          },
        },
      ],
    },
  });
  const notes = new ExtractiveSummarizer((s) => Math.ceil(s.length / 4)).notes(items, 260);
  const kept = section(notes);
  for (const n of names.slice(0, 5)) assert.match(kept, new RegExp(n), notes);
  assert.doesNotMatch(kept, new RegExp(names[119]), notes);
});

test('names an earlier summary kept are carried into the next summary of it', () => {
  const earlier: ContextItem = {
    id: 's',
    kind: 'summary',
    covers: [],
    message: {
      role: 'user',
      content: `[Summary]\n\n${SECTIONS.current}\n- Next step: continue\n\n${SECTIONS.names}\n- carriedServiceName, OlderRepository`,
    },
  };
  const notes = new ExtractiveSummarizer((s) => Math.ceil(s.length / 4)).notes(
    [earlier, { id: 'u', kind: 'raw', covers: [] as string[], message: { role: 'user', content: 'go on' } }],
    2000,
  );
  assert.match(section(notes), /carriedServiceName, OlderRepository/, notes);
});

test('a token that starts with a digit (an address, a hash) gives no name, not even its tail', () => {
  const said = {
    role: 'assistant' as const,
    content:
      'Sending to `3iusaL6ys79qVbHmz4Xk` and `6i5SyF8Hx2u5PkLw`; then call `settleSplitGroup(groupId)` from `4wCwkHnKz1g`.',
  };
  const names = [...namesOfMessage(said).keys()];
  assert.ok(names.includes('settleSplitGroup'), JSON.stringify(names));
  for (const fragment of ['iusaL6ys79qVbHmz4Xk', 'i5SyF8Hx2u5PkLw', 'wCwkHnKz1g'])
    assert.ok(!names.includes(fragment), `${fragment} in ${JSON.stringify(names)}`);
});

test("a setting's value is no code name after each mark that can close its label; the same word elsewhere is", () => {
  const names = (content: string) => [...namesOfMessage({ role: 'assistant', content }).keys()];
  // The label closes with a quote, with `=`, or with the colon of a colon-joined id before the word.
  for (const [content, value] of [
    ['The config sets `appId: "webClientMain` for the build.', 'webClientMain'],
    ["Then set clientSecret = 'rotateSecretsNightly in the env.", 'rotateSecretsNightly'],
    ['The env file has AUTH_TOKEN=tokenRefreshHandler now.', 'tokenRefreshHandler'],
    ['It reads "firebaseId": "1:1234:web:projectMainWeb from the config.', 'projectMainWeb'],
  ] as const)
    assert.ok(!names(content).includes(value), `${value} listed from: ${content}`);
  // The same words where no label closes right before them are names of the work.
  const plain = names('We call webClientMain() and rotateSecretsNightly() from tokenRefreshHandler() daily.');
  for (const n of ['webClientMain', 'rotateSecretsNightly', 'tokenRefreshHandler']) assert.ok(plain.includes(n), n);
});
