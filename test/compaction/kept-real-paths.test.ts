/**
 * What an earlier summary held is carried by real paths only: a glob a command listed
 * (`ls src/eslint.config*`), a product named like a file (`Node.js`, `MQTT.js`) and a scoped package
 * (`@solana/web3.js`) are no files the earlier summary named, so none is listed under "Files also
 * named" when the summary is summarised again; a real path the earlier summary named still is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { summaryOf, WRITERS, type Step } from '../support/recordings';
import { keepEarlierHoldings, KEPT_HEADING } from '../../src/compaction/summary/earlier-holdings';
import type { ContextItem } from '../../src/compaction/types';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

const work: Step[] = [
  { user: 'Port the bridge to Node.js with MQTT.js and @solana/web3.js; keep docs/bridge_notes.md in step.' },
  {
    tool: 'bash',
    command: 'ls src/eslint.config* src/bridge_main.ts',
    output: 'src/eslint.config.mjs\nsrc/bridge_main.ts',
  },
  { tool: 'edit', path: 'src/bridge_main.ts', old: 'import net', new: 'import mqtt from "mqtt"' },
  { say: `Ported the bridge to Node.js using MQTT.js. ${filler(2500)}` },
  { user: 'thanks, now the docs' },
  { say: 'ok' },
];

for (const format of ['claude-code', 'codex', 'openhands'] as const) {
  test(`${format}: only real paths of an earlier summary are carried as files also named`, async () => {
    const { write, file } = WRITERS[format];
    const earlier = await summaryOf(write(work), file);
    assert.match(earlier.summary, /Node\.js/, earlier.summary);
    const item: ContextItem = {
      id: 'ck-1~s',
      kind: 'summary',
      message: { role: 'user', content: earlier.summary },
      covers: ['m1', 'm2'],
      checkpointId: 'ck-1',
    };
    const carried = keepEarlierHoldings('## Current work\n- writing the docs', [item]);
    const kept = carried.slice(carried.indexOf(KEPT_HEADING));
    assert.match(kept, /src\/bridge_main\.ts/, kept);
    for (const junk of [/Node\.js/, /MQTT\.js/, /@solana/, /eslint\.config(?!\.mjs)/])
      assert.doesNotMatch(kept, junk, `${kept}\n\nfrom:\n${earlier.summary}`);
  });
}
