/**
 * The identifiers carried from an earlier summary are the ones it listed as identifiers: never the
 * file name of the recording its closing line says the messages can be read from, a commit id of its
 * commits section, or words of a request it quotes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_WRITERS, summaryOf, type Step } from '../support/recordings';
import { carryIdentifiers, CARRIED_HEADING } from '../../src/compaction/summary/identifiers/carry-identifiers';
import type { ContextItem } from '../../src/compaction/types';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

const work: Step[] = [
  { user: "Fix the broker client. The console says: Error: WebSocket connection to 'ws://localhost:1883/' failed." },
  { tool: 'read', path: 'src/mqtt_client.ts', output: 'export const url = "ws://localhost:1883/";' },
  { tool: 'edit', path: 'src/mqtt_client.ts', old: 'ws://localhost:1883/', new: 'ws://localhost:9001/mqtt' },
  { say: `Switched the client to the WebSocket listener on port 9001 at /kayak/test/ack. ${filler(2000)}` },
  { user: 'thanks' },
  { say: 'ok' },
];

/** The lines under the identifier headings of `summary`. */
function listed(summary: string): string[] {
  const out: string[] = [];
  let on = false;
  for (const l of summary.split('\n')) {
    if (l.startsWith('## ')) on = l.startsWith('## Identifiers');
    else if (on && l.startsWith('- ')) out.push(l.slice(2));
  }
  return out;
}

for (const format of ['claude-code', 'aider', 'codex'] as const) {
  test(`${format}: only the identifiers an earlier summary listed are carried`, async () => {
    const { write, file } = ALL_WRITERS[format];
    const { summary } = await summaryOf(write(work), file);
    const text = `${summary.replace(/\n\[The \d+ replaced[^\n]*$/, '')}\n\n[The 4 replaced messages can be read from: session-42.jsonl, messages 1-4 (context-keeper recall FILE --read 1-4).]\n\n## Commits made (newest last)\n- commit e647cd7: fix the broker url`;
    const item: ContextItem = {
      id: 'ck-1~s',
      kind: 'summary',
      message: { role: 'user', content: text },
      covers: ['m1'],
      checkpointId: 'ck-1',
    };
    const out = carryIdentifiers('## Current work and next step\n- the footer', [item], 4000);
    const carried = out.includes(CARRIED_HEADING) ? listed(out.slice(out.indexOf(CARRIED_HEADING))) : [];
    const held = listed(text);
    for (const id of carried) assert.ok(held.includes(id), `${id} was not listed as an identifier:\n${out}`);
    for (const junk of ['session-42.jsonl', 'e647cd7', 'WebSocket connection'])
      assert.ok(!carried.some((c) => c.includes(junk)), out);
  });
}
