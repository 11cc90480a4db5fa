/**
 * The undo of a restore is kept with the session's state: opening the session again (what switching
 * to another session and back does, or a reload) still offers it and it still works, on an agent
 * session and on imported recordings; a rewrite after the restore ends it on disk as in memory.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkContext } from '../../src/compaction/plan/invariants';
import { text } from '../../src/demo/modelserver/replies';
import { importTranscriptTextSync } from '../../src/transcripts';
import { describeOutcome } from '../../src/service/compaction/outcome';
import { WRITERS, type Step } from '../support/recordings';
import { filler, serviceFixture, StubSummarizer } from './fixtures';

/** A recorded session long enough to compact: user requests, reads and commands with their output. */
const steps: Step[] = [];
for (let i = 1; i <= 6; i++)
  steps.push(
    { user: `Look at module ${i}.` },
    { tool: 'read', path: `src/m${i}.ts`, output: filler(30, `m${i}`) },
    { tool: 'bash', command: `npm test -- m${i}`, output: filler(10, `t${i}`), exit: 0 },
    { say: `Module ${i} reads fine.` },
  );

/** Closes `service` as switching to another session does (saves written, lock released). */
async function close(service: { whenSaved(): Promise<void>; dispose(): void; whenClosed(): Promise<void> }) {
  await service.whenSaved();
  service.dispose();
  await service.whenClosed();
}

async function importedAndCompacted(format: 'claude-code' | 'openai-chat') {
  const fx = await serviceFixture(() => text('Done.'), {
    summarizer: new StubSummarizer('SUMMARY-OK'),
    window: 64_000,
  });
  const writer = WRITERS[format];
  await fx.service.importTranscript({
    source: writer.file,
    ...importTranscriptTextSync(writer.write(steps), writer.file),
  });
  const outcome = await fx.service.compactNow();
  assert.equal(outcome.status.kind, 'applied', describeOutcome(outcome.status));
  return fx;
}

for (const format of ['claude-code', 'openai-chat'] as const) {
  test(`the undo of a restore survives opening the ${format} session again, and brings the compacted context back`, async (t) => {
    const fx = await importedAndCompacted(format);
    t.after(fx.cleanup);
    const compactedIds = fx.service.getTranscript().context.map((i) => i.id);
    const summary = fx.service.getCheckpoints().find((c) => c.strategy === 'summary')!;
    const restored = await fx.service.restoreCheckpoint(summary.id);

    await close(fx.service);
    const reopened = await fx.reopen();
    assert.deepEqual(reopened.getUndoableRestore(), restored, 'the undo is offered after opening the session again');
    // Messages after the reopening follow the compacted context once the restore is undone.
    await reopened.runTask('one more request');
    const appended = reopened
      .getTranscript()
      .entries.slice(-2)
      .map((e) => e.id);
    const undone = await reopened.undoRestore();
    assert.deepEqual(undone, { ...restored, undo: true });
    const { context, entries } = reopened.getTranscript();
    assert.deepEqual(
      context.map((i) => i.id),
      [...compactedIds, ...appended],
    );
    assert.deepEqual(checkContext(context, entries), []);
    assert.equal(reopened.getCheckpoints().find((c) => c.id === summary.id)?.restored, undefined);

    await close(reopened);
    const third = await fx.reopen();
    assert.equal(third.getUndoableRestore(), undefined, 'an undo done is not offered again');
    assert.deepEqual(
      third.getTranscript().context.map((i) => i.id),
      context.map((i) => i.id),
    );
  });
}

test('a rewrite after the restore (a pin) ends the undo, also after opening the session again', async (t) => {
  const fx = await importedAndCompacted('claude-code');
  t.after(fx.cleanup);
  const summary = fx.service.getCheckpoints().find((c) => c.strategy === 'summary')!;
  await fx.service.restoreCheckpoint(summary.id);
  const raw = fx.service.getTranscript().context.find((i) => i.kind === 'raw' && i.message.role === 'user')!;
  await fx.service.pin(raw.id);
  assert.equal(fx.service.getUndoableRestore(), undefined);
  await close(fx.service);
  const reopened = await fx.reopen();
  assert.equal(reopened.getUndoableRestore(), undefined);
  await assert.rejects(reopened.undoRestore(), /no restore to undo/);
});
