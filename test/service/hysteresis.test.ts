/**
 * The service's automatic compaction, driven as the agent drives it (a safe point before each model
 * call, a summary prepared ahead finishing while the model answers): each compaction ends at or
 * below the target, so the next one comes only after the context has grown again by at least the
 * distance from the target to the trigger.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { A, Acalls, S, T, U, chars } from '../support/conversation';
import { quarterCounter } from '../support/generate';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { itemsFromEntries } from '../../src/compaction/context';
import { thresholds } from '../../src/compaction/plan/budget';
import { NodeToolHost } from '../../src/agent/node-host';
import { serviceCompactions } from '../../src/service/compaction/service-compactions';
import type { BudgetConfig, ChatMessage, ContextItem } from '../../src/compaction/types';

const meter = new TokenMeter({ counter: quarterCounter });

/** Turns of a request, a read_file step (~200-token result) and a reply (~100 tokens). */
function conversation(turns: number): ChatMessage[] {
  const out: ChatMessage[] = [S('You are a coding agent.')];
  for (let k = 0; k < turns; k++) {
    out.push(
      U(`request ${k}: update src/mod${k}.ts`),
      Acalls([[`c${k}`, 'read_file', `{"path":"src/mod${k}.ts"}`]]),
      T(`c${k}`, chars(800, k)),
      A(`done ${k} ${chars(400, k + 1)}`),
    );
  }
  return out;
}

test('automatic compactions end at or below the target and the next comes only after trigger − target tokens of new content', async (t) => {
  const workspace = mkdtempSync(path.join(tmpdir(), 'ck-hysteresis-'));
  t.after(() => rmSync(workspace, { recursive: true, force: true }));
  const budget: BudgetConfig = { contextWindow: 8000, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 };
  const th = thresholds(budget);
  let items: ContextItem[] = [];
  let version = 0;
  let appended = 0;
  const commits: Array<{ after: number; appendedSincePrevious: number }> = [];
  const compactions = serviceCompactions(
    { budget, host: new NodeToolHost(workspace) },
    {
      items: () => items,
      tools: () => [],
      meter,
      summarizer: new ExtractiveSummarizer((x) => meter.countText(x)),
      used: () => meter.measure(items).total,
      version: () => version,
      commit: (result) => {
        items = [...result.context];
        version++;
        commits.push({ after: result.tokensAfter, appendedSincePrevious: appended });
        appended = 0;
        return [];
      },
      setBusy: () => undefined,
      log: () => undefined,
    },
  );
  const signal = new AbortController().signal;
  const entries = conversation(60).map((message, i) => ({ id: `e${i}`, message }));
  for (const [i, entry] of entries.entries()) {
    if (entry.message.role === 'assistant' && i > 0) {
      await compactions.atSafePoint(signal);
      await compactions.idle();
    }
    items.push(...itemsFromEntries([entry]));
    appended += meter.countMessage(entry.message);
  }
  compactions.cancel();
  assert.ok(commits.length >= 3, `compacted ${commits.length} times`);
  for (const c of commits)
    assert.ok(c.after <= th.targetTokens, `ended at ${c.after} tokens, target ${th.targetTokens}`);
  for (const c of commits.slice(1)) {
    assert.ok(
      c.appendedSincePrevious >= th.triggerTokens - th.targetTokens,
      `next compaction after ${c.appendedSincePrevious} new tokens (gap ${th.triggerTokens - th.targetTokens})`,
    );
  }
  assert.ok(
    compactions.stats.preparedUsed >= 1,
    `a summary prepared ahead was used (${JSON.stringify(compactions.stats)})`,
  );
  assert.equal(compactions.stats.failures, 0);
});
