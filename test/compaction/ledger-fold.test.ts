/**
 * The ledger's forward reading kept for a list of actions that grew at its end: the ledger of the
 * grown list (and the paths named for the path roots) equals the one a fresh reading of the whole
 * list gives, and a list with an earlier action replaced is read again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildLedger, LEDGER } from '../../src/compaction/summary/ledger/ledger';
import { LedgerFold } from '../../src/compaction/summary/ledger/ledger-fold';
import { actionsOf } from '../../src/compaction/summary/ledger/actions';
import { itemsFromEntries } from '../../src/compaction/context';
import { generateSession } from '../../bench/corpus';
import type { Action } from '../../src/compaction/summary/ledger/actions';
import { rng } from '../support/generate';

/** Actions with reads, edits, moves (also of moved files), deletes, and passing and failing commands. */
function mixedActions(n: number, seed: number): Action[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const paths = Array.from({ length: 12 }, (_, i) => `/home/u/app/src/mod${i}/File${i}.ts`);
  const commands = ['npm test', 'npm  run build', 'ls -la', 'python -m pytest -q', 'make'];
  const out: Action[] = [];
  for (let i = 0; i < n; i++) {
    const ok = r() > 0.25;
    if (r() < 0.45)
      out.push({
        kind: 'command',
        command: pick(commands),
        ok,
        tool: 'bash',
        ...(ok ? {} : { exit: 1, error: `E${i} failed` }),
      });
    else {
      const op = pick(['read', 'read', 'edited', 'created', 'deleted', 'moved'] as const);
      const path = pick(paths);
      out.push({
        kind: 'file',
        op,
        path,
        ...(op === 'moved' ? { to: `${path}.moved${i % 3}` } : {}),
        symbols: r() < 0.5 ? [`Sym${i % 7}`, `File${i % 12}`] : [],
        ok,
        tool: 'edit',
        ...(ok ? {} : { error: 'no match' }),
      });
    }
  }
  return out;
}

const carried = new Map<string, string[]>([
  [LEDGER.files, ['- read only: /home/u/app/README.md', '- /home/u/app/old.ts: edited']],
  [LEDGER.commands, ['- `npm test` → ok']],
  [LEDGER.errors, ['- open: `make` → exit 2: missing rule']],
]);

function grownEqualsFresh(all: readonly Action[], cuts: readonly number[]): void {
  for (const cut of cuts) buildLedger(all.slice(0, cut), carried);
  const grown = buildLedger(all.slice(), carried);
  const fresh = buildLedger(structuredClone(all), carried);
  assert.deepEqual(grown, fresh);
  LedgerFold.of(all.slice(0, cuts[0]));
  assert.deepEqual([...LedgerFold.of(all.slice()).paths], [...LedgerFold.of(structuredClone(all)).paths]);
}

test('ledger: a list of actions grown at its end gives the ledger of a fresh reading (mixed actions)', () => {
  for (const seed of [1, 2, 3]) grownEqualsFresh(mixedActions(1500, seed), [600, 900, 1400]);
});

test("ledger: a generated session's actions, grown at their end, give the ledger of a fresh reading", () => {
  const items = itemsFromEntries(generateSession(5, 3000 * 300).slice(0, 3000));
  const all = actionsOf(items);
  assert.ok(all.length > 600, `${all.length} actions`);
  grownEqualsFresh(all, [Math.floor(all.length / 2), all.length - 40]);
});

test('ledger: a list with an earlier action replaced is read again, not continued', () => {
  const all = mixedActions(1000, 9);
  buildLedger(all);
  const changed = all.slice();
  const at = changed.findIndex((a) => a.kind === 'command' && a.ok);
  changed[at] = {
    kind: 'command',
    command: 'cargo build --release',
    ok: false,
    exit: 101,
    error: 'linker failed',
    tool: 'bash',
  };
  const grown = buildLedger([...changed, ...mixedActions(50, 10)]);
  const fresh = buildLedger(structuredClone([...changed, ...mixedActions(50, 10)]));
  assert.deepEqual(grown, fresh);
  assert.ok(grown.commands.some((l) => l.includes('cargo build --release')));
});

test('ledger: a shorter list, then one with another tail, after a longer one give the ledgers of fresh readings', () => {
  const all = mixedActions(1500, 4);
  const other = mixedActions(400, 5);
  buildLedger(all, carried);
  // What the longer list indexed past the shorter one's end must resolve none of its failures.
  for (const list of [all.slice(0, 1000), [...all.slice(0, 800), ...other], all.slice(0, 1200), all.slice()])
    assert.deepEqual(buildLedger(list, carried), buildLedger(structuredClone(list), carried));
});
