/**
 * A summary the extractive summarizer wrote because the model call failed (the fallback) says so,
 * with the failure, wherever the checkpoint is shown: its coverage, the summary's own coverage line,
 * the checkpoint document and the divider in the transcript.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { status, scripted } from '../../src/demo/modelserver/replies';
import { FallbackSummarizer } from '../../src/summarizers/fallback';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { describeCoverage, unreadByModel } from '../../src/compaction/summary/coverage';
import { placeCompactions } from '../../src/views/sidebar/compaction-dividers';
import { compactionHeadline } from '../../src/webview/shared/compaction-headline';
import type * as Documents from '../../src/views/documents/checkpoint-documents';
import type { CheckpointRecord } from '../../src/service/records';
import { loadWithVscodeShim } from '../support/vscode-shim';
import { compactWith, conversation, items, quarterCount, rig } from './fixtures';
import { describeCompaction } from '../../src/compaction/outcome-text';
import { SummarizerError, type Summarizer, type SummaryRequest } from '../../src/compaction/types';

const { renderCheckpoint } = loadWithVscodeShim<typeof Documents>(
  path.join(__dirname, '../../src/views/documents/checkpoint-documents'),
);

test('the extractive fallback after a failed model call is labelled with the failure in the checkpoint, the summary, the document and the divider', async (t) => {
  const primary = await rig(scripted([status(500, 'upstream down')]));
  t.after(() => primary.close());
  const context = items(conversation());
  const fallback = new FallbackSummarizer(primary.summarizer, { extractive: new ExtractiveSummarizer(quarterCount) });
  const result = await compactWith({ summarizer: fallback }, context);
  assert.equal(result.status.kind, 'applied', describeCompaction(result.status));
  const cp = result.checkpoints.find((c) => c.strategy === 'summary' || c.strategy === 'extractive');
  assert.ok(cp);
  assert.equal(cp.strategy, 'extractive', 'no model wrote it');
  assert.match(cp.summarizerModel ?? '', /^extractive \(fallback: http\)$/);
  assert.ok((cp.usage?.calls ?? 0) >= 1, `the failed model call is counted: ${JSON.stringify(cp.usage)}`);

  // The checkpoint: every replaced message, written without a model, and why.
  const coverage = cp.coverage!;
  assert.equal(coverage.messages, cp.replacedIds.length);
  assert.equal(coverage.parts.length, 1);
  const [part] = coverage.parts;
  assert.equal(part.writer, 'extractive');
  assert.equal(part.reason, 'model-failed');
  assert.match(part.failure ?? '', /HTTP 500.*upstream down/);
  assert.equal(unreadByModel(coverage), cp.replacedIds.length);
  const first = context.findIndex((i) => i.id === cp.replacedIds[0]) + 1;
  const line = describeCoverage(coverage);
  assert.match(
    line,
    new RegExp(
      `^messages ${first}-${first + coverage.messages - 1}; ${coverage.messages} summarised without a model because the model call failed: .*HTTP 500.*upstream down`,
    ),
  );

  // The summary itself tells the agent its notes had no model (the failure's details stay out of it).
  assert.match(cp.summary, /summarised without a model \(extracted notes\) because the model call failed\./);
  assert.doesNotMatch(cp.summary, /HTTP 500/);

  // The checkpoint document.
  const record = cp as CheckpointRecord;
  assert.ok(renderCheckpoint(record).includes(`| Covers | ${line} |`), renderCheckpoint(record));

  // The divider in the transcript.
  const entries = new Map(context.map((i) => [i.id, { id: i.id, message: i.message }]));
  const order = context.map((i) => i.id);
  const placed = placeCompactions([record], order, entries, new Map(order.map((id) => [id, id])), undefined);
  const view = placed.compactions[0];
  assert.equal(view.withoutModel, cp.replacedIds.length);
  assert.ok(compactionHeadline(view).endsWith(`1 summary, ${line}`), compactionHeadline(view));
});

test('a model that works leaves no fallback label', async (t) => {
  const primary = await rig(() => ({ content: '## Objective\nCSV export.\n## Work completed\n- read files' }));
  t.after(() => primary.close());
  const fallback = new FallbackSummarizer(primary.summarizer, { extractive: new ExtractiveSummarizer(quarterCount) });
  const result = await compactWith({ summarizer: fallback }, items(conversation()));
  assert.equal(result.status.kind, 'applied', describeCompaction(result.status));
  const cp = result.checkpoints.find((c) => c.strategy === 'summary');
  assert.ok(cp, 'the model wrote the summary');
  assert.equal(unreadByModel(cp.coverage), 0);
  assert.doesNotMatch(describeCoverage(cp.coverage!), /without a model/);
});

test('a summarizer that failed on one span is not asked again for the same compaction; a new compaction tries it again', async () => {
  const calls = { primary: 0, session: 0 };
  const failing = (name: 'primary' | 'session'): Summarizer => ({
    name,
    summarize: async () => {
      calls[name]++;
      throw new SummarizerError(`${name} is down`, 'http');
    },
  });
  const fallback = new FallbackSummarizer(failing('primary'), {
    session: failing('session'),
    extractive: new ExtractiveSummarizer(quarterCount),
  });
  const context = items(conversation());
  const run = {};
  const span = (start: number, end: number, compactionRun: object): SummaryRequest => ({
    items: context.slice(start, end),
    userRequests: [],
    approximateSummaryTokens: 200,
    maxCalls: 4,
    // Every compaction of a session sees the same context array until one applies (a preview
    // discarded, a compaction that failed): only the run tells compactions apart.
    context: { items: context, start, end, tokens: 0 },
    compactionRun,
  });
  const first = await fallback.summarize(span(1, 4, run));
  const second = await fallback.summarize(span(4, 7, run));
  assert.deepEqual(calls, { primary: 1, session: 1 }, 'one failed call each for the whole compaction');
  assert.equal(first.usage.calls, 2, 'the two failed calls are counted once');
  assert.equal(second.usage.calls, 0);
  for (const r of [first, second]) assert.match(r.model, /^extractive \(fallback: http\)$/);
  assert.match(second.coverage?.parts[0]?.failure ?? '', /primary is down/, 'the later span names the first failure');

  // The next compaction of the same, unchanged context asks the model again: the endpoint may be back.
  await fallback.summarize(span(1, 4, {}));
  assert.deepEqual(calls, { primary: 2, session: 2 });
});
