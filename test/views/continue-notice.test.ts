/**
 * The notification after Continue in a New Task names the true reason, computed from what the run
 * measured and did: a summary edited by hand is blamed for filling the target only when the rest
 * stays below it; otherwise the never-summarised part, the kept steps, the pins, the input budget or
 * the recording's own compaction is named, and a result above the target names what holds it (the
 * lines added by hand among them).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { continueNotice } from '../../src/views/notices';
import {
  recordingFacts,
  whyAboveTarget,
  whyEditsSummarised,
  type ContinueFacts,
} from '../../src/service/compaction/continue-facts';

/** A run with target 7,000 tokens that summarised again the one edited summary (2,000 tokens), landing at 6,500. */
function facts(
  over: Partial<Omit<ContinueFacts, 'anchored'>> & { anchored?: Partial<ContinueFacts['anchored']> } = {},
): ContinueFacts {
  const anchored = {
    tools: 500,
    replyStart: 3,
    system: 400,
    latestRequest: 300,
    recentSteps: 1_000,
    pinned: 0,
    ...over.anchored,
  };
  return {
    targetTokens: 7_000,
    tokensAfter: 6_500,
    edited: { count: 1, tokens: 2_000 },
    editedKept: false,
    resummarised: 1,
    summarisedBefore: 0,
    handLines: 0,
    ...over,
    anchored: { ...anchored, total: Object.values(anchored).reduce((a, b) => a + b, 0) },
  };
}

test('the edits are blamed only when with them, and not without, what is always kept fills the target', () => {
  const f = facts({ anchored: { recentSteps: 4_000 } }); // 5,203 kept + 2,000 edited ≥ 7,000
  assert.equal(whyEditsSummarised(f)?.kind, 'edited-summaries');
  const notice = continueNotice(f)!;
  assert.equal(notice.level, 'warning');
  assert.equal(notice.openCheckpoint, true);
  assert.match(
    notice.text,
    /a summary you edited by hand was summarised again: the summaries edited by hand hold 2,000 tokens as written, and with what is always kept \(5,203\) they fill the compaction target of 7,000 tokens/,
  );
  assert.doesNotMatch(notice.text, /not because of your edits/);
});

test('the never-summarised part alone over the target is named, with what holds it, and the edits are cleared', () => {
  const f = facts({ anchored: { system: 7_500 }, tokensAfter: 9_800 });
  assert.equal(whyEditsSummarised(f)?.kind, 'never-summarised');
  const { text } = continueNotice(f)!;
  assert.match(
    text,
    /summarised again: not because of your edits: what is never summarised \(system prompt 7,500, tool schemas 500, latest request 300, reply start 3; 8,303 tokens\) alone fills the compaction target of 7,000 tokens\./,
  );
  assert.doesNotMatch(text, /hold 2,000 tokens as written/);
  // The same holder keeps the result above the target: said once.
  assert.equal(whyAboveTarget(f)?.kind, 'never-summarised');
  assert.equal(text.match(/never summarised/g)?.length, 1, text);
});

test('the newest steps kept verbatim are named when they, not the edits, fill the target', () => {
  const f = facts({ anchored: { recentSteps: 6_000 } });
  assert.equal(whyEditsSummarised(f)?.kind, 'kept-steps');
  assert.match(
    continueNotice(f)!.text,
    /not because of your edits: the newest steps kept verbatim \(contextKeeper\.keepRecentSteps\) hold 6,000 tokens, and with what is never summarised \(1,203\) they fill/,
  );
});

test('pinned messages are named when they fill the target', () => {
  const f = facts({ anchored: { pinned: 5_000 } });
  assert.equal(whyEditsSummarised(f)?.kind, 'pinned');
  assert.match(continueNotice(f)!.text, /not because of your edits: pinned messages hold 5,000 tokens/);
});

test('edits kept for the target but summarised to fit the input budget say so', () => {
  const f = facts({ editedKept: true });
  assert.equal(whyEditsSummarised(f)?.kind, 'over-budget');
  assert.match(continueNotice(f)!.text, /kept as written, the new task would not have fit the model's input budget/);
});

test("edits the recording had summarised before it was continued are not blamed on the new task's target", () => {
  const notice = continueNotice(recordingFacts(2))!;
  assert.match(
    notice.text,
    /^ContextKeeper: 2 summaries you edited by hand were summarised again: a later compaction in the recording had done so before you continued it\./,
  );
  assert.doesNotMatch(notice.text, /target|too large/);
});

test('above the target because of the lines added by hand: those are named, with their tokens', () => {
  const f = facts({ resummarised: 1, tokensAfter: 7_600, handLines: 900 });
  assert.equal(whyAboveTarget(f)?.kind, 'hand-lines');
  assert.match(
    continueNotice(f)!.text,
    /The new task starts at 7,600 tokens, above the target: the lines added by hand, carried whole into the new summary, hold 900 tokens/,
  );
});

test('above the target with no edit at all: the holder is named and nothing speaks of an edit', () => {
  const f = facts({
    edited: { count: 0, tokens: 0 },
    resummarised: 0,
    tokensAfter: 7_400,
    anchored: { recentSteps: 6_500 },
  });
  assert.equal(whyEditsSummarised(f), undefined);
  const notice = continueNotice(f)!;
  assert.equal(notice.level, 'info');
  assert.equal(notice.openCheckpoint, false);
  assert.match(
    notice.text,
    /^ContextKeeper: the new task starts at 7,400 tokens, above the target: the newest steps kept verbatim/,
  );
  assert.doesNotMatch(notice.text, /by hand|edit/);
  // Nothing to say: every edited summary stands and the target was reached.
  assert.equal(continueNotice(facts({ resummarised: 0, editedKept: true })), undefined);
});

test('above the target with nothing held over it: the new summaries themselves are named', () => {
  const f = facts({ resummarised: 0, edited: { count: 0, tokens: 0 }, tokensAfter: 7_300 });
  assert.deepEqual(whyAboveTarget(f), { kind: 'summaries', tokens: 7_300 - 2_203 });
});
