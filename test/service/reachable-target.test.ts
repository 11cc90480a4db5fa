/**
 * When what a compaction may never summarise (system prompt, latest request, newest step) already
 * fills the target, the service's automatic compaction aims just above it (./reachable-target): the
 * summaries get a real budget instead of the smallest one, and the run stops at the first span that
 * reaches the raised aim.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { A, Acalls, S, T, U, chars, items as itemsOf } from '../support/conversation';
import { quarterCounter } from '../support/generate';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { MIN_SUMMARY_TOKENS } from '../../src/compaction/rewrite/compactor';
import { anchoredTokens } from '../../src/compaction/plan/anchored';
import { thresholds } from '../../src/compaction/plan/budget';
import { NodeToolHost } from '../../src/agent/node-host';
import { serviceCompactions } from '../../src/service/compaction/service-compactions';
import { NOTES_ROOM_SHARE, raiseTarget, raisedTargetCap } from '../../src/service/compaction/reachable-target';
import type { BudgetConfig, ChatMessage, ContextItem, SummaryRequest, SummaryResult } from '../../src/compaction/types';

const meter = new TokenMeter({ counter: quarterCounter });
const budget: BudgetConfig = { contextWindow: 8000, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 };

test('raiseTarget leaves a reachable target alone, aims above the never-summarised part otherwise, never past the cap', () => {
  const th = thresholds(budget);
  const band = th.triggerTokens - th.targetTokens;
  assert.equal(raiseTarget(budget, 1000), budget);
  assert.equal(raiseTarget(budget, th.targetTokens - NOTES_ROOM_SHARE * band), budget);
  const raised = raiseTarget(budget, th.targetTokens + 100);
  assert.equal(thresholds(raised).targetTokens, Math.floor(th.targetTokens + 100 + NOTES_ROOM_SHARE * band));
  assert.equal(thresholds(raised).triggerTokens, th.triggerTokens, 'the trigger does not move');
  const capped = raiseTarget(budget, th.triggerTokens);
  assert.equal(thresholds(capped).targetTokens, Math.floor(raisedTargetCap(budget)));
  assert.ok(thresholds(capped).targetTokens < th.triggerTokens);
});

/** History turns, then the latest request and a newest step whose result alone is most of the target. */
function conversation(): ChatMessage[] {
  const out: ChatMessage[] = [S('You are a coding agent.')];
  for (let k = 0; k < 6; k++) {
    out.push(
      U(`request ${k}: update src/mod${k}.ts`),
      Acalls([[`c${k}`, 'read_file', `{"path":"src/mod${k}.ts"}`]]),
      T(`c${k}`, `src/mod${k}.ts: ${chars(1600, k)}`),
      A(`done ${k}: edited src/mod${k}.ts ${chars(400, k + 1)}`),
    );
  }
  out.push(
    U('latest: run the whole test suite'),
    Acalls([['big', 'run_tests', '{"all":true}']]),
    T('big', chars(16_000, 99)),
  );
  return out;
}

test('an automatic compaction whose newest step fills the target gives its summary a real budget and makes one summarizer call', async (t) => {
  const workspace = mkdtempSync(path.join(tmpdir(), 'ck-reachable-'));
  t.after(() => rmSync(workspace, { recursive: true, force: true }));
  const th = thresholds(budget);
  let items: ContextItem[] = itemsOf(conversation());
  const anchored = anchoredTokens(items, meter, [], 1);
  assert.ok(
    anchored > th.targetTokens,
    `the never-summarised part (${anchored}) is over the target (${th.targetTokens})`,
  );
  assert.ok(meter.measure(items).total >= th.triggerTokens, 'the context is over the trigger');
  const extractive = new ExtractiveSummarizer((x) => meter.countText(x));
  const asked: number[] = [];
  const summarizer = {
    name: extractive.name,
    summarize: (request: SummaryRequest): Promise<SummaryResult> => {
      asked.push(request.approximateSummaryTokens);
      return extractive.summarize(request);
    },
  };
  let after = 0;
  const compactions = serviceCompactions(
    { budget, host: new NodeToolHost(workspace), prepareAheadMargin: 0 },
    {
      items: () => items,
      tools: () => [],
      meter,
      summarizer,
      used: () => meter.measure(items).total,
      version: () => 0,
      commit: (result) => {
        items = [...result.context];
        after = result.tokensAfter;
        return [];
      },
      setBusy: () => undefined,
      log: () => undefined,
    },
  );
  await compactions.atSafePoint(new AbortController().signal);
  compactions.cancel();
  assert.equal(compactions.stats.failures, 0);
  assert.equal(compactions.stats.automatic, 1, 'one automatic compaction applied');
  assert.equal(asked.length, 1, `one summarizer call (asked ${JSON.stringify(asked)})`);
  assert.ok(
    asked[0] > MIN_SUMMARY_TOKENS,
    `the summary was given ${asked[0]} tokens, more than the smallest budget (${MIN_SUMMARY_TOKENS})`,
  );
  assert.ok(
    after < th.triggerTokens && after <= raisedTargetCap(budget),
    `landed at ${after}, below the trigger (${th.triggerTokens}) and the cap (${raisedTargetCap(budget)})`,
  );
});
