/** Persistence: resume exactly, crash safety of appends and state writes, damaged files. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { SessionStore } from '../../src/service/session/store';
import { checkContext } from '../../src/compaction/plan/invariants';
import { withAnswersBefore, withRequestsBefore } from '../../src/compaction/rewrite/imported';
import { text, toolCalls } from '../../src/demo/modelserver/replies';
import { filler, serviceFixture, StubSummarizer } from './fixtures';
import { pngDataUrl } from '../support/generate';

const files = { 'f1.txt': filler(60, 'a'), 'f2.txt': filler(60, 'b'), 'f3.txt': filler(60, 'c') };
const script = (n: number) =>
  n <= 6
    ? n % 2 === 1
      ? toolCalls([{ id: `h${n}`, name: 'read_file', arguments: JSON.stringify({ path: `f${(n + 1) / 2}.txt` }) }])
      : text(`Read ${n / 2}.`)
    : text(`answer ${n}`);

test('a restart after a compaction, after more messages and after an undo brings back exactly the active context', async (t) => {
  const fx = await serviceFixture((_b, n) => script(n), {
    files,
    summarizer: new StubSummarizer('SUMMARY-OK'),
    window: 64_000,
  });
  t.after(fx.cleanup);
  for (let i = 1; i <= 3; i++) await fx.service.runTask(`read f${i}.txt`);
  await fx.service.pin(fx.service.getTranscript().entries[1].id);
  const compacted = await fx.service.compactNow();
  assert.equal(compacted.status.kind, 'applied');
  const same = async (label: string): Promise<void> => {
    const reopened = await fx.reopen();
    assert.deepEqual(reopened.getMessages(), fx.service.getMessages(), `${label}: messages`);
    assert.deepEqual(reopened.getTranscript(), fx.service.getTranscript(), `${label}: transcript, context, pins`);
    assert.deepEqual(reopened.getCheckpoints(), fx.service.getCheckpoints(), `${label}: checkpoints`);
    const { entries, context } = reopened.getTranscript();
    assert.deepEqual(checkContext(context, entries), [], label);
    reopened.dispose();
  };
  await same('after compaction');
  await fx.service.runTask('one more request');
  await same('after more messages');
  const summary = fx.service.getCheckpoints().find((c) => c.strategy === 'summary')!;
  await fx.service.restoreCheckpoint(summary.id);
  await same('after undo');
  // The undone checkpoint is still listed (flagged), and the pre-compaction messages are back.
  const reopened = await fx.reopen();
  assert.equal(reopened.getCheckpoints().find((c) => c.id === summary.id)?.restored, true);
  for (const id of summary.replacedIds) assert.ok(reopened.getTranscript().context.some((i) => i.id === id));
});

/** Runs a child process that appends entries (and rewrites the state every few) until killed. */
function writerUntilKilled(dir: string, killAfterAcks: number): Promise<string[]> {
  const storeModule = require.resolve('../../src/service/session/store');
  const code = `
    const { SessionStore } = require(${JSON.stringify(storeModule)});
    const { store, loaded } = SessionStore.open(${JSON.stringify(dir)}, 'crash');
    const context = loaded.state ? loaded.state.context : [];
    let n = loaded.entries.length;
    for (const e of loaded.entries) if (!context.some((i) => i.id === e.id)) context.push({ id: e.id, kind: 'raw', message: e.message, covers: [e.id] });
    for (;;) {
      const id = 'e' + (++n);
      const entry = { id, message: { role: n % 2 ? 'user' : 'assistant', content: 'message ' + n + ' ' + 'x'.repeat((n * 37) % 3000) } };
      store.append([entry]);
      context.push({ id, kind: 'raw', message: entry.message, covers: [id] });
      process.stdout.write('ack ' + id + '\\n');
      if (n % 5 === 0) store.writeState({ sessionId: 'crash', model: 'm', source: 'test', createdAt: 'now', context, pinned: [], checkpoints: [] });
    }`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    const acked: string[] = [];
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) if (line.startsWith('ack ')) acked.push(line.slice(4));
      if (acked.length >= killAfterAcks) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('exit', () => resolve(acked));
  });
}

test('a writer killed (SIGKILL) in the middle of appends and state writes loses no acknowledged message and loads', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ck-crash-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const acked: string[] = [];
  for (const killAt of [23, 41, 67]) {
    acked.push(...(await writerUntilKilled(dir, killAt)));
    const { store, loaded } = SessionStore.open(dir, 'crash');
    store.close();
    const ids = new Set(loaded.entries.map((e) => e.id));
    for (const id of acked) assert.ok(ids.has(id), `acknowledged ${id} survived`);
    for (const warning of loaded.warnings) assert.match(warning, /incomplete last line|transcript\.jsonl:\d+/);
    assert.ok(loaded.state, 'a state file loads');
    // The state's context holds only entries that exist (no dangling references).
    for (const item of loaded.state.context) assert.ok(ids.has(item.id));
  }
});

test('a damaged transcript loads every good line with a warning naming the line; a damaged state falls back', async (t) => {
  const fx = await serviceFixture((_b, n) => script(n), {
    files,
    summarizer: new StubSummarizer('SUMMARY-OK'),
    window: 64_000,
  });
  t.after(fx.cleanup);
  for (let i = 1; i <= 3; i++) await fx.service.runTask(`read f${i}.txt`);
  await fx.service.compactNow();
  await fx.service.runTask('after the compaction');
  const expected = fx.service.getMessages();
  const dir = fx.service.sessionDir!;
  fx.service.dispose();
  const transcript = path.join(dir, 'transcript.jsonl');
  // Damage by other means: garbage appended, a half line at the end.
  appendFileSync(transcript, '{"id": "broken", "mess');
  let reopened = await fx.reopen({ log: () => {} });
  assert.deepEqual(reopened.getMessages(), expected);
  reopened.dispose();
  // A line in the middle made unreadable: the rest still loads, and the warning names the line.
  const lines = readFileSync(transcript, 'utf8').split('\n');
  const victim = lines.findIndex((l) => l.includes('"after the compaction"'));
  lines[victim] = '{ not json';
  writeFileSync(transcript, lines.join('\n'));
  const warnings: string[] = [];
  reopened = await fx.reopen({ log: (_l, m) => warnings.push(m) });
  assert.ok(
    warnings.some((w) => w.includes(`transcript.jsonl:${victim + 1}`)),
    warnings.join('\n'),
  );
  assert.equal(reopened.getTranscript().entries.length, fx.service.getTranscript().entries.length - 1);
  reopened.dispose();
  // A damaged state file: the previous state is used, with a warning.
  writeFileSync(path.join(dir, 'state.json'), '{"format": "context-keeper/sess');
  warnings.length = 0;
  reopened = await fx.reopen({ log: (_l, m) => warnings.push(m) });
  assert.ok(
    warnings.some((w) => /state\.json/.test(w)),
    warnings.join('\n'),
  );
  const { entries, context } = reopened.getTranscript();
  assert.deepEqual(checkContext(context, entries), []);
});

test('import replaces the conversation in a new session folder (open calls closed); export carries entries, context and checkpoints', async (t) => {
  const fx = await serviceFixture(() => text('continuing'), { window: 64_000 });
  t.after(fx.cleanup);
  const oldSession = fx.service.sessionId;
  await fx.service.importTranscript({
    source: 'test: recorded.json',
    entries: [
      { id: 'm0', message: { role: 'system', content: 'Recorded system prompt.' } },
      { id: 'm1', message: { role: 'user', content: 'Fix the bug.' } },
      {
        id: 'm2',
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'x1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }],
        },
      },
    ],
  });
  assert.notEqual(fx.service.sessionId, oldSession);
  const messages = fx.service.getMessages();
  assert.equal(messages.length, 4);
  assert.equal(messages[3].role, 'tool', 'the open call got a placeholder result');
  const task = await fx.service.runTask('go on');
  assert.equal(task.status, 'done');
  const exported = fx.service.exportTranscript();
  assert.equal(exported.format, 'context-keeper/transcript');
  assert.deepEqual(exported.entries.map((e) => e.id).slice(0, 3), ['m0', 'm1', 'm2']);
  assert.deepEqual(exported.messages, fx.service.getMessages());
  const reopened = await fx.reopen({ sessionId: fx.service.sessionId });
  assert.deepEqual(reopened.getMessages(), fx.service.getMessages());
});

test("an imported transcript's own compactions become import checkpoints (the summary carrying the requests it replaced) that can be undone, and survive a reopen", async (t) => {
  const fx = await serviceFixture(() => text('continuing'), { window: 64_000 });
  t.after(fx.cleanup);
  const entries = [
    { id: 'm0', message: { role: 'system' as const, content: 'Recorded system prompt.' } },
    { id: 'm1', message: { role: 'user' as const, content: 'Set up the project.' } },
    { id: 'm2', message: { role: 'assistant' as const, content: 'Done: created package.json.' } },
    { id: 'm3', message: { role: 'user' as const, content: 'Now add tests.' } },
    { id: 'm4', message: { role: 'assistant' as const, content: 'Added tests.' } },
  ];
  await fx.service.importTranscript({
    source: 'test: compacted.json',
    entries,
    compactions: [
      { replacedIds: ['m1', 'm2'], summary: 'The user asked to set up the project; package.json was created.' },
    ],
  });
  const checkpoints = fx.service.getCheckpoints();
  assert.equal(checkpoints.length, 1);
  assert.equal(checkpoints[0].trigger, 'import');
  assert.deepEqual(checkpoints[0].replacedIds, ['m1', 'm2']);
  assert.deepEqual(
    fx.service.getMessages().map((m) => m.content),
    [
      'Recorded system prompt.',
      // The agent's summary, its answer in the span replaced, then the request it replaced, verbatim:
      // the imported context keeps them.
      withRequestsBefore(
        withAnswersBefore('The user asked to set up the project; package.json was created.', [
          '- (to "Set up the project.") "Done: created package.json."',
        ]),
        ['Set up the project.'],
      ),
      'Now add tests.',
      'Added tests.',
    ],
  );
  const reopened = await fx.reopen({ sessionId: fx.service.sessionId });
  assert.deepEqual(reopened.getMessages(), fx.service.getMessages());
  reopened.dispose();
  await fx.service.restoreCheckpoint(checkpoints[0].id);
  assert.deepEqual(
    fx.service.getMessages(),
    entries.map((e) => e.message),
  );
});

test('images past the per-request limit are replaced by placeholders before the next model call', async (t) => {
  const fx = await serviceFixture(() => text('I see the screenshots.'), { window: 64_000, maxImagesPerRequest: 2 });
  t.after(fx.cleanup);
  const shot = (n: number) => ({
    role: 'user' as const,
    content: [
      { type: 'text' as const, text: `screenshot ${n}` },
      { type: 'image_url' as const, image_url: { url: pngDataUrl(800 + n, 600) } },
    ],
  });
  await fx.service.importTranscript({
    source: 'test: shots',
    entries: [0, 1, 2].flatMap((n) => [
      { id: `u${n}`, message: shot(n) },
      { id: `a${n}`, message: { role: 'assistant' as const, content: `noted ${n}` } },
    ]),
  });
  const task = await fx.service.runTask('what changed between them?');
  assert.equal(task.status, 'done');
  const sent = fx.requests.at(-1) as { messages: Array<{ content: unknown }> };
  const images = sent.messages
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((p: { type?: string }) => p.type === 'image_url');
  assert.equal(images.length, 2, 'the request carries at most two images');
  assert.match(JSON.stringify(sent.messages), /image 800x600 removed from the context/);
  const cp = fx.service.getCheckpoints().at(-1)!;
  assert.equal(cp.strategy, 'collapse');
  await fx.service.restoreCheckpoint(cp.id);
  assert.equal(
    fx.service.getMessages().filter((m) => JSON.stringify(m).includes('image_url')).length,
    3,
    'undo brings the image back',
  );
});

test('the calibration on reported usage is kept with the session: a reopened session shows the reported figure, not an estimate', async (t) => {
  const fx = await serviceFixture(
    (_body, n) =>
      n === 1
        ? toolCalls([{ id: 'c1', name: 'read_file', arguments: JSON.stringify({ path: 'a.txt' }) }])
        : text('Done.'),
    { files: { 'a.txt': filler(30) } },
  );
  t.after(fx.cleanup);
  await fx.service.runTask('Read a.txt.');
  await fx.service.meter.counter.ready;
  const live = fx.service.getBudget();
  assert.equal(live.exact, true, 'calibrated on the reported prompt tokens');
  fx.service.dispose();
  const reopened = await fx.reopen();
  await reopened.meter.counter.ready;
  const again = reopened.getBudget();
  assert.equal(again.exact, true, `reopened: ${again.usedSource}`);
  assert.equal(again.used, live.used);
  assert.equal(again.usedSource, live.usedSource);
  reopened.dispose();

  // A damaged calibration file is reported (file named) and the gauge falls back to the estimate.
  writeFileSync(path.join(fx.service.sessionDir!, 'calibration.json'), '{"tokens": "many"}');
  const warnings: string[] = [];
  const damaged = await fx.reopen({ log: (level, message) => void (level === 'warn' && warnings.push(message)) });
  t.after(() => damaged.dispose());
  assert.equal(damaged.getBudget().exact, false);
  assert.ok(
    warnings.some((w) => /calibration\.json: fields "tokens"/.test(w)),
    warnings.join('\n'),
  );
});
