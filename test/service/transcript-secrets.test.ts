/**
 * The transcript's secret values (service/compaction/transcript-secrets.ts): kept as the transcript
 * grows, equal to a reading from its start, and a transcript not read yet (loaded or imported) is
 * read in slices of the host's time, never in one piece on an append.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TranscriptSecrets } from '../../src/service/compaction/transcript-secrets';
import type { Entry } from '../../src/compaction/types';
import { secretValuesKept } from '../../src/compaction/secret-values';

/** `n` entries; every seventh holds a secret assignment (two values share each length). */
function transcript(n: number, tag = 'a'): Entry[] {
  const entries: Entry[] = [];
  for (let i = 0; i < n; i++) {
    const content =
      i % 7 === 3
        ? `The config sets\nexport DB_PASSWORD="${tag}Store_pass_${String(i).padStart(6, '0')}"\nand the handler reads it.`
        : `The handler validates field ${i} of the form before it writes the record to the store.`;
    entries.push({ id: `${tag}-${i}`, message: { role: i % 2 ? 'assistant' : 'tool', content } } as Entry);
  }
  return entries;
}

/** The values of `entries` read by a new set, from their start. */
async function fresh(entries: readonly Entry[]): Promise<readonly string[]> {
  return new TranscriptSecrets().values(entries);
}

test('values kept as the transcript grows equal a reading of the whole transcript', async () => {
  const all = transcript(400);
  const live: Entry[] = [];
  const secrets = new TranscriptSecrets();
  for (const e of all.slice(0, 150)) {
    live.push(e);
    secrets.sync(live);
  }
  assert.deepEqual(await secrets.values(live), await fresh(live));
  for (const e of all.slice(150)) {
    live.push(e);
    secrets.sync(live);
  }
  const values = await secrets.values(live);
  assert.deepEqual(values, await fresh(all));
  assert.equal(values.length, Math.floor((400 - 3 - 1) / 7) + 1);
});

test('an imported transcript is read by the next compaction in slices, the timers running between them', async () => {
  const imported = transcript(3000);
  const secrets = new TranscriptSecrets();
  secrets.sync(transcript(20, 'b'));
  // An append right after the import reads its own entry only once the rest is read, not the whole transcript now.
  imported.push(...transcript(1, 'c'));
  secrets.sync(imported);
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  try {
    const values = await secrets.values(imported);
    assert.ok(ticks > 0, 'no timer ran while the transcript was read');
    assert.deepEqual(values, await fresh(imported));
  } finally {
    clearInterval(timer);
  }
});

test('a reading taken over by another transcript still gives each its own values', async () => {
  const first = transcript(3000, 'a');
  const second = transcript(2000, 'z');
  const secrets = new TranscriptSecrets();
  const [a, b] = await Promise.all([secrets.values(first), secrets.values(second)]);
  assert.deepEqual(a, await fresh(first));
  assert.deepEqual(b, await fresh(second));
  // The set kept is the later transcript's.
  assert.deepEqual(await secrets.values(second), b);
});

test('an aborted reading rejects with the reason', async () => {
  const controller = new AbortController();
  const reading = new TranscriptSecrets().values(transcript(3000), controller.signal);
  controller.abort(new Error('stopped'));
  await assert.rejects(reading, /stopped/);
});

test('a transcript read in one catch-up keeps nothing per message; appends keep their values for the compactor', async () => {
  const imported = transcript(500, 'k');
  const secrets = new TranscriptSecrets();
  const values = await secrets.values(imported);
  assert.deepEqual(values, await fresh(transcript(500, 'k')));
  assert.equal(imported.filter((e) => secretValuesKept(e.message)).length, 0);
  const appended = transcript(3, 'm');
  for (const e of appended) {
    imported.push(e);
    secrets.sync(imported);
  }
  assert.equal(appended.filter((e) => secretValuesKept(e.message)).length, 3);
  assert.deepEqual(await secrets.values(imported), await fresh([...transcript(500, 'k'), ...transcript(3, 'm')]));
});
