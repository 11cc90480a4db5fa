/**
 * Readings of a span continued from the previous compaction's reading when the span grew at its end
 * (the next compaction of a growing conversation): the secret values of the span and the names its
 * tool calls used as files equal what a fresh reading of the whole span gives, at every size, and a
 * span whose earlier messages are other messages is read again, not continued.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { spanSecretValues } from '../../src/compaction/secret-values';
import { backfillIdentifiers } from '../../src/compaction/summary/identifiers/backfill';
import type { ContextItem } from '../../src/compaction/types';

/**
 * Steps of a long session: secrets shown in output and given in commands, product names said in
 * prose and output, and (in round `k`) a name of that shape first used as a file by a tool call, so
 * the answers change as the span grows.
 */
function session(rounds: number, salt = ''): Step[] {
  const steps: Step[] = [{ user: 'move the dashboard from Vue.js to Next.js; keep Node.js 20' }];
  for (let k = 0; k < rounds; k++) {
    steps.push(
      { tool: 'bash', command: `cat .env.${k}`, output: `API_KEY=k${k}${salt}Zq81xLmP0vR7tY2w${k}\nDEBUG=1` },
      {
        tool: 'bash',
        command: `curl -H "Authorization: Bearer tok${k}AbCdEfGhIjKlMnOp" https://api.example.com/v${k}`,
        output: '{"ok":true}',
      },
      {
        tool: 'read',
        path: `src/Page${k}.tsx`,
        output: `// rendered by Next.js, like Vue.js did\nexport const P${k} = 1;`,
      },
      // A product-shaped name used as a file, each round another one (`Mod0.js`, `Mod1.js`, …).
      k % 3 === 0
        ? { tool: 'read', path: `Mod${k}.js`, output: `module.exports = ${k};` }
        : { tool: 'bash', command: `node Mod${k}.js --check`, output: 'ok' },
      { say: `Round ${k}: Next.js pages and Mod${k}.js checked; Charts.js stays a product name.` },
    );
  }
  return steps;
}

/** The items of `steps` recorded in `format`, each call a new reading of the recording (new message objects). */
function itemsOf(format: keyof typeof WRITERS, steps: Step[]): ContextItem[] {
  const { write, file } = WRITERS[format];
  return itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
}

const SUMMARY = '## Current work and next step\n- none';
// The back-fill is read whole (no cap on its lines): what it lists shows what the reading found.

for (const format of ['claude-code', 'codex'] as const) {
  test(`${format}: the secret values of a span grown at its end equal a fresh reading of the whole span`, () => {
    const all = itemsOf(format, session(80));
    assert.ok(all.length > 600, `${all.length} items`);
    // Every compaction's span one message longer for a while (each new message is read by a
    // continued reading), then longer by many.
    const sizes = [...Array.from({ length: 40 }, (_, i) => 300 + i), 420, 555, all.length];
    const grown = sizes.map((size) => spanSecretValues(all.slice(0, size)));
    sizes.forEach((size, i) => {
      const fresh = spanSecretValues(itemsOf(format, session(80)).slice(0, size));
      assert.deepEqual(grown[i], fresh, `at ${size} items`);
    });
    assert.ok(grown.at(-1)!.some((v) => v.includes('k79')));
  });

  test(`${format}: the names used as files in a span grown at its end equal a fresh reading`, () => {
    const all = itemsOf(format, session(80));
    const sizes = [...Array.from({ length: 40 }, (_, i) => 300 + i), 420, 555, all.length];
    const grown = sizes.map(
      (size) => backfillIdentifiers(SUMMARY, all.slice(0, size), 50_000, undefined, undefined, Infinity).added,
    );
    sizes.forEach((size, i) => {
      const fresh = backfillIdentifiers(
        SUMMARY,
        itemsOf(format, session(80)).slice(0, size),
        50_000,
        undefined,
        undefined,
        Infinity,
      ).added;
      assert.deepEqual(grown[i], fresh, `at ${size} items`);
    });
    // The answers changed as the span grew: a file first used late is listed only then.
    const last = grown.at(-1)!;
    assert.ok(last.includes('Mod79.js'), last.join('\n'));
    assert.ok(!grown[0].includes('Mod79.js'));
    for (const product of ['Next.js', 'Vue.js', 'Node.js', 'Charts.js']) assert.ok(!last.includes(product), product);
  });

  test(`${format}: a span whose earlier messages differ is read again, not continued`, () => {
    const long = itemsOf(format, session(80));
    spanSecretValues(long);
    backfillIdentifiers(SUMMARY, long, 50_000, undefined, undefined, Infinity);
    // One early message replaced by another (another secret in it), the span grown after it.
    const salted = itemsOf(format, session(90, 'Salt'));
    const at = salted.findIndex((it) => JSON.stringify(it.message).includes('k0Salt'));
    assert.ok(at > 0 && at < long.length);
    const changed = [...long, ...salted.slice(long.length)];
    changed[at] = salted[at];
    const values = spanSecretValues(changed);
    assert.deepEqual(values, spanSecretValues(structuredClone(changed)));
    assert.ok(values.some((v) => v.includes('k0Salt')) && !values.some((v) => v.startsWith('k0Zq')), values.join('\n'));
    // Fewer rounds: a shorter span of other messages (other secrets, other files).
    const other = itemsOf(format, session(70));
    assert.ok(!spanSecretValues(other).some((v) => v.includes('k75')));
    const added = backfillIdentifiers(SUMMARY, other, 50_000, undefined, undefined, Infinity).added;
    assert.ok(!added.includes('Mod75.js'), added.join('\n'));
    assert.ok(added.includes('Mod69.js'), added.join('\n'));
  });
}
