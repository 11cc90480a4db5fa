/**
 * Summarizer failures reported against other agents, end to end: compactor → OpenAI summarizer →
 * real `openai` client → loopback server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatMessage, ContextItem, ToolSchema } from '../../src/compaction/types';
import {
  chunked,
  contextLengthExceeded,
  reset,
  scripted,
  stall,
  status,
  text,
} from '../../src/demo/modelserver/replies';
import type { ChatRequestBody } from '../../src/demo/modelserver/wire';
import { PREVIOUS_NOTES_OPEN } from '../../src/compaction/summary/summary-prompt';
import { CompactionGuard } from '../../src/compaction/rewrite/guard';
import { FallbackSummarizer } from '../../src/summarizers/fallback';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { pngDataUrl } from '../support/generate';
import { compact, estimateSummaryCalls } from '../../src/compaction/rewrite/compactor';
import {
  FIRST_REQUEST,
  GOOD_SUMMARY,
  budgetFor,
  compactWith,
  conversation,
  failureOf,
  items,
  quarterCount,
  quarterMeter,
  requestText,
  rig,
  transcriptOf,
} from './fixtures';
import { describeCompaction } from '../../src/compaction/outcome-text';

/** Prompt size of a recorded request as the stub provider measures it (characters / 4). */
function promptTokens(body: ChatRequestBody): number {
  return quarterCount(requestText(body));
}

/** A long history: S(2000 chars) + 40 messages of ~10k tokens in all, one of them T(c7, 16k chars). */
function longHistory(): ChatMessage[] {
  const out: ChatMessage[] = [
    { role: 'system', content: `You are a coding agent. ${'Follow the rules. '.repeat(110)}` },
  ];
  for (let t = 1; t <= 13; t++) {
    out.push({ role: 'user', content: t === 1 ? FIRST_REQUEST : `Step ${t}: continue. ${'details '.repeat(60)}` });
    out.push({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: `c${t}`, type: 'function', function: { name: 'read_file', arguments: `{"path":"src/f${t}.ts"}` } },
      ],
    });
    out.push({
      role: 'tool',
      tool_call_id: `c${t}`,
      content: t === 7 ? 'L'.repeat(16_000) : `contents of src/f${t}.ts `.repeat(60),
    });
  }
  out.push({ role: 'user', content: 'now add tests' });
  return out;
}

test('every summarizer request stays within W−R; the history is summarized in rolling batches and committed', async () => {
  const window = 8000;
  const reserved = 1000;
  let part = 0;
  const r = await rig(
    (body) => {
      if (promptTokens(body) > window - reserved) return contextLengthExceeded(promptTokens(body), window - reserved);
      part += 1;
      return text(`${GOOD_SUMMARY}\nNotes of part ${part}.`);
    },
    { contextWindow: window, replyTokens: reserved },
  );
  try {
    const context = items(longHistory());
    const result = await compactWith(r, context, { force: true, all: true });
    assert.equal(result.status.kind, 'applied', describeCompaction(result.status));
    assert.ok(r.server.requests.length >= 2, `batched into ${r.server.requests.length} calls`);
    for (const body of r.server.requests)
      assert.ok(promptTokens(body) <= window - reserved, `request of ${promptTokens(body)} tokens`);
    // Rolling: call k carries the notes of call k−1.
    for (let k = 1; k < r.server.requests.length; k++) {
      const prompt = requestText(r.server.requests[k]);
      assert.ok(
        prompt.includes(PREVIOUS_NOTES_OPEN) && prompt.includes(`Notes of part ${k}.`),
        `call ${k + 1} folds in part ${k}`,
      );
    }
    const cp = result.checkpoints.find((c) => c.strategy === 'summary');
    assert.equal(cp?.usage?.calls, r.server.requests.length);
    assert.ok(cp?.summary.includes(`Notes of part ${r.server.requests.length}.`));
  } finally {
    await r.close();
  }
});

test('a single message larger than a batch is clipped in the middle, not sent whole', async () => {
  const r = await rig(scripted([text(GOOD_SUMMARY)]), { contextWindow: 8000, replyTokens: 1000 });
  try {
    const messages = longHistory();
    (messages[21] as { content: string }).content = `HEAD-${'M'.repeat(60_000)}-TAIL`;
    const context = items(messages);
    const result = await compactWith(r, context, { force: true, all: true });
    assert.equal(result.status.kind, 'applied', describeCompaction(result.status));
    for (const body of r.server.requests) assert.ok(promptTokens(body) <= 7000);
    const withClip = r.server.requests.map(requestText).find((p) => p.includes('HEAD-'));
    assert.ok(
      withClip?.includes('-TAIL') && /characters omitted to fit the summarizer/.test(withClip),
      'head, tail and the marker',
    );
  } finally {
    await r.close();
  }
});

test('a span needing more calls than maxSummaryCalls is covered whole: the oldest part without a model, and the checkpoint says which', async () => {
  const r = await rig(scripted([text(GOOD_SUMMARY)]), { contextWindow: 8000, replyTokens: 1000 });
  try {
    const context = items(longHistory());
    const result = await compactWith(r, context, { force: true, all: true, maxSummaryCalls: 1 });
    assert.equal(result.status.kind, 'applied', describeCompaction(result.status));
    assert.equal(r.server.requests.length, 1, 'the call limit holds');
    const cp = result.checkpoints.find((c) => c.strategy === 'summary');
    assert.ok(cp, 'a summary checkpoint');
    assert.equal('dropped' in cp, false, 'no dropped count any more');
    const coverage = cp.coverage;
    assert.ok(coverage, 'the checkpoint says what the summary covers');
    assert.equal(coverage.messages, cp.replacedIds.length, 'every replaced message is covered');
    // The parts tile the span's messages without gaps, numbered in the conversation (the span
    // starts after the system prompt, message 1): nothing is left out.
    const first = context.findIndex((i) => i.id === cp.replacedIds[0]) + 1;
    assert.equal(first, 2);
    let next = first;
    for (const part of coverage.parts) {
      assert.equal(part.first, next);
      next = part.last + 1;
    }
    assert.equal(next, first + coverage.messages);
    const [early, read] = coverage.parts;
    assert.equal(early.writer, 'extractive');
    assert.equal(early.reason, 'call-limit');
    assert.equal(read.writer, 'model');
    assert.equal(read.calls, 1);
    assert.equal(coverage.maxCalls, 1);
    // The model is told positions within what it is sent; the summary says them in the conversation.
    const unread = early.last - first + 1;
    assert.match(
      cp.summary,
      new RegExp(`messages ${first}-${early.last} summarised without a model`),
      'the summary says so',
    );
    const prompt = requestText(r.server.requests[0]);
    assert.ok(!prompt.includes('[call c1]'), 'the oldest batch is not sent to the model');
    assert.ok(prompt.includes('src/f1.ts'), 'but notes extracted from it are');
    assert.ok(
      prompt.includes(`Messages 1-${unread} are more than the call limit lets you read`),
      'the model is told what it does not see',
    );
    assert.ok(prompt.includes('CSV export') && prompt.includes('public API'), 'the first user request is still given');
  } finally {
    await r.close();
  }
});

test('the call estimate made before a compaction is the number of calls it makes; with that many allowed, the model reads every message', async () => {
  const r = await rig(scripted([text(GOOD_SUMMARY)]), { contextWindow: 8000, replyTokens: 1000 });
  try {
    const context = items(longHistory());
    const meter = quarterMeter();
    const options = {
      budget: budgetFor(meter, context),
      trigger: 'auto' as const,
      noCollapse: true,
      force: true,
      all: true,
      maxSummaryCalls: 1,
    };
    const estimate = estimateSummaryCalls({ items: context, meter, summarizer: r.summarizer, options });
    assert.ok(estimate, 'a model summary is planned');
    assert.equal(estimate.limit, 1);
    assert.ok(estimate.needed > 1, `${estimate.needed} calls needed`);
    assert.equal(estimate.overLimit, estimate.needed - 1, 'calls over the limit: the user is asked first');
    // The user chose the calls it needs: the compaction makes exactly them and no part goes without a model.
    const result = await compactWith(r, context, { force: true, all: true, maxSummaryCalls: estimate.needed });
    assert.equal(result.status.kind, 'applied', describeCompaction(result.status));
    assert.equal(r.server.requests.length, estimate.needed);
    const cp = result.checkpoints.find((c) => c.strategy === 'summary');
    assert.deepEqual(
      cp?.coverage?.parts.map((p) => p.writer),
      ['model'],
    );
  } finally {
    await r.close();
  }
});

test('every call fails → context unchanged, error reported, retries bounded, breaker opens; a manual success resumes', async () => {
  let healthy = false;
  const r = await rig(() => (healthy ? text(GOOD_SUMMARY) : status(500, 'upstream down')), { maxRetries: 1 });
  try {
    const context = items(conversation());
    const guard = new CompactionGuard();
    let failures = 0;
    for (let call = 0; call < 12; call++) {
      guard.modelCallStarted();
      if (!guard.mayAutoCompact().allowed) continue;
      const result = await compactWith(r, context);
      assert.notEqual(result.status.kind, 'applied');
      assert.deepEqual(result.context, context);
      assert.deepEqual(result.checkpoints, []);
      assert.equal(failureOf(result)?.failure, 'server');
      assert.match(
        failureOf(result)?.message ?? '',
        /had a server error \(HTTP 500\) after 2 attempt\(s\): upstream down/,
      );
      guard.compactionFailed('auto');
      failures += 1;
    }
    assert.equal(failures, 3, 'backoff between attempts, then the breaker');
    assert.equal(r.server.requests.length, 6, 'two attempts (one SDK retry) per compaction');
    assert.equal(guard.status().paused, true);
    assert.equal(guard.status().pauseReason, 'failures');
    assert.equal(guard.mayAutoCompact().allowed, false);

    healthy = true;
    const manual = await compactWith(r, context, { trigger: 'manual', force: true });
    assert.equal(manual.status.kind, 'applied', describeCompaction(manual.status));
    guard.compactionSucceeded('manual', manual.tokensAfter, Number.MAX_SAFE_INTEGER);
    guard.modelCallStarted();
    assert.equal(guard.mayAutoCompact().allowed, true);
  } finally {
    await r.close();
  }
});

test('fallback chain — the session model once, then the extractive summarizer, clearly labelled', async () => {
  const primary = await rig(scripted([status(500, 'down')]));
  const session = await rig(scripted([status(503, 'also down')]), { model: 'session-model' });
  try {
    const context = items(conversation());
    const fallback = new FallbackSummarizer(primary.summarizer, {
      session: session.summarizer,
      extractive: new ExtractiveSummarizer(quarterCount),
    });
    const result = await compactWith({ summarizer: fallback }, context);
    assert.equal(result.status.kind, 'applied', describeCompaction(result.status));
    assert.equal(primary.server.requests.length, 1);
    assert.equal(session.server.requests.length, 1, 'the session model is tried once');
    assert.match(result.checkpoints[0]?.summarizerModel ?? '', /^extractive \(fallback: http\)$/);

    const noExtractive = new FallbackSummarizer(primary.summarizer, { session: session.summarizer });
    const failed = await compactWith({ summarizer: noExtractive }, context);
    assert.notEqual(failed.status.kind, 'applied');
    assert.match(
      failureOf(failed)?.message ?? '',
      /^every summarizer failed — summary-model: .*HTTP 500.*; session-model: .*HTTP 503/,
    );
  } finally {
    await primary.close();
    await session.close();
  }
});

test('a partial stream that breaks, or error-shaped text, is never committed', async () => {
  const r = await rig(scripted([reset(['The user asked'], 5), text('Error generating summary: timeout')]));
  try {
    const context = items(conversation());
    const broken = await compactWith(r, context);
    assert.notEqual(broken.status.kind, 'applied');
    assert.equal(failureOf(broken)?.failure, 'network');
    assert.deepEqual(broken.checkpoints, []);
    const errorText = await compactWith(r, context);
    assert.notEqual(errorText.status.kind, 'applied');
    assert.equal(failureOf(errorText)?.failure, 'bad-reply');
    assert.match(
      failureOf(errorText)?.message ?? '',
      /returned an error message instead of a summary: "Error generating summary: timeout"/,
    );
    assert.deepEqual(errorText.context, context);
  } finally {
    await r.close();
  }
});

test('nothing eligible → no model call', async () => {
  const r = await rig(scripted([text('## Objective\nnone')]));
  try {
    const context = items([
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'x'.repeat(30_000) },
      { role: 'assistant', content: 'Looking at it.' },
    ]);
    const result = await compactWith(r, context, { trigger: 'manual', force: true });
    assert.equal(r.server.requests.length, 0);
    assert.ok(!result.checkpoints.some((c) => c.strategy === 'summary'));
  } finally {
    await r.close();
  }
});

test('the summary request never carries tools, even when the session has tool schemas', async () => {
  const r = await rig(scripted([text(GOOD_SUMMARY)]));
  try {
    const tools: ToolSchema[] = [
      { type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: {} } } },
    ];
    const context = items(conversation());
    const meter = quarterMeter();
    const result = await compact({
      items: context,
      tools,
      meter,
      summarizer: r.summarizer,
      options: { budget: budgetFor(meter, context), trigger: 'auto', noCollapse: true },
    });
    assert.equal(result.status.kind, 'applied', describeCompaction(result.status));
    for (const body of r.server.requests) {
      assert.equal('tools' in body, false);
      assert.equal('tool_choice' in body, false);
      assert.equal('parallel_tool_calls' in body, false);
    }
  } finally {
    await r.close();
  }
});

test('kept messages are deep-equal to the originals (provider fields included); reasoning is stripped from the summarizer input', async () => {
  const r = await rig(scripted([text(GOOD_SUMMARY)]));
  try {
    const messages = conversation().map((m, i) =>
      m.role === 'assistant'
        ? ({
            ...m,
            reasoning_content: `SECRET-REASONING-${i}`,
            content:
              typeof m.content === 'string'
                ? `<thinking>hidden-thought-${i}</thinking>Visible ${m.content}`
                : m.content,
          } as ChatMessage)
        : m,
    );
    // The newest assistant message (kept) carries reasoning and a tool call.
    messages.splice(
      messages.length,
      0,
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'KEPT-REASONING',
        tool_calls: [{ id: 'k1', type: 'function', function: { name: 'run_tests', arguments: '{}' } }],
      } as ChatMessage,
      { role: 'tool', tool_call_id: 'k1', content: 'ok' },
    );
    const context = items(messages);
    const snapshot = structuredClone(context);
    const result = await compactWith(r, context);
    assert.equal(result.status.kind, 'applied', describeCompaction(result.status));
    const kept = result.context.filter((i) => i.kind === 'raw');
    assert.ok(kept.length > 0);
    for (const item of kept) {
      const original = snapshot.find((s) => s.id === item.id);
      assert.deepEqual(item, original);
    }
    assert.deepEqual(result.context.slice(-3), snapshot.slice(-3));
    const prompt = requestText(r.server.requests[0]);
    assert.ok(
      !prompt.includes('SECRET-REASONING') && !prompt.includes('hidden-thought'),
      'no reasoning in the summarizer input',
    );
    assert.ok(prompt.includes('Visible Read src/part1.ts'));
  } finally {
    await r.close();
  }
});

test('images reach the summarizer as placeholders, never as base64', async () => {
  const r = await rig(scripted([text(GOOD_SUMMARY)]));
  try {
    const messages = conversation();
    messages[1] = {
      role: 'user',
      content: [
        { type: 'text', text: FIRST_REQUEST },
        { type: 'image_url', image_url: { url: pngDataUrl(2500, 1400, 6000) } },
      ],
    };
    const context = items(messages);
    const result = await compactWith(r, context);
    assert.equal(result.status.kind, 'applied', describeCompaction(result.status));
    const raw = JSON.stringify(r.server.requests);
    assert.ok(!raw.includes('base64') && !raw.includes('iVBORw0KGgo'), 'no image bytes in the request');
    assert.ok(requestText(r.server.requests[0]).includes('[image 2500x1400 png]'));
  } finally {
    await r.close();
  }
});

test('the first user request is in the summarizer input, inside the data', async () => {
  const r = await rig(scripted([text(GOOD_SUMMARY)]));
  try {
    const context = items(conversation(10));
    const result = await compactWith(r, context);
    assert.equal(result.status.kind, 'applied', describeCompaction(result.status));
    const prompt = requestText(r.server.requests[0]);
    assert.ok(prompt.includes('CSV export') && prompt.includes('public API'));
    assert.ok(transcriptOf(r.server.requests[0]).includes(`[user]\n${FIRST_REQUEST}`));
    // The latest request stays verbatim as the last message, after the summary.
    assert.deepEqual(result.context.at(-1)?.message, { role: 'user', content: 'now add tests' });
  } finally {
    await r.close();
  }
});

test('the summary enters as a labelled user message, never system; the guard blocks a back-to-back automatic compaction', async () => {
  const r = await rig(scripted([text(GOOD_SUMMARY)]));
  try {
    const context = items(conversation());
    const guard = new CompactionGuard();
    guard.modelCallStarted();
    assert.equal(guard.mayAutoCompact().allowed, true);
    const result = await compactWith(r, context);
    assert.equal(result.status.kind, 'applied', describeCompaction(result.status));
    guard.compactionSucceeded('auto', result.tokensAfter, Math.ceil(result.tokensBefore * 0.95));
    const summary = result.context.find((i) => i.kind === 'summary');
    assert.equal(summary?.message.role, 'user');
    assert.match(String(summary?.message.content), /historical context, not a new request/);
    assert.equal(result.context.filter((i) => i.message.role === 'system').length, 1);
    assert.equal(result.context[0]?.message.role, 'system');
    assert.equal(guard.mayAutoCompact().allowed, false, 'at most one automatic compaction per model call');
  } finally {
    await r.close();
  }
});

test('cancelling a slow streamed summary leaves the context unchanged and returns promptly', async () => {
  const r = await rig(
    scripted([
      chunked(
        Array.from({ length: 40 }, (_, i) => `token${i} `),
        50,
      ),
    ]),
  );
  try {
    const context = items(conversation());
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 300);
    const result = await compactWith(r, context, { signal: controller.signal });
    const elapsed = Date.now() - started;
    assert.notEqual(result.status.kind, 'applied');
    assert.equal(failureOf(result)?.failure, 'cancelled');
    assert.deepEqual(result.checkpoints, []);
    assert.deepEqual(result.context, context);
    assert.ok(elapsed < 1000, `returned after ${elapsed} ms`);
    assert.equal(r.server.requests.length, 1);
  } finally {
    await r.close();
  }
});

test('cancelling during the SDK back-off after a 429 returns at once and sends no further request', async () => {
  const r = await rig(scripted([status(429, 'slow down', 2), text(GOOD_SUMMARY)]), { maxRetries: 2 });
  try {
    const context = items(conversation());
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const result = await compactWith(r, context, { signal: controller.signal });
    assert.ok(Date.now() - started < 1000);
    assert.equal(failureOf(result)?.failure, 'cancelled');
    assert.deepEqual(result.context, context);
    assert.equal(r.server.requests.length, 1);
  } finally {
    await r.close();
  }
});

test('after a summarizer timeout the session is usable and the next compaction succeeds', async () => {
  const r = await rig(scripted([stall(), text(GOOD_SUMMARY)]), { timeoutMs: 200 });
  try {
    const context: ContextItem[] = items(conversation());
    const first = await compactWith(r, context);
    assert.notEqual(first.status.kind, 'applied');
    assert.equal(failureOf(first)?.failure, 'timeout');
    assert.deepEqual(first.context, context);
    const second = await compactWith(r, first.context);
    assert.equal(second.status.kind, 'applied', describeCompaction(second.status));
    assert.equal(r.server.requests.length, 2);
  } finally {
    await r.close();
  }
});
