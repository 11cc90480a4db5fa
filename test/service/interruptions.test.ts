/**
 * Interruptions and storage: a service killed during a tool call or during writes reopens and sends a
 * valid request; unanswered calls on disk are recorded as interrupted; a damaged line keeps the
 * checkpoints; failed writes are errors and leave no torn line; a second window opens read-only; a
 * session folder written by the previous release still opens (migration).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { ChatMessage, Entry } from '../../src/compaction/types';
import { ContextService } from '../../src/service/service';
import type { ContextServiceOptions } from '../../src/service/api';
import { SessionStore, SESSION_FOLDER_VERSION } from '../../src/service/session/store';
import { INTERRUPTED_RESULT_TEXT } from '../../src/service/session/store-repair';
import { NodeToolHost } from '../../src/agent/node-host';
import type { ChatRequestBody, Responder } from '../../src/demo/modelserver/wire';
import { text, toolCalls } from '../../src/demo/modelserver/replies';
import { checkContext } from '../../src/compaction/plan/invariants';
import { loopback, pairingViolations, tempWorkspace } from '../agent/helpers';
import { approximateCounter, filler, serviceFixture, StubSummarizer } from './fixtures';

/** Opens a service in this process on an existing storage folder and session. */
async function openService(
  storageDir: string,
  sessionId: string,
  root: string,
  responder: Responder,
  more: Partial<ContextServiceOptions> = {},
) {
  const lb = await loopback(responder);
  const service = await ContextService.open({
    client: lb.client,
    model: 'gpt-4o',
    budget: { contextWindow: 64_000, reservedOutput: 1_000, compactAt: 0.8, compactTo: 0.5 },
    host: new NodeToolHost(root),
    storageDir,
    sessionId,
    systemPrompt: 'You are a test agent.',
    autoApprove: { edits: true, commands: true },
    prepareAheadMargin: 0,
    tokenCounter: approximateCounter,
    log: () => {},
    ...more,
  });
  return {
    service,
    requests: lb.server.requests,
    close: async () => {
      service.dispose();
      await lb.close();
    },
  };
}

/** Runs the child service until `killWhen` says so (then SIGKILL) or it exits; returns the acknowledged ids. */
function runChild(
  env: Record<string, string>,
  killWhen: (acks: Array<{ id: string; role: string }>) => number | undefined,
): Promise<Array<{ id: string; role: string }>> {
  const child = require.resolve('./child-service');
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child], {
      env: { ...process.env, CK_CHILD_SERVICE: '1', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const acks: Array<{ id: string; role: string }> = [];
    let buffer = '';
    let scheduled = false;
    proc.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) {
        const m = /^ack (\S+) (\S+)$/.exec(line);
        if (m) acks.push({ id: m[1], role: m[2] });
      }
      const delay = scheduled ? undefined : killWhen(acks);
      if (delay !== undefined) {
        scheduled = true;
        setTimeout(() => proc.kill('SIGKILL'), delay);
      }
    });
    proc.on('error', reject);
    proc.on('exit', () => resolve(acks));
  });
}

function lastRequestValid(requests: ChatRequestBody[]): ChatMessage[] {
  const messages = (requests.at(-1)?.messages ?? []) as ChatMessage[];
  assert.ok(messages.length > 0, 'a request reached the model');
  assert.deepEqual(pairingViolations(messages), [], 'the request is valid');
  return messages;
}

test('a service killed during a tool call reopens, records the call as interrupted and sends a valid request', async (t) => {
  const ws = tempWorkspace({ 'a.txt': 'alpha' });
  const storage = mkdtempSync(path.join(tmpdir(), 'ck-kill-'));
  t.after(() => {
    ws.cleanup();
    rmSync(storage, { recursive: true, force: true });
  });
  // The tool call sleeps for two seconds (it ends on its own); the child is killed while it runs.
  const lb = await loopback((_b, n) =>
    n === 1
      ? toolCalls([{ id: 'call_0', name: 'run_command', arguments: JSON.stringify({ command: 'sleep 2' }) }])
      : text('done'),
  );
  t.after(() => lb.close());
  const acks = await runChild(
    {
      CK_CHILD_BASE_URL: lb.server.url,
      CK_CHILD_ROOT: ws.root,
      CK_CHILD_STORAGE: storage,
      CK_CHILD_SESSION: 'killed',
      CK_CHILD_TASK: 'run it',
    },
    (a) => (a.some((x) => x.role === 'assistant') ? 300 : undefined),
  );
  assert.ok(
    acks.some((a) => a.role === 'assistant'),
    'the call was acknowledged before the kill',
  );
  assert.ok(!acks.some((a) => a.role === 'tool'), 'killed before the result');
  const again = await openService(storage, 'killed', ws.root, () => text('continuing'));
  t.after(again.close);
  const task = await again.service.runTask('continue');
  assert.equal(task.status, 'done');
  const messages = lastRequestValid(again.requests);
  assert.ok(
    messages.some((m) => m.role === 'tool' && m.tool_call_id === 'call_0' && m.content === INTERRUPTED_RESULT_TEXT),
  );
  const { entries, context } = again.service.getTranscript();
  assert.deepEqual(checkContext(context, entries), []);
});

test('a service killed during writes (several points, and a torn last line) reopens and sends a valid request', async (t) => {
  const ws = tempWorkspace({ 'big.txt': filler(3000, 'big') });
  const storage = mkdtempSync(path.join(tmpdir(), 'ck-kill-write-'));
  t.after(() => {
    ws.cleanup();
    rmSync(storage, { recursive: true, force: true });
  });
  const lb = await loopback((_b, n) =>
    n % 3 === 0
      ? text(`answer ${n}`)
      : toolCalls([
          { id: 'call_0', name: 'read_file', arguments: '{"path":"big.txt"}' },
          { id: 'call_1', name: 'read_file', arguments: '{"path":"big.txt"}' },
        ]),
  );
  t.after(() => lb.close());
  for (const [round, delay] of [
    [1, 0],
    [2, 3],
    [3, 11],
  ] as const) {
    const acks = await runChild(
      {
        CK_CHILD_BASE_URL: lb.server.url,
        CK_CHILD_ROOT: ws.root,
        CK_CHILD_STORAGE: storage,
        CK_CHILD_SESSION: 'writes',
        CK_CHILD_TASK: `round ${round}`,
      },
      (a) => (a.filter((x) => x.role === 'tool').length >= 1 ? delay : undefined),
    );
    const { store, loaded } = SessionStore.open(storage, 'writes');
    store.close();
    const ids = new Set(loaded.entries.map((e) => e.id));
    for (const a of acks) assert.ok(ids.has(a.id), `round ${round}: acknowledged ${a.id} survived`);
  }
  // The state a kill in the middle of an append leaves: half a line at the end.
  appendFileSync(
    path.join(storage, 'writes', 'transcript.jsonl'),
    '{"id":"e999999","message":{"role":"assistant","content":"half',
  );
  const again = await openService(storage, 'writes', ws.root, () => text('continuing'));
  t.after(again.close);
  assert.equal((await again.service.runTask('continue')).status, 'done');
  lastRequestValid(again.requests);
  assert.ok(
    !readFileSync(path.join(storage, 'writes', 'transcript.jsonl'), 'utf8').includes('"half'),
    'the torn line was cut off',
  );
  const { entries, context } = again.service.getTranscript();
  assert.deepEqual(checkContext(context, entries), []);
});

test('an unanswered call in the middle of a stored session is repaired once, next to its step', async (t) => {
  const storage = mkdtempSync(path.join(tmpdir(), 'ck-repair-'));
  t.after(() => rmSync(storage, { recursive: true, force: true }));
  const { store } = SessionStore.open(storage, 's');
  const entries: Entry[] = [
    { id: 'e1', message: { role: 'system', content: 'sys' } },
    { id: 'e2', message: { role: 'user', content: 'do two things' } },
    {
      id: 'e3',
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_0', type: 'function', function: { name: 'read_file', arguments: '{}' } },
          { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{}' } },
        ],
      },
    },
    { id: 'e4', message: { role: 'tool', tool_call_id: 'call_0', content: 'one' } },
    { id: 'e5', message: { role: 'user', content: 'and then?' } },
  ];
  store.append(entries);
  store.writeState({
    sessionId: 's',
    model: 'm',
    source: 'test',
    createdAt: 'now',
    context: entries.map((e) => ({ id: e.id, kind: 'raw', message: e.message, covers: [e.id] })),
    pinned: [],
    checkpoints: [],
  });
  store.close();
  for (let open = 0; open < 2; open++) {
    const { store: again, loaded } = SessionStore.open(storage, 's');
    again.close();
    assert.deepEqual(
      loaded.entries.map((e) => e.id),
      ['e1', 'e2', 'e3', 'e4', 'e3#interrupted:call_1', 'e5'],
      `open ${open}`,
    );
    assert.deepEqual(
      loaded.state!.context.map((i) => i.id),
      ['e1', 'e2', 'e3', 'e4', 'e3#interrupted:call_1', 'e5'],
    );
    assert.equal(
      loaded.warnings.some((w) => /e3: 1 tool call\(s\) were interrupted before their result \(call_1\)/.test(w)),
      open === 0,
      loaded.warnings.join('\n'),
    );
  }
});

test('one garbage line keeps the checkpoints and the rest of the context, and says which line', async (t) => {
  const files = { 'f1.txt': filler(60, 'a'), 'f2.txt': filler(60, 'b') };
  const script = (n: number) =>
    n <= 4
      ? n % 2
        ? toolCalls([{ id: 'call_0', name: 'read_file', arguments: JSON.stringify({ path: `f${(n + 1) / 2}.txt` }) }])
        : text(`read ${n}`)
      : text(`answer ${n}`);
  const fx = await serviceFixture((_b, n) => script(n), {
    files,
    summarizer: new StubSummarizer('SUMMARY-OK'),
    window: 64_000,
  });
  t.after(fx.cleanup);
  await fx.service.runTask('read f1.txt');
  await fx.service.runTask('read f2.txt');
  assert.equal((await fx.service.compactNow()).status.kind, 'applied');
  await fx.service.runTask('after the compaction');
  const checkpoints = fx.service.getCheckpoints().map((c) => c.id);
  const dir = fx.service.sessionDir!;
  fx.service.dispose();
  const file = path.join(dir, 'transcript.jsonl');
  const lines = readFileSync(file, 'utf8').split('\n');
  // A line the state refers to (a message kept raw in the context): losing it used to drop the whole
  // state, checkpoints included.
  const refs = (
    JSON.parse(readFileSync(path.join(dir, 'state.json'), 'utf8')) as { context: Array<{ ref?: string }> }
  ).context.flatMap((i) => (i.ref ? [i.ref] : []));
  const victim = lines.findIndex((l) => l.startsWith(`{"id":"${refs.at(-1)}"`));
  assert.ok(victim > 0);
  lines[victim] = 'garbage {';
  writeFileSync(file, lines.join('\n'));
  const warnings: string[] = [];
  const reopened = await fx.reopen({ log: (_l, m) => warnings.push(m) });
  assert.deepEqual(
    reopened.getCheckpoints().map((c) => c.id),
    checkpoints,
    'checkpoints kept',
  );
  assert.ok(
    warnings.some((w) => w.includes(`transcript.jsonl:${victim + 1}: not valid JSON; skipped`)),
    warnings.join('\n'),
  );
  assert.ok(
    warnings.some((w) => /lost with damaged transcript lines/.test(w)),
    warnings.join('\n'),
  );
  const { entries, context } = reopened.getTranscript();
  assert.deepEqual(checkContext(context, entries), []);
  assert.equal((await reopened.runTask('still works')).status, 'done');
});

test(
  'a write that hits the file-size limit is an error, leaves no torn line, and what was acknowledged loads',
  { skip: process.platform === 'win32' ? 'needs ulimit' : false },
  async (t) => {
    const storage = mkdtempSync(path.join(tmpdir(), 'ck-efbig-'));
    t.after(() => rmSync(storage, { recursive: true, force: true }));
    const storeModule = require.resolve('../../src/service/session/store');
    const code = `
    const { SessionStore } = require(${JSON.stringify(storeModule)});
    const { store } = SessionStore.open(${JSON.stringify(storage)}, 'full');
    for (let n = 1; ; n++) {
      try { store.append([{ id: 'e' + n, message: { role: 'user', content: 'x'.repeat(700 + n) } }]); }
      catch (e) { console.log('error ' + e.message); break; }
      console.log('ack e' + n);
    }
    store.close();`;
    // A 64 KiB file-size limit; SIGXFSZ ignored so the write fails with EFBIG instead of killing the process.
    const out = await new Promise<string>((resolve, reject) => {
      const proc = spawn('bash', ['-c', `trap '' XFSZ; ulimit -f 64; exec "${process.execPath}" -e "$CK_CODE"`], {
        env: { ...process.env, CK_CODE: code },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let s = '';
      proc.stdout.on('data', (d: Buffer) => (s += d.toString()));
      proc.on('error', reject);
      proc.on('exit', () => resolve(s));
    });
    const acked = out
      .split('\n')
      .filter((l) => l.startsWith('ack '))
      .map((l) => l.slice(4));
    assert.ok(acked.length > 10, out.slice(0, 200));
    assert.match(
      out,
      /error could not save to .*transcript\.jsonl: the file-size limit was reached; the message was not recorded/,
    );
    const transcript = readFileSync(path.join(storage, 'full', 'transcript.jsonl'), 'utf8');
    assert.ok(transcript.endsWith('\n'), 'no torn line left behind');
    const { store, loaded } = SessionStore.open(storage, 'full');
    t.after(() => store.close());
    assert.deepEqual(
      loaded.entries.map((e) => e.id),
      acked,
    );
    assert.deepEqual(loaded.warnings, []);
  },
);

test('a second window on the same session opens read-only and says so; once the first is gone it may write', async (t) => {
  const storage = mkdtempSync(path.join(tmpdir(), 'ck-lock-'));
  t.after(() => rmSync(storage, { recursive: true, force: true }));
  const storeModule = require.resolve('../../src/service/session/store');
  const holder = spawn(
    process.execPath,
    [
      '-e',
      `const { SessionStore } = require(${JSON.stringify(storeModule)}); SessionStore.open(${JSON.stringify(storage)}, 'shared'); console.log('held'); setTimeout(() => {}, 60000);`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  t.after(() => holder.kill('SIGKILL'));
  await new Promise<void>((resolve) =>
    holder.stdout.on('data', (d: Buffer) => d.toString().includes('held') && resolve()),
  );
  const { store, loaded } = SessionStore.open(storage, 'shared');
  assert.match(loaded.readOnly ?? '', /open in another window \(process \d+\)/);
  assert.throws(
    () => store.append([{ id: 'e1', message: { role: 'user', content: 'x' } }]),
    /cannot write to .*open in another window/,
  );
  store.close();
  holder.kill('SIGKILL');
  await new Promise((r) => holder.on('exit', r));
  const second = SessionStore.open(storage, 'shared');
  assert.equal(second.loaded.readOnly, undefined, 'a stale lock is taken over');
  second.store.append([{ id: 'e1', message: { role: 'user', content: 'x' } }]);
  second.store.close();
  assert.equal(existsSync(path.join(storage, 'shared', 'lock')), false, 'the lock is released on close');
});

test('migration: a session folder written by the previous release opens with the same messages and checkpoints, and continues', async (t) => {
  const fixture = path.resolve(__dirname, '../../../test/service/migration/v1-session');
  const expected = JSON.parse(readFileSync(`${fixture}.expected.json`, 'utf8')) as {
    messages: ChatMessage[];
    checkpoints: Array<{ id: string; strategy: string; replacedIds: string[]; restored: boolean }>;
  };
  const storage = mkdtempSync(path.join(tmpdir(), 'ck-migrate-'));
  t.after(() => rmSync(storage, { recursive: true, force: true }));
  cpSync(fixture, path.join(storage, 'fixture-session'), { recursive: true });
  assert.equal(
    existsSync(path.join(storage, 'fixture-session', 'session.json')),
    false,
    'the old layout has no marker',
  );
  const ws = tempWorkspace({});
  t.after(ws.cleanup);
  const opened = await openService(storage, 'fixture-session', ws.root, () => text('continuing from the old session'));
  t.after(opened.close);
  assert.deepEqual(opened.service.getMessages(), expected.messages);
  assert.deepEqual(
    opened.service
      .getCheckpoints()
      .map((c) => ({ id: c.id, strategy: c.strategy, replacedIds: c.replacedIds, restored: c.restored ?? false })),
    expected.checkpoints,
  );
  const marker = JSON.parse(readFileSync(path.join(storage, 'fixture-session', 'session.json'), 'utf8')) as {
    version: number;
  };
  assert.equal(marker.version, SESSION_FOLDER_VERSION);
  assert.equal((await opened.service.runTask('go on')).status, 'done');
  const sent = lastRequestValid(opened.requests);
  assert.deepEqual(sent.slice(0, expected.messages.length), expected.messages, 'the old context is sent as it was');
});
