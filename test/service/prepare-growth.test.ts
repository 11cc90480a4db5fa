/**
 * A summary is prepared ahead only when the next model call may reach the trigger (judged by the
 * growth of recent calls): a session that stops short of the trigger makes no summarizer call, and
 * one whose steps are large enough gets its summary prepared one call ahead.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { A, S, U, chars, items as itemsOf } from '../support/conversation';
import { quarterCounter } from '../support/generate';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { itemsFromEntries } from '../../src/compaction/context';
import { thresholds } from '../../src/compaction/plan/budget';
import { NodeToolHost } from '../../src/agent/node-host';
import { serviceCompactions } from '../../src/service/compaction/service-compactions';
import { GROWTH_WINDOW, GrowthWatch } from '../../src/service/compaction/prepare-ahead';
import type { BudgetConfig, ChatMessage, ContextItem, SummaryRequest, SummaryResult } from '../../src/compaction/types';

const meter = new TokenMeter({ counter: quarterCounter });
const budget: BudgetConfig = { contextWindow: 8000, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 };

test('GrowthWatch reports the largest growth of recent calls, and starts afresh after a rewrite', () => {
  const g = new GrowthWatch();
  assert.equal(g.next(1000, 0), undefined, 'nothing seen yet');
  assert.equal(g.next(1500, 0), 500);
  assert.equal(g.next(1600, 0), 500);
  assert.equal(g.next(400, 1), undefined, 'a rewrite starts afresh');
  assert.equal(g.next(450, 1), 50);
  for (let k = 1; k < GROWTH_WINDOW; k++) assert.equal(g.next(450 + k * 10, 1), 50);
  assert.equal(g.next(450 + GROWTH_WINDOW * 10, 1), 10, `only the last ${GROWTH_WINDOW} calls count`);
});

/** Plays turns of about `stepTokens` tokens each from `startTokens`, a safe point before each reply; returns the summarizer calls. */
async function play(
  workspace: string,
  startTokens: number,
  stepTokens: number,
  steps: number,
): Promise<{ calls: number; used: number[] }> {
  const history: ChatMessage[] = [S('You are a coding agent.')];
  for (let k = 0; meter.measure(itemsOf(history)).total < startTokens; k++)
    history.push(U(`request ${k}: src/h${k}.ts`), A(`done ${k} ${chars(800, k)}`));
  let items: ContextItem[] = itemsOf(history);
  let version = 0;
  let calls = 0;
  const extractive = new ExtractiveSummarizer((x) => meter.countText(x));
  const summarizer = {
    name: extractive.name,
    summarize: (request: SummaryRequest): Promise<SummaryResult> => {
      calls++;
      return extractive.summarize(request);
    },
  };
  const compactions = serviceCompactions(
    { budget, host: new NodeToolHost(workspace), prepareAheadMargin: 0.1 },
    {
      items: () => items,
      tools: () => [],
      meter,
      summarizer,
      used: () => meter.measure(items).total,
      version: () => version,
      commit: (result) => {
        items = [...result.context];
        version++;
        return [];
      },
      setBusy: () => undefined,
      log: () => undefined,
    },
  );
  const used: number[] = [];
  const signal = new AbortController().signal;
  for (let k = 0; k < steps; k++) {
    items.push(...itemsFromEntries([{ id: `u${k}`, message: U(`step ${k}: ${chars(stepTokens * 4 - 40, k + 7)}`) }]));
    await compactions.atSafePoint(signal);
    await compactions.idle();
    used.push(meter.measure(items).total);
    items.push(...itemsFromEntries([{ id: `a${k}`, message: A(`ok ${k}`) }]));
  }
  compactions.cancel();
  return { calls, used };
}

test('no summary is prepared while the next call cannot reach the trigger; one is when it can', async (t) => {
  const workspace = mkdtempSync(path.join(tmpdir(), 'ck-prepare-growth-'));
  t.after(() => rmSync(workspace, { recursive: true, force: true }));
  const th = thresholds(budget);
  const band = th.triggerTokens - 0.1 * th.base;
  // Small steps inside the preparation band that stop short of the trigger.
  const short = await play(workspace, band - 600, 60, 14);
  assert.ok(
    short.used.filter((u) => u >= band).length >= 3 && short.used.every((u) => u < th.triggerTokens),
    `entered the band and stopped short of the trigger: ${short.used.join(', ')}`,
  );
  assert.equal(short.calls, 0, 'no summary was made for a trigger the session never reached');
  // Steps large enough that the next one may reach the trigger: prepared ahead, then applied.
  const large = await play(workspace, band - 200, 300, 6);
  assert.ok(large.calls >= 1, `a summary was made (${large.calls} calls; readings ${large.used.join(', ')})`);
  assert.ok(large.used.every((u) => u < th.inputBudget));
});
