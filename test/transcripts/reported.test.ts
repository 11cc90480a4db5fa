/**
 * The provider's recorded figure beside ContextKeeper's count: above the count it holds what the
 * recording does not; well below it (Cline's 69.4k against 365k counted, Aider's 24.0k against 292k)
 * the agent's own last request held less than the recording, because the agent condensed or cut its
 * context; near it, only the tokenizers differ.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareRecorded, latestReportedPrompt, recordedK, recordedReason } from '../../src/transcripts/reported';

test('a recorded figure far below the count says the agent condensed or cut its own context', () => {
  for (const [recorded, counted] of [
    [69_400, 365_000],
    [24_000, 292_000],
  ]) {
    assert.equal(compareRecorded(recorded, counted), 'below');
    const reason = recordedReason(recorded, counted);
    assert.match(reason, /^less than the whole recording: the agent condensed or cut its own context/);
    assert.doesNotMatch(reason, /does not hold/, 'not the explanation of a larger figure');
  }
});

test('a recorded figure above the count names what the recording does not hold; a near one names the tokenizer', () => {
  assert.equal(compareRecorded(135_528, 300), 'above');
  assert.match(
    recordedReason(135_528, 300),
    /^including what the recording does not hold \(system prompt, tool schemas, hidden reasoning\)$/,
  );
  assert.equal(compareRecorded(90_000, 100_000), 'close');
  assert.match(recordedReason(90_000, 100_000), /own tokenizer/);
  assert.equal(compareRecorded(79_999, 100_000), 'below');
  assert.equal(recordedK(69_412), '69.4k');
});

test('the newest reported figure is the one shown', () => {
  assert.deepEqual(
    latestReportedPrompt([{ meta: { reportedPromptTokens: 5 } }, {}, { meta: { reportedPromptTokens: 9 } }, {}]),
    { tokens: 9, index: 2 },
  );
  assert.equal(latestReportedPrompt([{}]), undefined);
});

test('recordedReason compares with the count as imported when given, and says the context was compacted since', () => {
  assert.match(
    recordedReason(24_000, 17_000, 292_000),
    /^less than the whole recording: .*\(compared with the recording as imported, 292,000 tokens; ContextKeeper has compacted it since\)$/,
  );
  assert.match(recordedReason(135_528, 9_000, 54_301), /^including what the recording does not hold/);
});
