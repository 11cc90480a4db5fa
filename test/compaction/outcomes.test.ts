/**
 * The compaction core's typed outcome: every kind of `CompactionResult.status`, with its figures,
 * the mapping of summarizer errors to failure kinds, and the text rendered from each status.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A, Acalls, S, T, U, chars, items } from '../support/conversation';
import { quarterCounter } from '../support/generate';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { compact, prepareCompaction } from '../../src/compaction/rewrite/compactor';
import {
  failureKind,
  isQuietStatus,
  type CompactionStatus,
  type SummarizerFailureKind,
} from '../../src/compaction/outcome';
import { describeCompaction } from '../../src/compaction/outcome-text';
import {
  SummarizerError,
  type BudgetConfig,
  type ChatMessage,
  type CompactionOptions,
  type ContextItem,
  type Summarizer,
} from '../../src/compaction/types';
import { commitPrepared } from '../../src/compaction/rewrite/commit';

const meter = new TokenMeter({ counter: quarterCounter });
const extractive = (): Summarizer => new ExtractiveSummarizer((t) => meter.countText(t));
const budget = (contextWindow: number, extra: Partial<BudgetConfig> = {}): BudgetConfig => ({
  contextWindow,
  reservedOutput: 0,
  compactAt: 0.8,
  compactTo: 0.5,
  ...extra,
});

async function run(
  msgs: ChatMessage[],
  b: BudgetConfig,
  opts: Partial<CompactionOptions> = {},
  summarizer: Summarizer = extractive(),
) {
  return compact({ items: items(msgs), meter, summarizer, options: { budget: b, trigger: 'auto', ...opts } });
}

/** A long history the extractive summarizer can shrink. */
function history(turns: number): ChatMessage[] {
  const out: ChatMessage[] = [S('agent')];
  for (let k = 0; k < turns; k++) out.push(U(`turn ${k} ${chars(600, k)}`), A(`reply ${k} ${chars(600, k + 3)}`));
  out.push(U('latest request'));
  return out;
}

/** A summarizer that always fails with `error`. */
function failing(error: unknown): Summarizer {
  return { name: 'model', summarize: () => Promise.reject(error) };
}

test('applied: the status carries the figures of the result', async () => {
  const r = await run(history(20), budget(4000), { force: true });
  assert.equal(r.status.kind, 'applied', describeCompaction(r.status));
  if (r.status.kind !== 'applied') return;
  assert.equal(r.status.tokensBefore, r.tokensBefore);
  assert.equal(r.status.tokensAfter, r.tokensAfter);
  assert.equal(r.status.checkpoints, r.checkpoints.length);
  assert.deepEqual(
    r.status.steps,
    r.checkpoints.map((c) => ({ strategy: c.strategy, tokensBefore: c.tokensBefore, tokensAfter: c.tokensAfter })),
  );
  assert.match(describeCompaction(r.status), /^compacted [\d,]+ → [\d,]+ tokens by the extractive summarizer$/);
});

test('applied above the target: the status says what holds the anchored tokens', async () => {
  // A huge system prompt can never be summarised: the result stays above the target.
  const msgs: ChatMessage[] = [S(chars(9000)), U('old request ' + chars(3000)), A(chars(3000, 2)), U('new request')];
  const r = await run(msgs, budget(4000), { force: true, trigger: 'manual' });
  assert.equal(r.status.kind, 'applied', describeCompaction(r.status));
  if (r.status.kind !== 'applied') return;
  assert.ok(r.status.anchored, 'anchored breakdown given');
  assert.ok(r.status.anchored.system >= 2000, `system prompt tokens ${r.status.anchored.system}`);
  assert.equal(r.status.targetTokens, 2000);
  assert.equal(
    r.status.anchored.total,
    r.status.anchored.system +
      r.status.anchored.tools +
      r.status.anchored.replyStart +
      r.status.anchored.latestRequest +
      r.status.anchored.recentSteps +
      r.status.anchored.pinned,
  );
  assert.match(
    describeCompaction(r.status),
    /what is never summarized holds [\d,]+ tokens \(system prompt [\d,]+.*\), over the target of [\d,]+/,
  );
});

test('not needed: below the trigger and already small carry the limit they were measured against', async () => {
  const below = await run(history(2), budget(100_000));
  assert.deepEqual(below.status, {
    kind: 'not-needed',
    why: 'below-trigger',
    tokens: below.tokensBefore,
    limitTokens: 80_000,
  });
  assert.match(describeCompaction(below.status), /^below the trigger: [\d,]+ of 80,000 tokens$/);
  const small = await run(history(2), budget(100_000), { force: true });
  assert.deepEqual(small.status, {
    kind: 'not-needed',
    why: 'already-small',
    tokens: small.tokensBefore,
    limitTokens: 50_000,
  });
  assert.ok(isQuietStatus(below.status) && isQuietStatus(small.status));
});

test('nothing eligible: the status names what holds everything', async () => {
  const r = await run([S('s'), U(`please review this paste:\n${chars(30_000)}`), A('reviewing')], budget(9000), {
    force: true,
  });
  assert.equal(r.status.kind, 'nothing-eligible');
  if (r.status.kind !== 'nothing-eligible') return;
  assert.ok(r.status.heldBy.includes('latest user message'), r.status.heldBy.join(', '));
  assert.equal(
    describeCompaction(r.status),
    'nothing to compact: all that is left is the leading system messages, the latest user message and the recent agent steps kept verbatim',
  );
  assert.ok(isQuietStatus(r.status));
});

test('does not fit: an automatic compaction that cannot get below its trigger gives the best size and what holds it', async () => {
  const msgs = [
    S(chars(8000)),
    ...Array.from({ length: 10 }, (_, k) => (k % 2 ? A(chars(800, k)) : U(chars(800, k)))),
    U('now check'),
    Acalls([
      ['c1', 'r'],
      ['c2', 'r'],
      ['c3', 'r'],
    ]),
    T('c1', chars(40_000, 1)),
    T('c2', chars(40_000, 2)),
    T('c3', chars(40_000, 3)),
  ];
  const r = await run(msgs, budget(64_000, { compactAt: 0.5, compactTo: 0.3 }), { keepRecentSteps: 1 });
  assert.notEqual(r.status.kind, 'applied');
  assert.equal(r.status.kind, 'does-not-fit');
  if (r.status.kind !== 'does-not-fit') return;
  assert.equal(r.status.limitTokens, 32_000);
  assert.ok(r.status.bestTokens >= r.status.limitTokens, `best ${r.status.bestTokens}`);
  assert.ok(
    r.status.anchored && r.status.anchored.recentSteps > 25_000,
    `newest step tokens ${r.status.anchored?.recentSteps}`,
  );
  assert.ok(r.status.anchored.system >= 1900, `system tokens ${r.status.anchored.system}`);
  const text = describeCompaction(r.status);
  assert.match(
    text,
    /^cannot get below 32,000 tokens: at best [\d,]+; it is held by newest steps [\d,]+, system prompt [\d,]+/,
  );
  assert.equal(isQuietStatus(r.status), false);
});

test('stale: a prepared compaction whose messages changed is not applied', async () => {
  const ctx = items(history(20));
  const prepared = await prepareCompaction({
    items: ctx,
    meter,
    summarizer: extractive(),
    options: { budget: budget(4000), trigger: 'manual', force: true },
  });
  assert.ok(!('status' in prepared));
  const changed: ContextItem[] = ctx.map((it, i) => (i === 2 ? { ...it, id: 'replaced-meanwhile' } : it));
  const r = commitPrepared(changed, prepared, meter);
  assert.deepEqual(r.status, { kind: 'stale' });
});

test('would break pairing: a rewrite that leaves a tool result without its call is refused', async () => {
  const ctx = items([
    S('s'),
    U('go'),
    Acalls([['c1', 'read_file', JSON.stringify({ path: chars(4000) })]]),
    T('c1', 'ok'),
    U('next'),
  ]);
  const call = ctx[2];
  const summary: ContextItem = {
    id: 'cp1~s',
    kind: 'summary',
    message: { role: 'user', content: 'summary' },
    covers: [...call.covers],
    checkpointId: 'cp1',
  };
  const prepared = {
    checkpoints: [
      {
        id: 'cp1',
        time: new Date(0).toISOString(),
        trigger: 'manual' as const,
        strategy: 'summary' as const,
        replacedIds: [],
        replaced: [call],
        inserted: [summary],
        summary: 'summary',
        tokensBefore: 0,
        tokensAfter: 0,
      },
    ],
    tokensBefore: 0,
    tokensAfter: 0,
    reason: '',
    startedAt: Date.now(),
  };
  const r = commitPrepared(ctx, prepared, meter);
  assert.notEqual(r.status.kind, 'applied');
  assert.equal(r.status.kind, 'would-break-pairing');
  if (r.status.kind !== 'would-break-pairing') return;
  assert.ok(r.status.detail.length > 0);
  assert.equal(
    describeCompaction(r.status),
    `compaction not applied: it would break tool pairing (${r.status.detail})`,
  );
});

test('summarizer failed: each kind of summarizer error becomes its failure kind, with its status and message', async () => {
  const cases: Array<[SummarizerError | Error, SummarizerFailureKind, number | undefined]> = [
    [new SummarizerError('could not reach the summarizer', 'http'), 'network', undefined],
    [new SummarizerError('rejected the API key (HTTP 401)', 'http', { status: 401 }), 'auth', 401],
    [new SummarizerError('forbidden (HTTP 403)', 'http', { status: 403 }), 'auth', 403],
    [new SummarizerError('no such model (HTTP 404)', 'http', { status: 404 }), 'model-not-found', 404],
    [new SummarizerError('slow down (HTTP 429)', 'http', { status: 429 }), 'rate-limit', 429],
    [new SummarizerError('boom (HTTP 503)', 'http', { status: 503 }), 'server', 503],
    [new SummarizerError('bad request (HTTP 400)', 'http', { status: 400 }), 'rejected', 400],
    [new SummarizerError('no answer', 'timeout'), 'timeout', undefined],
    [new SummarizerError('too long for the window', 'overflow', { status: 400 }), 'context-length', 400],
    [new SummarizerError('cut off', 'truncated'), 'bad-reply', undefined],
    [new SummarizerError('a tool call', 'tool-call'), 'bad-reply', undefined],
    [new SummarizerError('empty', 'empty'), 'bad-reply', undefined],
    [new SummarizerError('I cannot help', 'refusal'), 'refusal', undefined],
    [new SummarizerError('cancelled', 'aborted'), 'cancelled', undefined],
    [new Error('a plain bug'), 'bad-reply', undefined],
  ];
  for (const [error, failure, status] of cases) {
    const r = await run(history(20), budget(4000), { force: true }, failing(error));
    assert.notEqual(r.status.kind, 'applied');
    assert.equal(r.status.kind, 'summarizer-failed', error.message);
    if (r.status.kind !== 'summarizer-failed') continue;
    assert.equal(r.status.failure, failure, error.message);
    assert.equal(r.status.status, status, error.message);
    assert.ok(r.status.message.includes(error.message), r.status.message);
    const text = describeCompaction(r.status);
    if (failure === 'cancelled') assert.equal(text, 'compaction cancelled; the context is unchanged');
    else
      assert.ok(text.startsWith('compaction failed, the context is unchanged: ') && text.includes(error.message), text);
    assert.equal(isQuietStatus(r.status), failure === 'cancelled');
  }
});

test('summarizer failed: an empty summary and a summary that does not shrink are failures too', async () => {
  const empty: Summarizer = {
    name: 'model',
    summarize: async () => ({
      text: '  ',
      model: 'm',
      usage: { calls: 1, promptTokens: 1, completionTokens: 0 },
    }),
  };
  const r1 = await run(history(20), budget(4000), { force: true }, empty);
  assert.equal(r1.status.kind === 'summarizer-failed' && r1.status.failure, 'bad-reply');
  const long: Summarizer = {
    name: 'extractive',
    summarize: async () => ({
      text: chars(200_000),
      model: 'm',
      usage: { calls: 1, promptTokens: 1, completionTokens: 1 },
    }),
  };
  const r2 = await run(history(20), budget(4000), { force: true }, long);
  assert.equal(r2.status.kind === 'summarizer-failed' && r2.status.failure, 'no-shrink');
});

test('failureKind maps by kind and HTTP status alone', () => {
  assert.equal(failureKind({ kind: 'http', status: 401 }), 'auth');
  assert.equal(failureKind({ kind: 'http', status: undefined }), 'network');
  assert.equal(failureKind({ kind: 'invalid', status: undefined }), 'bad-reply');
  assert.equal(failureKind({ kind: 'no-shrink', status: undefined }), 'no-shrink');
});

test('every status kind renders a non-empty sentence', () => {
  const all: CompactionStatus[] = [
    { kind: 'applied', tokensBefore: 5000, tokensAfter: 2000, checkpoints: 1, steps: [] },
    { kind: 'not-needed', why: 'below-trigger', tokens: 10, limitTokens: 20 },
    { kind: 'nothing-eligible', heldBy: [] },
    { kind: 'would-break-pairing', detail: 'x' },
    { kind: 'does-not-fit', bestTokens: 30, limitTokens: 20 },
    { kind: 'stale' },
    { kind: 'summarizer-failed', failure: 'auth', message: 'no', status: 401 },
  ];
  for (const s of all) assert.ok(describeCompaction(s).length > 10, s.kind);
  assert.equal(describeCompaction(all[2]), 'nothing to compact: everything left must stay as it is');
  assert.equal(describeCompaction(all[0]), 'compacted 5,000 → 2,000 tokens');
});

test('an applied compaction names the one summarizer that wrote it, and breaks the figures down only when two did', () => {
  const applied = (steps: Array<[string, number, number]>): CompactionStatus => ({
    kind: 'applied',
    tokensBefore: steps[0][1],
    tokensAfter: steps.at(-1)![2],
    checkpoints: steps.length,
    steps: steps.map(([strategy, tokensBefore, tokensAfter]) => ({ strategy, tokensBefore, tokensAfter })),
  });
  assert.equal(
    describeCompaction(applied([['extractive', 364_675, 31_348]])),
    'compacted 364,675 → 31,348 tokens by the extractive summarizer',
  );
  assert.equal(
    describeCompaction(applied([['summary', 9_000, 4_000]])),
    'compacted 9,000 → 4,000 tokens by the summary model',
  );
  assert.equal(
    describeCompaction(
      applied([
        ['collapse', 12_000, 10_000],
        ['extractive', 10_000, 4_000],
      ]),
    ),
    'compacted 12,000 → 4,000 tokens by collapsing tool results and the extractive summarizer',
  );
  assert.equal(
    describeCompaction(
      applied([
        ['summary', 20_000, 9_000],
        ['extractive', 9_000, 4_000],
      ]),
    ),
    'compacted 20,000 → 4,000 tokens (summary model 20,000 → 9,000, extractive summarizer 9,000 → 4,000)',
  );
  // Whatever the steps, no figure of one writer's compaction is given twice.
  for (const steps of [
    [['extractive', 5_000, 2_000]],
    [
      ['clip', 5_000, 4_000],
      ['summary', 4_000, 2_000],
    ],
  ] as Array<Array<[string, number, number]>>) {
    const figures = describeCompaction(applied(steps)).match(/[\d,]{4,}/g) ?? [];
    assert.equal(new Set(figures).size, figures.length, figures.join(' '));
  }
});
