/**
 * Writes the session folder that the migration test opens: run once, by hand, with the release whose
 * format the fixture stands for (`CK_WRITE_SESSION_FIXTURE=<folder> node out/test/service/migration/write-fixture.js`).
 * The folder in `test/service/migration/v1-session` was written this way by the code of the release
 * before session folders carried a format marker. Without the variable this file does nothing (the test
 * runner loads every file under test/).
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { text, toolCalls } from '../../../src/demo/modelserver/replies';
import { filler, serviceFixture, StubSummarizer } from '../fixtures';

async function main(target: string): Promise<void> {
  const files = { 'f1.txt': filler(40, 'a'), 'f2.txt': filler(40, 'b'), 'f3.txt': filler(40, 'c') };
  const script = (n: number) =>
    n <= 6 ? (n % 2 === 1 ? toolCalls([{ id: `call_${n}`, name: 'read_file', arguments: JSON.stringify({ path: `f${(n + 1) / 2}.txt` }) }]) : text(`Read file ${n / 2}.`)) : text(`answer ${n}`);
  const fx = await serviceFixture((_b, n) => script(n), { files, summarizer: new StubSummarizer('The user asked to read three files; each held filler lines.'), window: 64_000, sessionId: 'fixture-session' });
  try {
    for (let i = 1; i <= 3; i++) await fx.service.runTask(`read f${i}.txt`);
    await fx.service.pin(fx.service.getTranscript().entries[1].id);
    const first = await fx.service.compactNow();
    if (first.status.kind !== 'applied') throw new Error('the fixture needs a compaction');
    await fx.service.runTask('one more request');
    await fx.service.compactNow();
    const dir = fx.service.sessionDir!;
    // What that release showed for the session: the messages it would send and its checkpoints.
    const expected = { messages: fx.service.getMessages(), checkpoints: fx.service.getCheckpoints().map((c) => ({ id: c.id, strategy: c.strategy, replacedIds: c.replacedIds, restored: c.restored ?? false })) };
    fx.service.dispose();
    rmSync(target, { recursive: true, force: true });
    mkdirSync(target, { recursive: true });
    cpSync(dir, target, { recursive: true });
    writeFileSync(path.join(target, '..', `${path.basename(target)}.expected.json`), `${JSON.stringify(expected, null, 1)}\n`);
  } finally {
    await fx.cleanup();
  }
}

const target = process.env.CK_WRITE_SESSION_FIXTURE;
if (target) void main(target).then(() => console.log(`session folder written to ${target}`));
