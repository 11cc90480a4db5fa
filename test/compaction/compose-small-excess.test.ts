/**
 * A summary a few tokens over its limit (joins, masking) gives them back from the notes' longest lines
 * while every typed request is whole: the first request, with a pasted error in it, is never cut by
 * hundreds of characters to save one token.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { composeSummary, SUMMARY_FRAME_TOKENS } from '../../src/compaction/summary/compose-summary';
import { renderRequestsSection } from '../../src/compaction/summary/requests-section';

const count = (t: string) => Math.ceil(t.length / 4);
const FIRST = [
  "I'm trying to understand the bug described in ROOT_CAUSE_ANALYSIS.md. The trajectory failed with error",
  '```',
  '{ "code": "LLMBadRequestError", "detail": "litellm.BadRequestError: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01Sue. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", "kind": "ConversationErrorEvent" }',
  '```',
  "Let's focus on the toolu_01Sue tool_use_id. Is there a problem with it in that conversation?",
].join('\n');
const requests = [FIRST, 'so, does the hypothesis hold? Is the tool_call_id used more than twice?'];
const notes = [
  '## Current work and next step',
  `- Answered an earlier request: "${'The events were read one by one and the ids compared. '.repeat(12)}"`,
  '- Next step: continue with the latest request',
].join('\n');

test('a small excess comes out of the notes while every request is whole', () => {
  const section = renderRequestsSection(requests, 5000, count);
  assert.equal(section.shortened, 0);
  const header = '[Summary of 12 earlier messages]';
  const whole = composeSummary({ header, notes, requests, section, limit: 100_000, minRequests: 64, countText: count });
  // Two tokens over the limit.
  const limit = count(`${header}\n\n${whole.text}`) + SUMMARY_FRAME_TOKENS - 2;
  const { text, section: kept } = composeSummary({
    header,
    notes,
    requests,
    section,
    limit,
    minRequests: 64,
    countText: count,
  });
  assert.equal(kept.shortened, 0, text);
  assert.ok(text.includes(FIRST.split('\n').join('\n  ')), text);
  assert.ok(count(`${header}\n\n${text}`) + SUMMARY_FRAME_TOKENS <= limit, text);
});
