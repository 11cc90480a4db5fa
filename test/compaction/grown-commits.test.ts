/**
 * The commits of a span grown at its end (the scorecard's `commits`): equal to a fresh reading at
 * every size, also when a tool call early in the span was never answered, and such a call does not
 * make every later message be read again by each compaction of the growing span.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentCalls, type RetentionEntry } from '../../src/compaction/retention/calls';
import { spanCommits } from '../../src/compaction/retention/commits';
import type { ChatMessage } from '../../src/compaction/types';

/** `rounds` answered shell calls after one call never answered; round `k` commits when `k % 50 === 49`. */
function messages(rounds: number): ChatMessage[] {
  const out: ChatMessage[] = [
    { role: 'user', content: 'tidy the repository and commit each step' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'lost', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }],
    },
  ];
  for (let k = 0; k < rounds; k++) {
    const commit = k % 50 === 49;
    const command = commit ? `git commit -am "step ${k}"` : `sed -i 's/a${k}/b${k}/' src/f${k}.ts`;
    out.push(
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: `c${k}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command }) } },
        ],
      },
      {
        role: 'tool',
        tool_call_id: `c${k}`,
        content: commit ? `[main ${(0xabc0000 + k).toString(16)}] step ${k}\n 1 file changed` : '',
      },
    );
  }
  return out;
}

const entriesOf = (ms: readonly ChatMessage[]): RetentionEntry[] => ms.map((message) => ({ message }));

test('commits of a span grown at its end, with a call never answered early on, equal a fresh reading', () => {
  const all = messages(300);
  const sizes = [400, 401, 402, 450, 520, all.length];
  for (const size of sizes) {
    const grown = entriesOf(all.slice(0, size));
    const got = spanCommits(grown, agentCalls(grown));
    // New message objects: nothing kept from the reading before applies.
    const fresh = entriesOf(all.slice(0, size).map((m) => ({ ...m })));
    assert.deepEqual(got, spanCommits(fresh, agentCalls(fresh)), `at ${size} messages`);
  }
  const last = entriesOf(all);
  const commits = spanCommits(last, agentCalls(last));
  assert.equal(commits.length, 6, commits.join(', '));
  assert.ok(commits.includes((0xabc0000 + 299).toString(16)));
});

test('a call never answered early in a span does not make a grown span be read again from it', () => {
  const all = messages(300);
  // Counts the reads of each message's text.
  let reads = 0;
  const watched = all.map((m) => {
    const content = m.content;
    return Object.defineProperty<ChatMessage>({ ...m }, 'content', {
      enumerable: true,
      get: () => {
        reads++;
        return content;
      },
    });
  });
  const first = entriesOf(watched.slice(0, 500));
  spanCommits(first, agentCalls(first));
  reads = 0;
  const grown = entriesOf(watched.slice(0, 510));
  spanCommits(grown, agentCalls(grown));
  // The ten new messages, and the few at the end read apart; not the 500 read before.
  assert.ok(reads < 40, `${reads} reads of message texts for a span grown by 10 messages`);
});
