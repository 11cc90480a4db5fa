/**
 * The live service masks, in a later compaction's summary, a secret value whose assignment an earlier
 * compaction replaced: the session's transcript values reach every compaction
 * (`CompactionOptions.knownSecretValues`), read once per message as the transcript grows.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { text } from '../../src/demo/modelserver/replies';
import { importTranscriptTextSync } from '../../src/transcripts';
import { describeOutcome } from '../../src/service/compaction/outcome';
import { serviceFixture } from './fixtures';
import { WRITERS, type Step } from '../support/recordings';

const VALUE = 'pgStore_pass_77xq';
const filler = (n: number) => 'the handler validates each field before the write '.repeat(n);

const work: Step[] = [
  { user: 'set up the database for the ticket service' },
  {
    tool: 'read',
    path: 'docker-compose.yml',
    output: `services:\n  db:\n    environment:\n      POSTGRES_DB: tickets\n      POSTGRES_PASSWORD: ${VALUE}\n${filler(40)}`,
  },
  { say: `The compose file defines the database. ${filler(40)}` },
  { user: 'make the pool larger' },
  { tool: 'edit', path: 'src/db/pool.ts', old: 'max: 5', new: 'max: 20' },
  { say: `The pool is larger now. ${filler(40)}` },
];

for (const format of ['claude-code', 'codex'] as const) {
  test(`${format}: a value whose assignment an earlier compaction replaced stays masked in a later summary`, async (t) => {
    // The agent's reply repeats the value bare, in a table: no assignment a summary could recognise.
    const fx = await serviceFixture(
      () =>
        text(`Settings:\n| name | value |\n| --- | --- |\n| SPRING_DATASOURCE_PASSWORD | ${VALUE} |\n${filler(20)}`),
      { window: 32_000 },
    );
    t.after(fx.cleanup);
    const { write, file } = WRITERS[format];
    await fx.service.importTranscript({ source: format, entries: importTranscriptTextSync(write(work), file).entries });
    const first = await fx.service.compactNow();
    assert.equal(first.status.kind, 'applied', describeOutcome(first.status));
    assert.ok(!fx.service.getMessages().some((m) => JSON.stringify(m).includes('POSTGRES_PASSWORD')), 'replaced');

    assert.equal((await fx.service.runTask('document the settings in the README')).status, 'done');
    assert.equal((await fx.service.runTask('now add a health check')).status, 'done');
    const second = await fx.service.compactNow();
    assert.equal(second.status.kind, 'applied', describeOutcome(second.status));
    const later = fx.service
      .getCheckpoints()
      .filter((c) => c.strategy !== 'collapse')
      .at(-1)!;
    assert.ok(
      later.replaced.some((i) => JSON.stringify(i.message).includes(VALUE)),
      'the span repeats the value',
    );
    const at = later.summary.indexOf(VALUE);
    assert.equal(at, -1, `the later summary shows the value: …${later.summary.slice(at - 200, at + 40)}`);
  });
}
