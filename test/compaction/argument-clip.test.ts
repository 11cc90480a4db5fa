/**
 * Tool-call arguments shown in a summary ("Last tool call: …") are cut where a word, a path segment
 * or a clause ends, with "…", never in the middle of a word.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cutAtBoundary, keyArguments } from '../../src/compaction/text';
import { WRITERS, summaryOf, type Step } from '../support/recordings';

test('cutAtBoundary cuts after a word or a folder, and mid-word only when one word fills the room', () => {
  assert.equal(cutAtBoundary('short text', 40), 'short text');
  assert.equal(
    cutAtBoundary('the user asks me to summarize the conversation so far', 40),
    'the user asks me to summarize the…',
  );
  assert.equal(
    cutAtBoundary('/home/user/projects/alpha/beta/gamma/delta.ts', 40),
    '/home/user/projects/alpha/beta/gamma/…',
  );
  assert.equal(cutAtBoundary('x'.repeat(50), 20), `${'x'.repeat(19)}…`);
});

test('keyArguments cuts a long free-text value at a word', () => {
  const shown = keyArguments(
    JSON.stringify({ thought: 'The user is asking me to summarize the conversation so far, in detail' }),
  );
  assert.match(shown, /^thought=The user is asking me to summarize the conversation so far…$/);
});

const words = Array.from({ length: 70 }, (_, i) => `step${i}value`);
const steps: Step[] = [
  { user: 'Print the values.' },
  { tool: 'bash', command: `echo ${words.join(' ')}`, output: 'ok '.repeat(300) },
  { say: 'Printed them.' },
  { user: 'Good. Then the totals.' },
  { say: 'The totals are 12 and 30.' },
  { user: 'Now the next part.' },
];

// SWE-agent's actions are text in its messages: a summary shows no "Last tool call" line for them.
for (const [format, { write, file }] of Object.entries(WRITERS).filter(([f]) => f !== 'swe-agent')) {
  test(`${format}: the last tool call's long command is cut at a whole word`, async () => {
    const { summary } = await summaryOf(write(steps), file, 200);
    const line = summary.split('\n').find((l) => l.startsWith('- Last tool call:'));
    if (!line) return assert.fail(`${format}: no last tool call line in\n${summary}`);
    const cut = /(\S+)…/.exec(line);
    assert.ok(cut, `${format}: the command is long enough to be cut: ${line}`);
    assert.ok(words.includes(cut[1]), `${format}: "${cut[1]}" is a whole word of the command (${line})`);
  });
}
