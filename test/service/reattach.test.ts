/**
 * Files re-attached after a summary in a live session: read from the workspace (current contents, not
 * history), after the summary as their own labelled messages, counted, recorded in the checkpoint and
 * its document, kept across a restart, removed by a restore; deleted and outside files skipped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { symlinkSync, unlinkSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { ChatMessage, ContextItem, Entry } from '../../src/compaction/types';
import { reattachCandidates } from '../../src/compaction/rewrite/reattach';
import { checkContext } from '../../src/compaction/plan/invariants';
import { NodeToolHost } from '../../src/agent/node-host';
import { ownWork, readReattachFiles } from '../../src/service/compaction/reattach-files';
import { ownEntryTest } from '../../src/service/session/transfer';
import { AGENT_SESSION_SOURCE } from '../../src/service/session/session-files';
import type * as CheckpointDocuments from '../../src/views/documents/checkpoint-documents';
import { text, toolCalls } from '../../src/demo/modelserver/replies';
import type { ChatRequestBody, Responder } from '../../src/demo/modelserver/wire';
import { loadWithVscodeShim } from '../support/vscode-shim';
import { tempWorkspace } from '../agent/helpers';
import { filler, serviceFixture, StubSummarizer } from './fixtures';
import type { CheckpointRecord } from '../../src/service/records';
import { describeOutcome } from '../../src/service/compaction/outcome';
import { countingTurns } from '../support/turns';

const { renderCheckpoint, renderItems } = loadWithVscodeShim<typeof CheckpointDocuments>(
  path.join(__dirname, '../../src/views/documents/checkpoint-documents'),
);

const KEY = 'sk-proj-abcdefghijklmnopqrstuvwx0123456789';
const files = {
  'src/app.ts': "export function greet(name: string): string {\n  return 'Hello ' + name;\n}\n",
  'src/util.ts': `export const OPENAI_API_KEY = '${KEY}';\nexport const retries = 3;\n`,
  'docs/guide.md': '# Guide\n\nRun npm test before committing.\n',
};

/** The latest user message that starts with "Task". */
function taskOf(body: ChatRequestBody): string {
  const messages = (body.messages ?? []) as ChatMessage[];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === 'user' && typeof m.content === 'string' && m.content.startsWith('Task')) return m.content;
  }
  return '';
}

const args = (o: Record<string, unknown>) => JSON.stringify(o);

/**
 * Task 1 reads and edits src/app.ts, reads src/util.ts, writes src/old.ts and answers at length (a
 * history only a summary can shrink); task 2 reads the guide a few times, which crosses the trigger.
 */
function script(): Responder {
  const served = new Map<string, number>();
  return (body) => {
    const task = taskOf(body);
    const n = (served.get(task) ?? 0) + 1;
    served.set(task, n);
    if (task.startsWith('Task 1')) {
      const steps = [
        toolCalls([{ id: 'r1', name: 'read_file', arguments: args({ path: 'src/app.ts' }) }]),
        toolCalls([
          {
            id: 'e1',
            name: 'edit_file',
            arguments: args({ path: 'src/app.ts', old_text: "'Hello ' + name", new_text: '`Hello, ${name}!`' }),
          },
        ]),
        toolCalls([{ id: 'r2', name: 'read_file', arguments: args({ path: 'src/util.ts' }) }]),
        toolCalls([
          {
            id: 'w1',
            name: 'write_file',
            arguments: args({ path: 'src/old.ts', content: 'export const legacy = true;\n' }),
          },
        ]),
      ];
      return steps[n - 1] ?? text(`The greeting is updated. ${filler(330, 'explain')}`);
    }
    if (n <= 4)
      return toolCalls(
        [{ id: `g${n}`, name: 'read_file', arguments: args({ path: 'docs/guide.md' }) }],
        `Reading the guide, pass ${n}. ${filler(25, `why${n}`)}`,
      );
    return text('The guide is read.');
  };
}

async function fixture(summarizer = new StubSummarizer('SUMMARY-OK: the greeting was changed in src/app.ts.')) {
  return serviceFixture(script(), { files, summarizer, window: 10_000, reserved: 1_000 });
}

/** The attached items of a context, in order. */
const attachedOf = (context: readonly ContextItem[]) => context.filter((i) => i.attachedFile !== undefined);

test('automatic compaction inside a task re-attaches current files after the summary; counted, recorded, restorable', async (t) => {
  const fx = await fixture();
  t.after(fx.cleanup);
  await fx.service.runTask('Task 1: change the greeting in src/app.ts to "Hello, name!"');
  assert.equal(fx.service.getCheckpoints().length, 0, 'no compaction yet');
  // Deleted from the workspace after the agent wrote it: it must not come back from history.
  unlinkSync(path.join(fx.root, 'src/old.ts'));
  const seen: Array<{ record: CheckpointRecord; measured: number }> = [];
  const sub = fx.service.onDidAddCheckpoint((record) =>
    seen.push({
      record,
      measured: fx.service.meter.measure(fx.service.getTranscript().context, fx.service.getToolSchemas()).total,
    }),
  );
  const before = fx.requests.length;
  const outcome = await fx.service.runTask('Task 2: read docs/guide.md and tell me the rule');
  sub.dispose();
  assert.equal(outcome.status, 'done');
  assert.ok(outcome.compactions >= 1, `an automatic compaction ran during the task (${outcome.compactions})`);

  const withFiles = seen.find((s) => s.record.attachedFiles?.length);
  assert.ok(
    withFiles,
    `a checkpoint records re-attached files: ${JSON.stringify(seen.map((s) => [s.record.strategy, s.record.attachedFiles]))}`,
  );
  const cp = withFiles.record;
  assert.equal(cp.trigger, 'auto');
  const paths = cp.attachedFiles?.map((f) => f.path) ?? [];
  assert.ok(
    paths.includes('src/app.ts') && paths.includes('src/util.ts'),
    `edited and read files: ${paths.join(', ')}`,
  );
  assert.ok(!paths.includes('src/old.ts'), 'a deleted file is skipped');
  assert.ok(paths.indexOf('src/util.ts') < paths.indexOf('src/app.ts'), 'most recently touched first');

  // After the summary, as their own labelled messages, with the workspace's current text.
  const context = fx.service.getTranscript().context;
  const summaryAt = context.findIndex((i) => i.id === `${cp.id}~s`);
  assert.ok(summaryAt >= 0, 'the summary is in the context');
  const following = context.slice(summaryAt + 1, summaryAt + 1 + paths.length);
  assert.deepEqual(
    following.map((i) => i.attachedFile),
    paths,
  );
  const app = following.find((i) => i.attachedFile === 'src/app.ts');
  const appText = String(app?.message.content);
  assert.match(
    appText,
    /^\[File re-attached by ContextKeeper after the summary above: src\/app\.ts, its current contents read from the workspace/,
  );
  assert.ok(appText.includes('`Hello, ${name}!`'), 'the edited text, read from the workspace');
  assert.ok(!appText.includes("'Hello ' + name"), 'not the text the history shows');
  const util = String(following.find((i) => i.attachedFile === 'src/util.ts')?.message.content);
  assert.ok(!util.includes(KEY) && /\[masked/.test(util), 'secrets masked like other output');

  // Counted: the checkpoint's tokens after are the context's with the files, and within the target.
  const budget = fx.service.getBudget();
  assert.equal(cp.tokensAfter, withFiles.measured);
  assert.ok((cp.attachedFiles ?? []).every((f) => f.tokens > 0));
  assert.ok(
    cp.tokensAfter <= budget.compactTo.tokens,
    `${cp.tokensAfter} within the target ${budget.compactTo.tokens}`,
  );
  // Sent: the next request carries them right after the summary.
  const next = fx.requests
    .slice(before)
    .find((body) =>
      (body.messages as ChatMessage[]).some(
        (m) => typeof m.content === 'string' && m.content.startsWith('[File re-attached'),
      ),
    );
  assert.ok(next, 'a request to the model carries the re-attached files');
  const sent = next.messages as ChatMessage[];
  // The summary the files follow (a deep landing may summarise the current task's older steps too).
  const s = sent.findIndex((m) => m.content === context[summaryAt].message.content);
  assert.match(String(sent[s + 1].content), /^\[File re-attached/);
  assert.deepEqual(checkContext(context, fx.service.getTranscript().entries), []);

  // Shown in the checkpoint document (record and the summary side of the diff).
  const doc = renderCheckpoint(cp);
  assert.match(doc, /\| Files re-attached \| \d+ \(\d+ tokens, counted in the tokens after\) \|/);
  assert.match(doc, /## Files re-attached after the summary\n\n- `src\/util\.ts` \(\d+ tokens\)/);
  assert.match(renderItems(cp.inserted), /### user \(file re-attached: src\/app\.ts\)/);

  // Recorded: a restart brings back the same context and checkpoint.
  const reopened = await fx.reopen();
  assert.deepEqual(
    attachedOf(reopened.getTranscript().context).map((i) => i.attachedFile),
    attachedOf(context).map((i) => i.attachedFile),
  );
  assert.deepEqual(reopened.getCheckpoints().find((c) => c.id === cp.id)?.attachedFiles, cp.attachedFiles);
  reopened.dispose();

  // Restore takes the files away with the summary.
  await fx.service.restoreCheckpoint(cp.id);
  const restored = fx.service.getTranscript().context;
  assert.ok(!restored.some((i) => i.checkpointId === cp.id), 'neither the summary nor its files stay');
  assert.ok(
    cp.replacedIds.every((id) => restored.some((i) => i.covers.includes(id))),
    'the replaced messages are back',
  );
  assert.deepEqual(checkContext(restored, fx.service.getTranscript().entries), []);
});

test('manual compaction re-attaches files; turned off by a 0 budget or 0 files', async (t) => {
  for (const [overrides, expected] of [
    [{}, true],
    [{ reattachBudget: 0 }, false],
    [{ reattachMaxFiles: 0 }, false],
  ] as const) {
    const fx = await serviceFixture(script(), {
      files,
      summarizer: new StubSummarizer('SUMMARY-OK'),
      window: 64_000,
      ...overrides,
    });
    t.after(fx.cleanup);
    await fx.service.runTask('Task 1: change the greeting in src/app.ts to "Hello, name!"');
    await fx.service.runTask('Task 2: read docs/guide.md and tell me the rule');
    const outcome = await fx.service.compactNow();
    assert.equal(outcome.status.kind, 'applied', describeOutcome(outcome.status));
    const attached = attachedOf(fx.service.getTranscript().context);
    assert.equal(
      attached.length > 0,
      expected,
      `${JSON.stringify(overrides)}: ${attached.map((i) => i.attachedFile).join(', ')}`,
    );
    assert.equal(
      outcome.checkpoints.some((c) => (c.attachedFiles?.length ?? 0) > 0),
      expected,
    );
    if (expected) assert.ok(outcome.tokensAfter < outcome.tokensBefore, 'still shrinks');
  }
});

test('a later compaction drops the earlier copies and re-attaches the current contents', async (t) => {
  const fx = await serviceFixture(script(), { files, summarizer: new StubSummarizer('SUMMARY-OK'), window: 64_000 });
  t.after(fx.cleanup);
  await fx.service.runTask('Task 1: change the greeting in src/app.ts to "Hello, name!"');
  await fx.service.runTask('Task 2: read docs/guide.md and tell me the rule');
  const first = await fx.service.compactNow();
  assert.ok(first.status.kind === 'applied', describeOutcome(first.status));
  assert.ok(attachedOf(fx.service.getTranscript().context).some((i) => i.attachedFile === 'src/app.ts'));
  writeFileSync(path.join(fx.root, 'src/app.ts'), 'export const greet = () => "changed by the user";\n');
  await fx.service.runTask('Task 3: read docs/guide.md once more');
  const second = await fx.service.compactNow();
  assert.ok(second.status.kind === 'applied', describeOutcome(second.status));
  const attached = attachedOf(fx.service.getTranscript().context);
  const apps = attached.filter((i) => i.attachedFile === 'src/app.ts');
  assert.equal(apps.length, 1, 'one copy of src/app.ts');
  assert.ok(String(apps[0].message.content).includes('changed by the user'), 'the current contents');
  assert.ok(
    second.checkpoints.some((c) => c.replaced.some((i) => i.attachedFile)),
    'the earlier copies were replaced',
  );
});

test('reading: deleted, outside (absolute or through a link), binary and oversized files are skipped; at most maxFiles', async (t) => {
  const outside = mkdtempSync(path.join(tmpdir(), 'ck-outside-'));
  writeFileSync(path.join(outside, 'secret.txt'), 'outside the workspace\n');
  const ws = tempWorkspace({
    'a.txt': 'alpha\n',
    'b.txt': 'beta\n',
    'c.txt': 'gamma\n',
    'bin.dat': 'x\u0000y',
    'big.txt': filler(400),
  });
  symlinkSync(path.join(outside, 'secret.txt'), path.join(ws.root, 'link.txt'));
  t.after(() => {
    ws.cleanup();
    rmSync(outside, { recursive: true, force: true });
  });
  const reads = [
    'a.txt',
    'gone.txt',
    path.join(outside, 'secret.txt'),
    'link.txt',
    'bin.dat',
    'big.txt',
    './b.txt',
    'c.txt',
  ];
  const items: ContextItem[] = reads.flatMap(
    (p, k) =>
      [
        {
          id: `a${k}`,
          kind: 'raw',
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: `c${k}`,
                type: 'function',
                function: { name: 'read_file', arguments: JSON.stringify({ path: p }) },
              },
            ],
          },
          covers: [`a${k}`],
        },
        {
          id: `t${k}`,
          kind: 'raw',
          message: { role: 'tool', tool_call_id: `c${k}`, content: 'ok' },
          covers: [`t${k}`],
        },
      ] as ContextItem[],
  );
  const host = new NodeToolHost(ws.root);
  const count = (s: string) => Math.ceil(s.length / 4);
  const got = await readReattachFiles(host, items, { maxFiles: 5, budgetTokens: 500 }, count);
  assert.deepEqual(
    got.map((f) => f.path),
    ['c.txt', 'b.txt', 'a.txt'],
  );
  assert.equal(got[0].text, 'gamma\n');
  assert.equal(got[0].shownBy, 't7');
  const two = await readReattachFiles(host, items, { maxFiles: 2, budgetTokens: 500 }, count);
  assert.deepEqual(
    two.map((f) => f.path),
    ['c.txt', 'b.txt'],
  );
  assert.deepEqual(await readReattachFiles(host, items, { maxFiles: 0, budgetTokens: 500 }, count), []);
});

/**
 * Another project's recording: its agent read package.json and README.md there. The first read
 * carries the mark of a session's own work, as an export of this product would.
 */
function otherProjectRecording(): Entry[] {
  const read = (id: string, file: string, result: string): Entry[] => [
    {
      id: `${id}-call`,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: args({ path: file }) } }],
      },
      meta: { local: true },
    },
    { id: `${id}-result`, message: { role: 'tool', tool_call_id: id, content: result }, meta: { local: true } },
  ];
  return [
    { id: 'u0', message: { role: 'user', content: 'Task 0: bump the version of the other project' } },
    ...read('o1', 'package.json', '{ "name": "other-project", "version": "1.0.0" }'),
    ...read('o2', 'README.md', '# Other project'),
    { id: 'a0', message: { role: 'assistant', content: `The version is bumped. ${filler(200, 'other')}` } },
  ];
}

test('a continued recording re-attaches only the files this session read or changed here, also after a reopen', async (t) => {
  const fx = await serviceFixture(script(), {
    files: { ...files, 'package.json': '{ "name": "this-workspace" }\n', 'README.md': '# This workspace\n' },
    summarizer: new StubSummarizer('SUMMARY-OK'),
    window: 64_000,
  });
  t.after(fx.cleanup);
  // Imported, then continued in a new working session (a fork that takes the context over).
  await fx.service.importTranscript({ source: 'claude-code: other.jsonl', entries: otherProjectRecording() });
  const { entries, context, checkpoints, pinned } = fx.service.exportTranscript();
  await fx.service.importTranscript({ source: 'other.jsonl', entries, state: { context, checkpoints, pinned } });
  const recorded = reattachCandidates(fx.service.getTranscript().context).map((c) => c.path);
  assert.deepEqual(recorded.sort(), ['README.md', 'package.json'], 'the recording touches both files');

  await fx.service.runTask('Task 1: change the greeting in src/app.ts to "Hello, name!"');
  await fx.service.runTask('Task 2: read docs/guide.md and tell me the rule');
  const outcome = await fx.service.compactNow();
  assert.ok(outcome.status.kind === 'applied', describeOutcome(outcome.status));
  const attached = attachedOf(fx.service.getTranscript().context).map((i) => i.attachedFile);
  assert.ok(attached.includes('src/app.ts'), `the session's own edit is re-attached: ${attached.join(', ')}`);
  assert.ok(!attached.includes('package.json') && !attached.includes('README.md'), attached.join(', '));

  // The mark is kept on disk: a reopened session tells its own work from the recording's.
  await fx.service.whenSaved();
  fx.service.dispose();
  const reopened = await fx.reopen();
  await reopened.runTask('Task 3: read docs/guide.md once more');
  const again = await reopened.compactNow();
  assert.ok(again.status.kind === 'applied', describeOutcome(again.status));
  const after = attachedOf(reopened.getTranscript().context).map((i) => i.attachedFile);
  assert.ok(after.includes('src/app.ts'), after.join(', '));
  assert.ok(!after.includes('package.json') && !after.includes('README.md'), after.join(', '));
});

test('own work: a session started here owns its entries, an import only those marked local; attached files count, summaries and uncovered items do not', async () => {
  const entries: Entry[] = [
    { id: 'e1', message: { role: 'user', content: 'Task 1' } },
    { id: 'e2', message: { role: 'assistant', content: 'Read it.' }, meta: { local: true } },
    { id: 'e3', message: { role: 'assistant', content: 'Done.' } },
  ];
  const raw = (e: Entry): ContextItem => ({ id: e.id, kind: 'raw', message: e.message, covers: [e.id] });
  const summary: ContextItem = {
    id: 's1',
    kind: 'summary',
    message: { role: 'user', content: 'Summary.' },
    covers: ['e1'],
    checkpointId: 'ck-00000001',
  };
  const attached: ContextItem = { ...summary, id: 'f1', covers: [], attachedFile: 'src/app.ts' };
  const stray: ContextItem = { id: 'x1', kind: 'raw', message: { role: 'user', content: 'Not an entry.' }, covers: [] };
  const items = [summary, attached, ...entries.map(raw), stray];
  const ids = new Set(entries.map((e) => e.id));
  const here = ownEntryTest(entries, (id) => ids.has(id), AGENT_SESSION_SOURCE);
  assert.deepEqual(
    (await ownWork(items, here)).map((it) => it.id),
    ['f1', 'e1', 'e2', 'e3'],
  );
  const imported = ownEntryTest(entries, () => assert.fail('an import never asks the session'), 'import');
  assert.deepEqual(
    (await ownWork(items, imported)).map((it) => it.id),
    ['f1', 'e2'],
  );
  // A long context is read over several turns of the event loop, with the same items.
  const many = Array.from({ length: 200_000 }, (_, k) => raw({ id: `m${k}`, message: { role: 'user', content: 'x' } }));
  const { result: own, turns } = await countingTurns(() => ownWork(many, (id) => id !== undefined && id.endsWith('7')));
  assert.equal(own.length, 20_000);
  assert.ok(turns >= 1, `read after a turn of its own (${turns})`);
});
