/**
 * How deep an automatic compaction lands (./landing): lower when recent calls grow so fast that the
 * target would buy only a few calls, and, when the summary reuses the agent's cached prefix, lower
 * once the compaction summarises at all; a compaction the collapse tier completes keeps its target.
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
import { prepareCompaction } from '../../src/compaction/rewrite/compactor';
import { itemsFromEntries } from '../../src/compaction/context';
import { thresholds } from '../../src/compaction/plan/budget';
import { NodeToolHost } from '../../src/agent/node-host';
import { serviceCompactions } from '../../src/service/compaction/service-compactions';
import {
  CACHED_PREFIX_DEEPER,
  LOWEST_LANDING,
  MIN_CALLS_BOUGHT,
  automaticAim,
  cachedPrefixCompactTo,
  landingCompactTo,
} from '../../src/service/compaction/landing';
import type {
  BudgetConfig,
  ChatMessage,
  ContextItem,
  Summarizer,
  SummaryRequest,
  SummaryResult,
} from '../../src/compaction/types';

const meter = new TokenMeter({ counter: quarterCounter });
const budget: BudgetConfig = { contextWindow: 8000, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 };
const th = thresholds(budget);
const band = th.triggerTokens - th.targetTokens;

test('the target stands while it buys enough calls at the recent growth; faster growth lowers it to buy them, never below the floor', () => {
  assert.equal(landingCompactTo(budget, {}), budget.compactTo, 'no growth seen yet');
  assert.equal(
    landingCompactTo(budget, { growth: band / MIN_CALLS_BOUGHT }),
    budget.compactTo,
    'the band holds exactly enough calls',
  );
  const growth = band / 2;
  const lowered = landingCompactTo(budget, { growth });
  assert.ok(lowered < budget.compactTo);
  assert.ok(
    Math.abs(th.triggerTokens - lowered * th.base - MIN_CALLS_BOUGHT * growth) < 1,
    'the trigger is the wanted number of calls away',
  );
  assert.equal(landingCompactTo(budget, { growth: th.triggerTokens }), LOWEST_LANDING, 'floored');
});

test('with the cached prefix the deeper aim is a share of the band below the target; without it there is none', () => {
  const deeper = cachedPrefixCompactTo(budget);
  assert.ok(Math.abs(deeper * th.base - (th.targetTokens - CACHED_PREFIX_DEEPER * band)) < 1);
  assert.equal(automaticAim(budget, 0, {}).deeperCompactTo, undefined);
  assert.equal(automaticAim(budget, 0, { reusesPrefix: true }).deeperCompactTo, deeper);
  assert.deepEqual(automaticAim(budget, 0, { reusesPrefix: true }).budget, budget, 'the aim itself is unchanged');
  // What may never be summarised still raises the deeper aim above it (the notes get room).
  const anchored = th.targetTokens - 0.2 * band;
  const raised = automaticAim(budget, anchored, { reusesPrefix: true });
  assert.equal(raised.budget.compactTo, budget.compactTo, 'the target itself is reachable');
  assert.ok(
    raised.deeperCompactTo !== undefined &&
      raised.deeperCompactTo * th.base > anchored &&
      raised.deeperCompactTo < cachedPrefixCompactTo(budget) + (0.2 * band) / th.base,
    `deeper aim ${raised.deeperCompactTo} raised above ${anchored} tokens`,
  );
  assert.ok(raised.deeperCompactTo < budget.compactTo);
});

/** History turns of about `turnTokens` each, then a latest request and its newest step. */
function conversation(turns: number, turnTokens: number): ChatMessage[] {
  const out: ChatMessage[] = [S('You are a coding agent.')];
  for (let k = 0; k < turns; k++) {
    out.push(
      U(`request ${k}: update src/mod${k}.ts`),
      Acalls([[`c${k}`, 'read_file', `{"path":"src/mod${k}.ts"}`]]),
      T(`c${k}`, `src/mod${k}.ts: ${chars(turnTokens * 3, k)}`),
      A(`done ${k}: edited src/mod${k}.ts`),
    );
  }
  out.push(U('latest: run the tests'), Acalls([['last', 'run_tests', '{}']]), T('last', 'ok'));
  return out;
}

/** Counts the summarizer calls of an extractive summarizer. */
function counting(): Summarizer & { calls: number } {
  const extractive = new ExtractiveSummarizer((x) => meter.countText(x));
  return {
    name: extractive.name,
    calls: 0,
    summarize(request: SummaryRequest): Promise<SummaryResult> {
      this.calls++;
      return extractive.summarize(request);
    },
  };
}

test('the compactor aims at the deeper target only when it summarises anyway', async () => {
  const deeper = cachedPrefixCompactTo(budget);
  // Tool results of old steps collapse to one-line records: enough on their own to reach the target.
  const collapsible = itemsOf(conversation(10, 800));
  const s1 = counting();
  const onlyCollapse = await prepareCompaction({
    items: collapsible,
    meter,
    summarizer: s1,
    options: { budget, trigger: 'auto', force: true, deeperCompactTo: deeper },
  });
  assert.ok(!('status' in onlyCollapse), 'prepared');
  assert.ok(
    onlyCollapse.checkpoints.every((c) => c.strategy === 'collapse'),
    onlyCollapse.checkpoints.map((c) => c.strategy).join(','),
  );
  assert.equal(s1.calls, 0);
  assert.equal(onlyCollapse.targetTokens, th.targetTokens, 'the target of the budget');
  // Without tool results to collapse, the target needs a summary: it then aims deeper.
  const prose: ChatMessage[] = [S('You are a coding agent.')];
  for (let k = 0; k < 10; k++)
    prose.push(U(`request ${k}: explain src/mod${k}.ts`), A(`explained ${k}: ${chars(2000, k)}`));
  prose.push(U('latest: summarise the plan'));
  const s2 = counting();
  const plain = await prepareCompaction({
    items: itemsOf(prose),
    meter,
    summarizer: counting(),
    options: { budget, trigger: 'auto', force: true },
  });
  const deep = await prepareCompaction({
    items: itemsOf(prose),
    meter,
    summarizer: s2,
    options: { budget, trigger: 'auto', force: true, deeperCompactTo: deeper },
  });
  assert.ok(!('status' in plain) && !('status' in deep));
  assert.ok(s2.calls >= 1);
  assert.equal(deep.targetTokens, Math.floor(deeper * th.base));
  assert.ok(deep.tokensAfter <= deep.targetTokens, `${deep.tokensAfter} within ${deep.targetTokens}`);
  assert.ok(deep.tokensAfter < plain.tokensAfter, `${deep.tokensAfter} below ${plain.tokensAfter}`);
});

/** Plays `steps` user messages of `stepTokens` each through the service's coordinator; the readings after each safe point. */
async function play(
  summarizer: Summarizer,
  stepTokens: number,
  steps: number,
): Promise<{ used: number[]; compactions: number[] }> {
  const workspace = mkdtempSync(path.join(tmpdir(), 'ck-landing-'));
  let items: ContextItem[] = itemsOf([S('You are a coding agent.'), U('first request: build the parser')]);
  let version = 0;
  const compactions: number[] = [];
  const coordinator = serviceCompactions(
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
        compactions.push(used.length);
        return [];
      },
      setBusy: () => undefined,
      log: () => undefined,
    },
  );
  const used: number[] = [];
  const signal = new AbortController().signal;
  try {
    for (let k = 0; k < steps; k++) {
      items.push(...itemsFromEntries([{ id: `u${k}`, message: U(`step ${k}: ${chars(stepTokens * 4 - 40, k + 3)}`) }]));
      await coordinator.atSafePoint(signal);
      await coordinator.idle();
      used.push(meter.measure(items).total);
      items.push(...itemsFromEntries([{ id: `a${k}`, message: A(`ok ${k}`) }]));
    }
  } finally {
    coordinator.cancel();
    rmSync(workspace, { recursive: true, force: true });
  }
  return { used, compactions };
}

test('steps large against the band: each automatic compaction lands below the target and buys more calls than the target would', async () => {
  // Each step adds about half the band: landing at the target, the trigger would be two calls away.
  const step = Math.round(band / 2);
  const atTarget = Math.floor(band / step);
  const { used, compactions } = await play(counting(), step, 40);
  assert.ok(compactions.length >= 2, `compacted ${compactions.length} times: ${used.join(', ')}`);
  for (let k = 1; k < compactions.length; k++) {
    assert.ok(compactions[k] - compactions[k - 1] > atTarget, `calls between compactions: ${compactions.join(', ')}`);
  }
  // The landing (the reading at the compaction's own safe point) is below the target.
  for (const c of compactions) assert.ok(used[c] < th.targetTokens, `landed at ${used[c]}, target ${th.targetTokens}`);
  assert.ok(used.every((u) => u < th.inputBudget));
});

test('a summarizer over the cached prefix lands deeper than one without, and compacts no more often', async () => {
  const step = Math.round(band / 12);
  const plain = counting();
  const cached = Object.assign(counting(), { reusesPrefix: true });
  const a = await play(plain, step, 80);
  const b = await play(cached, step, 80);
  assert.ok(
    a.compactions.length >= 2 && b.compactions.length >= 1,
    `${a.compactions.join(',')} / ${b.compactions.join(',')}`,
  );
  const after = (r: { used: number[]; compactions: number[] }) => r.used[r.compactions[0]];
  assert.ok(after(b) < after(a), `first landing ${after(b)} below ${after(a)}`);
  assert.ok(b.compactions.length <= a.compactions.length);
  assert.ok(cached.calls <= plain.calls, `${cached.calls} summarizer calls against ${plain.calls}`);
});
