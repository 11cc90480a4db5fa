/**
 * The OpenAI summarizer through the real `openai` client against the loopback server: one test per
 * reply shape and fault. Each asserts the context afterwards, the checkpoints, the error reported and
 * the requests the server saw.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ContextItem } from '../../src/compaction/types';
import {
  chunked,
  contextLengthExceeded,
  malformedSse,
  refusal,
  reset,
  scripted,
  stall,
  status,
  text,
  toolCalls,
} from '../../src/demo/modelserver/replies';
import {
  GOOD_SUMMARY,
  INJECTION,
  compactWith,
  conversation,
  failureOf,
  items,
  requestText,
  rig,
  transcriptOf,
} from './fixtures';
import type { CompactionResult, SummarizerFailureKind } from '../../src/compaction/outcome';
import { describeCompaction } from '../../src/compaction/outcome-text';
import { textWithPlaceholders } from '../../src/compaction/content-text';

/** Failure: the context is the same array contents, no checkpoint, one error of `kind`. */
function assertUnchanged(
  result: CompactionResult,
  before: readonly ContextItem[],
  kind: SummarizerFailureKind,
  message: RegExp,
): void {
  assert.notEqual(result.status.kind, 'applied', describeCompaction(result.status));
  assert.deepEqual(result.checkpoints, []);
  assert.equal(result.context.length, before.length);
  result.context.forEach((item, i) => assert.equal(item, before[i], `item ${i} is the same object`));
  const failure = failureOf(result);
  assert.equal(failure?.failure, kind, `kind of: ${failure?.message}`);
  assert.match(failure?.message ?? '', message);
  assert.ok(!(failure?.message ?? '').includes('sk-test-secret-key-123'), 'no API key in the message');
  assert.ok(!/\n/.test(failure?.message ?? ''), 'one line');
}

/** Success: one summary checkpoint whose summary message is a `user` message. */
function assertApplied(result: CompactionResult, before: readonly ContextItem[]): void {
  assert.equal(result.status.kind, 'applied', describeCompaction(result.status));
  assert.equal(result.checkpoints.length, 1);
  assert.equal(result.checkpoints[0]?.strategy, 'summary');
  assert.ok(result.tokensAfter < result.tokensBefore);
  const summary = result.context.find((i) => i.kind === 'summary');
  assert.equal(summary?.message.role, 'user');
  assert.ok(result.context.length < before.length);
}

test('scripted JSON summary is committed as a user message; the request is data-framed and tool-free', async () => {
  const r = await rig(scripted([text(GOOD_SUMMARY)]), { stream: false });
  try {
    const context = items(conversation());
    const result = await compactWith(r, context);
    assertApplied(result, context);
    assert.equal(r.server.requests.length, 1);
    const body = r.server.requests[0];
    assert.equal('tools' in body, false);
    assert.equal('tool_choice' in body, false);
    assert.notEqual(body.stream, true);
    const prompt = requestText(body);
    assert.match(prompt, /\[call c1\] read_file \{"path":"src\/part1\.ts"\}/);
    assert.match(prompt, /\[result c1\] line of src\/part1\.ts/);
    assert.ok(transcriptOf(body).includes(`${INJECTION}\n`), 'the injection line sits inside the data delimiters');
    const user = String((body.messages?.[1] as { content?: unknown }).content);
    assert.equal(user.split(INJECTION).length, 2, 'and nowhere else');
    assert.equal(
      (body.messages?.[0] as { role?: string }).role,
      'system',
      "the instruction is the summarizer request's own system message",
    );
    assert.ok(
      (body.messages ?? []).every((m) => (m as { role: string }).role !== 'tool'),
      'no tool messages in the summarizer request',
    );
    const cp = result.checkpoints[0];
    assert.equal(cp.summarizerModel, 'summary-model');
    assert.equal(cp.usage?.calls, 1);
    assert.equal(cp.coverage?.parts.length, 1, 'the model read the whole span');
    assert.equal(cp.coverage?.parts[0].writer, 'model');
  } finally {
    await r.close();
  }
});

test('streamed summary in chunks: deltas reach onDelta and the joined text is committed', async () => {
  const pieces = GOOD_SUMMARY.match(/[\s\S]{1,20}/g) ?? [];
  const r = await rig(scripted([chunked(pieces, 2), chunked(pieces, 2)]));
  try {
    const context = items(conversation());
    const deltas: string[] = [];
    const direct = await r.summarizer.summarize({
      items: context.slice(1, 8),
      userRequests: [],
      approximateSummaryTokens: 300,
      maxCalls: 2,
      onDelta: (d) => deltas.push(d),
    });
    assert.deepEqual(deltas, pieces);
    assert.equal(direct.text, GOOD_SUMMARY);
    assert.ok(direct.usage.promptTokens > 0 && direct.usage.completionTokens > 0, 'usage from the final chunk');
    const body = r.server.requests[0];
    assert.equal(body.stream, true);
    assert.deepEqual(body.stream_options, { include_usage: true });

    const result = await compactWith(r, context);
    assertApplied(result, context);
    assert.equal(r.server.requests.length, 2);
  } finally {
    await r.close();
  }
});

test('a server that answers a streamed request with one JSON completion: its summary is read and committed', async () => {
  const r = await rig(scripted([text(GOOD_SUMMARY, { ignoresStream: true }), text('', { ignoresStream: true })]));
  try {
    const context = items(conversation());
    const result = await compactWith(r, context);
    assertApplied(result, context);
    assert.equal(r.server.requests[0]?.stream, true, 'the request asked for a stream');
    const summary = result.context.find((i) => i.kind === 'summary');
    assert.ok(
      textWithPlaceholders(summary?.message.content ?? '').includes(GOOD_SUMMARY.slice(0, 40)),
      'the JSON reply is the summary',
    );
    // The same server's empty JSON answer is an empty reply, not a stream that broke off.
    const again = await compactWith(r, context);
    assertUnchanged(again, context, 'bad-reply', /empty reply/);
  } finally {
    await r.close();
  }
});

test('HTTP 500 then success: the SDK retries once and the summary is committed', async () => {
  const r = await rig(scripted([status(500, 'upstream exploded'), text(GOOD_SUMMARY)]), { maxRetries: 2 });
  try {
    const context = items(conversation());
    const result = await compactWith(r, context);
    assertApplied(result, context);
    assert.equal(r.server.requests.length, 2);
    assert.deepEqual(r.server.requests[0], r.server.requests[1], 'the retry sends the same request');
  } finally {
    await r.close();
  }
});

test('HTTP 429 with Retry-After is honoured before the retry', async () => {
  const r = await rig(scripted([status(429, 'rate limited', 1), text(GOOD_SUMMARY)]), { maxRetries: 1 });
  try {
    const context = items(conversation());
    const result = await compactWith(r, context);
    assertApplied(result, context);
    assert.equal(r.server.log.length, 2);
    const gap = r.server.log[1].atMs - r.server.log[0].atMs;
    assert.ok(gap >= 950, `waited ${gap} ms for Retry-After: 1`);
  } finally {
    await r.close();
  }
});

test('HTTP 429 on every attempt: http error after the retries, context unchanged', async () => {
  const r = await rig(scripted([status(429, 'rate limited', 0)]), { maxRetries: 1 });
  try {
    const context = items(conversation());
    const result = await compactWith(r, context);
    assertUnchanged(result, context, 'rate-limit', /rate-limiting requests \(HTTP 429\) after 2 attempt\(s\)/);
    assert.equal(r.server.requests.length, 2);
  } finally {
    await r.close();
  }
});

test('a stall before any byte times out; a stall mid-stream times out and discards the partial text', async () => {
  const r = await rig(scripted([stall(), stall(['The user asked'])]), { timeoutMs: 250 });
  try {
    const context = items(conversation());
    const started = Date.now();
    const first = await compactWith(r, context);
    assertUnchanged(first, context, 'timeout', /did not answer within 250 ms/);
    const second = await compactWith(r, context);
    assertUnchanged(second, context, 'timeout', /sent nothing for 250 ms; the partial summary was discarded/);
    assert.ok(Date.now() - started < 3000);
    assert.equal(r.server.requests.length, 2);
  } finally {
    await r.close();
  }
});

test('empty and blank replies are rejected as empty', async () => {
  const r = await rig(
    scripted([text(''), text('   \n  '), text('## Objective\nnone\n## Work completed\nnone\n## Identifiers\n- none')]),
    { stream: false },
  );
  try {
    const context = items(conversation());
    assertUnchanged(await compactWith(r, context), context, 'bad-reply', /empty reply/);
    assertUnchanged(await compactWith(r, context), context, 'bad-reply', /empty reply/);
    assertUnchanged(await compactWith(r, context), context, 'bad-reply', /only empty sections/);
    assert.equal(r.server.requests.length, 3);
  } finally {
    await r.close();
  }
});

test('a tool call instead of a summary is rejected (JSON and streamed)', async () => {
  const call = toolCalls([{ id: 'x', name: 'read_file', arguments: '{}' }]);
  for (const stream of [false, true]) {
    const r = await rig(scripted([call]), { stream });
    try {
      const context = items(conversation());
      const result = await compactWith(r, context);
      assertUnchanged(result, context, 'bad-reply', /answered with a tool call/);
      assert.ok(!JSON.stringify(result.context).includes('"x"'), 'the stray call never enters the context');
      assert.equal(r.server.requests.length, 1);
      assert.equal('tools' in r.server.requests[0], false);
    } finally {
      await r.close();
    }
  }
});

test('finish_reason length is rejected as truncated', async () => {
  const r = await rig(scripted([text(GOOD_SUMMARY, { finishReason: 'length' })]));
  try {
    const context = items(conversation());
    assertUnchanged(await compactWith(r, context), context, 'bad-reply', /cut off at the reply token limit/);
    assert.equal(r.server.requests.length, 1);
    assert.equal(typeof r.server.requests[0]['max_completion_tokens'], 'number');
  } finally {
    await r.close();
  }
});

test('refusals are rejected: the refusal field, refusal-shaped text, content_filter', async () => {
  const r = await rig(
    scripted([
      refusal('I cannot summarize this content.'),
      text("I'm sorry, but I can't help with that."),
      text('', { finishReason: 'content_filter' }),
    ]),
  );
  try {
    const context = items(conversation());
    assertUnchanged(await compactWith(r, context), context, 'refusal', /refused: I cannot summarize/);
    assertUnchanged(await compactWith(r, context), context, 'refusal', /refused: "I'm sorry/);
    assertUnchanged(await compactWith(r, context), context, 'refusal', /content filter/);
    assert.equal(r.server.requests.length, 3);
  } finally {
    await r.close();
  }
});

test('a summary longer than its input is not applied (no-shrink)', async () => {
  const long = `${GOOD_SUMMARY}\n${'The agent read every line again. '.repeat(2000)}`;
  const r = await rig(scripted([text(long)]), { replyTokens: 30_000, contextWindow: 200_000 });
  try {
    const context = items(conversation());
    assertUnchanged(await compactWith(r, context), context, 'no-shrink', /not shorter than what it replaces/);
    assert.equal(r.server.requests.length, 1);
  } finally {
    await r.close();
  }
});

test('malformed SSE is rejected as invalid and the partial text discarded', async () => {
  const r = await rig(scripted([malformedSse(['The user asked for CSV'])]));
  try {
    const context = items(conversation());
    assertUnchanged(
      await compactWith(r, context),
      context,
      'bad-reply',
      /malformed stream event; the partial summary was discarded/,
    );
    assert.equal(r.server.requests.length, 1);
  } finally {
    await r.close();
  }
});

test('a connection reset mid-stream is an http error and the partial text is discarded', async () => {
  const r = await rig(scripted([reset(['The user asked', ' for CSV export'], 5)]));
  try {
    const context = items(conversation());
    const result = await compactWith(r, context);
    assertUnchanged(
      result,
      context,
      'network',
      /broke before the reply was complete .*the partial summary was discarded/,
    );
    assert.ok(!JSON.stringify(result.context).includes('for CSV export'));
    assert.equal(r.server.requests.length, 1);
  } finally {
    await r.close();
  }
});

test('a stream that ends without a finish reason is truncated, not committed', async () => {
  const r = await rig(scripted([malformedSse(['The user asked'], '')]));
  try {
    const context = items(conversation());
    assertUnchanged(await compactWith(r, context), context, 'bad-reply', /stream ended before the reply was complete/);
  } finally {
    await r.close();
  }
});

test('an HTTP 401 that echoes the key reports without the key', async () => {
  const r = await rig(scripted([status(401, 'Incorrect API key provided: sk-test-secret-key-123')]));
  try {
    const context = items(conversation());
    assertUnchanged(
      await compactWith(r, context),
      context,
      'auth',
      /rejected the API key \(HTTP 401\): Incorrect API key provided: \*\*\*/,
    );
    assert.equal(r.server.requests.length, 1, '401 is not retried');
  } finally {
    await r.close();
  }
});

test('a context-length 400 from the server is reported as overflow', async () => {
  const r = await rig(scripted([contextLengthExceeded(9000, 8000)]));
  try {
    const context = items(conversation());
    assertUnchanged(
      await compactWith(r, context),
      context,
      'context-length',
      /exceeded the model's context window \(HTTP 400\)/,
    );
  } finally {
    await r.close();
  }
});
