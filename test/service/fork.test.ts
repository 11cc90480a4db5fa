/**
 * Forking a session (what "Continue in a new task" does): the new session starts from the source's
 * current, compacted context with its checkpoints and every raw entry, also after a reopen from disk,
 * and a checkpoint restores there. An import into a fresh service leaves no empty session folder.
 * A session's Export Transcript document imports back with every message.
 */
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { text } from '../../src/demo/modelserver/replies';
import type { Entry } from '../../src/compaction/types';
import { filler, serviceFixture, type ServiceFixture } from './fixtures';
import { importTranscriptText } from '../../src/transcripts';

let fx: ServiceFixture | undefined;
afterEach(async () => {
  await fx?.cleanup();
  fx = undefined;
});

/** `turns` user/assistant turns of about 120 tokens each, behind a system prompt. */
function conversation(turns: number): Entry[] {
  const out: Entry['message'][] = [{ role: 'system', content: 'You are a recorded agent.' }];
  for (let t = 0; t < turns; t++) {
    out.push({ role: 'user', content: `Step ${t}: ${filler(5, `u${t}`)}` });
    out.push({ role: 'assistant', content: `Done ${t}: ${filler(5, `a${t}`)}` });
  }
  return out.map((message, i) => ({ id: `m${i}`, message }));
}

test('a fork starts from the compacted context with the checkpoints and raw entries, also after a reopen', async () => {
  fx = await serviceFixture(() => text('ok'), { window: 200_000 });
  await fx.service.importTranscript({ source: 'test: recording', entries: conversation(60) });
  const outcome = await fx.service.compactNow();
  assert.equal(outcome.status.kind, 'applied');
  const source = fx.service.exportTranscript();
  assert.ok(source.checkpoints.length > 0);
  assert.ok(source.context.length < source.entries.length, 'the source context is compacted');

  const fork = await fx.reopen({ sessionId: undefined });
  await fork.importTranscript({
    source: 'continued',
    entries: source.entries,
    state: { context: source.context, checkpoints: source.checkpoints, pinned: source.pinned },
  });
  assert.notEqual(fork.sessionId, fx.service.sessionId);
  assert.deepEqual(fork.getMessages(), fx.service.getMessages(), 'the fork sends the compacted context');
  assert.equal(fork.getBudget().used, fx.service.getBudget().used);
  assert.deepEqual(
    fork.getCheckpoints().map((c) => c.id),
    source.checkpoints.map((c) => c.id),
  );
  assert.equal(fork.getTranscript().entries.length, source.entries.length, 'every raw entry is kept');

  // One writer per session: the fork's window closes before the session opens again.
  fork.dispose();
  const reopened = await fx.reopen({ sessionId: fork.sessionId });
  assert.deepEqual(reopened.getMessages(), fx.service.getMessages(), 'the fork persisted its context');
  assert.equal(reopened.getCheckpoints().length, source.checkpoints.length);
  assert.equal(reopened.getTranscript().entries.length, source.entries.length);
  await reopened.restoreCheckpoint(source.checkpoints[0].id);
  assert.ok(
    reopened.getMessages().length > fx.service.getMessages().length,
    'the replaced messages come back in the fork',
  );
  assert.equal(fx.service.getCheckpoints()[0].restored, undefined, 'the source is untouched');
});

test('an import into a fresh service removes the folder it had opened empty; one with messages stays', async () => {
  fx = await serviceFixture(() => text('Done.'), { window: 200_000 });
  const blank = fx.service.sessionDir!;
  assert.ok(existsSync(blank));
  await fx.service.importTranscript({ source: 'test: recording', entries: conversation(3) });
  assert.equal(existsSync(blank), false, 'the empty folder is gone');
  assert.deepEqual(readdirSync(fx.storageDir), [fx.service.sessionId]);

  const used = await fx.reopen({ sessionId: undefined });
  await used.runTask('Say done');
  const kept = used.sessionDir!;
  await used.importTranscript({ source: 'test: second', entries: conversation(2) });
  assert.ok(existsSync(path.join(kept, 'transcript.jsonl')), 'a session with a task keeps its folder');
  assert.equal(readdirSync(fx.storageDir).length, 3);
});

test('a fork of a context without a system message starts with the agent system prompt, counted and persisted', async () => {
  fx = await serviceFixture(() => text('ok'), { window: 200_000 });
  const fresh = fx.service.getBudget().breakdown.system;
  const entries = conversation(3).slice(1);
  const state = {
    context: entries.map((e) => ({ id: e.id, kind: 'raw' as const, message: e.message, covers: [e.id] })),
    checkpoints: [],
    pinned: [],
  };
  const fork = await fx.reopen({ sessionId: undefined });
  await fork.importTranscript({ source: 'no system', entries, state });
  assert.deepEqual(fork.getMessages()[0], { role: 'system', content: 'You are a test agent.' });
  assert.equal(fork.getMessages().length, entries.length + 1);
  assert.equal(fork.getBudget().breakdown.system, fresh, 'the breakdown counts it as a fresh session does');
  // One writer per session: the fork's window closes before the session opens again.
  fork.dispose();
  const reopened = await fx.reopen({ sessionId: fork.sessionId });
  assert.deepEqual(
    reopened.getMessages(),
    [{ role: 'system', content: 'You are a test agent.' }, ...entries.map((e) => e.message)],
    'persisted in the fork',
  );
  reopened.dispose();

  // A context led by a developer message keeps it as its system prompt; a plain import gets none added.
  const led = await fx.reopen({ sessionId: undefined });
  const developer: Entry = { id: 'dev', message: { role: 'developer', content: 'Recorded instructions.' } };
  await led.importTranscript({
    source: 'developer',
    entries: [developer, ...entries],
    state: {
      ...state,
      context: [{ id: 'dev', kind: 'raw', message: developer.message, covers: ['dev'] }, ...state.context],
    },
  });
  assert.equal(led.getMessages().filter((m) => m.role === 'system').length, 0);
  await led.importTranscript({ source: 'plain', entries });
  assert.equal(led.getMessages()[0].role, 'user', 'a plain import of a recording is shown as recorded');
  led.dispose();
});

test('Export Transcript of a compacted session imports back with every message, ids kept, and says its checkpoints are not taken over', async () => {
  fx = await serviceFixture(() => text('ok'), { window: 200_000 });
  await fx.service.importTranscript({ source: 'test: recording', entries: conversation(60) });
  assert.equal((await fx.service.compactNow()).status.kind, 'applied');
  const exported = fx.service.exportTranscript();
  assert.ok(exported.messages.length < exported.entries.length, 'the exported context is compacted');

  const read = await importTranscriptText(JSON.stringify(exported, null, 2), 'session.export.json');
  assert.equal(read.format, 'context-keeper');
  assert.equal(read.model, exported.model);
  assert.deepEqual(
    read.entries.map((e) => e.id),
    exported.entries.map((e) => e.id),
    'every entry, in order, with its id',
  );
  assert.deepEqual(
    read.entries.map((e) => e.message),
    exported.entries.map((e) => e.message),
  );
  assert.ok(
    read.warnings.some((w) => /an exported session; its \d+ checkpoint\(s\) are not taken over/.test(w)),
    read.warnings.join('\n'),
  );

  const again = await fx.reopen({ sessionId: undefined });
  await again.importTranscript({ source: 'session.export.json', entries: read.entries });
  assert.equal(again.getTranscript().entries.length, exported.entries.length, 'nothing lost');

  // A malformed entry in the document is named by its field path.
  const broken = {
    ...exported,
    entries: [...exported.entries.slice(0, 2), { id: 'x', message: { role: 'robot', content: 'hi' } }],
  };
  await assert.rejects(
    importTranscriptText(JSON.stringify(broken), 'broken.json'),
    /broken\.json:1: entries\[2\]\.message\.role|broken\.json:1: entries\.2\.message\.role/,
  );
});
