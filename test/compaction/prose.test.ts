/**
 * Which sentences the extractive notes quote as the user's rules and the agent's decisions: rules
 * that end in a colon keep the list that follows them; code lines and fenced blocks are never
 * quoted as decisions or rules.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A, S, U, items } from '../support/conversation';
import { quarterCounter } from '../support/generate';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { DECISION, isProse, ruleSentences } from '../../src/compaction/summary/prose';

test('a rule that ends in a colon is quoted with the list that follows it', () => {
  const typed =
    'Set up the broker client.\nThe mqtt.connect options must always include:\n- clientId from the env\n- keepalive 30\n\nThanks.';
  assert.deepEqual(ruleSentences(typed), [
    'The mqtt.connect options must always include: - clientId from the env - keepalive 30',
  ]);
});

test('a rule without a list after its colon stays as written, and a rule inside a code fence is not a rule', () => {
  const typed =
    'You must always keep these names:\nThen run the tests.\n```\n// never remove this line\n```\nNever commit unless I ask.';
  assert.deepEqual(ruleSentences(typed), ['You must always keep these names:', 'Never commit unless I ask.']);
});

test('code lines are not prose, whatever words they contain', () => {
  for (const line of [
    "alert('Auto-switched to the backup broker because the main one is down');",
    'console.log(`switched to ${mode} because of the timeout`)',
    'const reason = retry ? "because it failed" : "ok";',
    'if (a === b) { return since; }',
  ]) {
    assert.equal(isProse(line), false, line);
  }
  assert.equal(isProse('Switched the runtime image because the small one has no arm64 build.'), true);
  assert.ok(DECISION.test('Switched the runtime image because the small one has no arm64 build.'));
});

test("the notes' decisions and rules hold sentences, not the code the agent showed", () => {
  const summarizer = new ExtractiveSummarizer(quarterCounter.countText);
  const notes = summarizer.notes(
    items([
      S('You are a coding agent.'),
      U('Add a fallback broker. The config must always include:\n- host\n- port'),
      A(
        "I chose a second client instead of reconnecting, because reconnects drop queued messages.\n```js\nalert('Auto-switched because the main broker is down');\n```\nconsole.log(`switched since ${n}`)",
      ),
      U('ok'),
    ]),
    2000,
  );
  assert.match(notes, /The config must always include: - host - port/);
  assert.match(notes, /I chose a second client instead of reconnecting, because reconnects drop queued messages\./);
  const decisions = notes.split('## Decisions')[1]?.split('\n## ')[0] ?? '';
  assert.match(decisions, /I chose a second client/);
  assert.doesNotMatch(decisions, /alert\(|console\.log/, 'no code quoted as a decision');
});
