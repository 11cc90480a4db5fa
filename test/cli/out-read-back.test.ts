/**
 * A file `compact --out` wrote can be compacted again: its summary is read back as ContextKeeper's
 * own earlier summary (not a typed request), and the next summary keeps its requests verbatim and
 * the files it named. Each summary's last line says only what is true where the file is used: the
 * recording and the positions `recall` reads there, never a checkpoint nothing can open. The same
 * input gives the same output. Recordings in two formats, written in test/support/recordings.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compactCommand, meterCommand, replayCommand, type BudgetOptions } from '../../src/cli/commands';
import { recallCommand } from '../../src/cli/recall';
import { WRITERS, sectionOf, type Step } from '../support/recordings';
import { expandFolderLines } from '../../src/compaction/summary/ledger/file-names';
import { quiet } from '../support/cli-output';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-out-read-back-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);
const REQUESTS = [
  'add a retry budget to the fetch client in src/net/client.ts',
  'now write tests for the retry budget',
  'document the retry budget in docs/net.md',
  'bump the version to 1.4.0 in package.json',
];

// Three finished turns, then the current task: the first compaction summarises the first two
// turns; the second summarises that summary with the third turn.
const work: Step[] = [
  { user: REQUESTS[0] },
  { tool: 'read', path: 'src/net/client.ts', output: filler(300) },
  { tool: 'edit', path: 'src/net/client.ts', old: 'retries = 0', new: 'retries = budget.left' },
  { tool: 'write', path: 'src/net/budget.ts', content: `export const budget = { left: 3 };\n${filler(40)}` },
  { say: `The retry budget is in place. ${filler(300)}` },
  { user: REQUESTS[1] },
  {
    tool: 'write',
    path: 'test/net/budget.test.ts',
    content: `import { budget } from '../../src/net/budget';\n${filler(40)}`,
  },
  { tool: 'bash', command: 'npm test -- test/net', output: `${filler(300)}\n12 passing`, exit: 0 },
  { say: `The tests pass. ${filler(300)}` },
  { user: REQUESTS[2] },
  { tool: 'write', path: 'docs/net.md', content: `# Network\n${filler(60)}` },
  { say: `Documented. ${filler(250)}` },
  { user: REQUESTS[3] },
  { tool: 'edit', path: 'package.json', old: '1.3.9', new: '1.4.0' },
  { say: 'Bumped.' },
];

const budget = (window: number, extra: Partial<BudgetOptions> = {}): BudgetOptions => ({
  window,
  at: 0.8,
  to: 0.5,
  keepSteps: 1,
  summarizer: 'extractive',
  ...extra,
});

interface Written {
  messages: Array<{ role: string; content: unknown }>;
  checkpoints: Array<{
    id: string;
    strategy: string;
    replacedIds: string[];
    retention?: { earlier: { total: number; kept: number } };
  }>;
}

const HEADER = /^\[Summary of \d+ earlier messages? of this conversation, written by ContextKeeper\./;
const read = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Written;
const summaries = (doc: Written) =>
  doc.messages.flatMap((m) => (typeof m.content === 'string' && HEADER.test(m.content) ? [m.content] : []));
/** The requests a summary quotes under its requests heading, one per list item. */
const quoted = (summary: string) =>
  sectionOf(summary, 'Requests, verbatim')
    .split('\n')
    .filter((l) => l.startsWith('- '))
    .map((l) => l.slice(2));

for (const format of ['claude-code', 'openai-chat'] as const) {
  const { write, file } = WRITERS[format];
  const dir = fs.mkdtempSync(path.join(tmp, `${format}-`));
  const input = path.join(dir, file);
  fs.writeFileSync(input, write(work));
  const first = path.join(dir, 'A.json');
  const second = path.join(dir, 'B.json');

  test(`${format}: compact --out, then compact of that file again keeps the first summary's requests and files`, async () => {
    await quiet((out, note) => compactCommand(input, { ...budget(8000), out: first }, out, note));
    const a = read(first);
    const [earlier] = summaries(a);
    assert.ok(earlier, 'the first compaction wrote a summary');
    const requests = quoted(earlier);
    assert.deepEqual(requests, REQUESTS.slice(0, requests.length));
    assert.ok(requests.length >= 2, `the first summary quotes the requests it replaced:\n${earlier}`);
    assert.match(earlier, /src\/net\/budget\.ts/);

    const metered = JSON.parse(await quiet((out, note) => meterCommand(first, { json: true }, out, note))) as {
      byCategory: { summaries: number; user: number };
    };
    assert.ok(metered.byCategory.summaries > 0, 'meter counts the summary read back as a summary');

    const json = JSON.parse(
      await quiet((out, note) => compactCommand(first, { ...budget(3000), out: second, json: true }, out, note)),
    ) as Written & { importedCompactions: number };
    assert.equal(json.importedCompactions, 1, 'the summary in the file became an import checkpoint');
    const b = read(second);
    const later = summaries(b);
    assert.equal(later.length, 1, 'the second compaction summarised the first summary with what followed it');
    assert.notEqual(later[0], earlier);
    assert.ok(!/Earlier summary/.test(later[0]), "the product's own summary is merged, not quoted as another agent's");
    assert.deepEqual(quoted(later[0]), REQUESTS.slice(0, quoted(later[0]).length));
    for (const r of requests) assert.ok(quoted(later[0]).includes(r), `"${r}" is still quoted:\n${later[0]}`);
    assert.ok(quoted(later[0]).length > requests.length, 'and the request of the turn summarised with it');
    for (const f of ['src/net/client.ts', 'src/net/budget.ts', 'test/net/budget.test.ts', 'docs/net.md'])
      // On its own line or on its folder's line (`- in src/net/: created budget.ts`).
      assert.ok(expandFolderLines(later[0]).includes(f), `${f} is still named:\n${later[0]}`);
    const scored = json.checkpoints.find((c) => c.strategy !== 'collapse' && c.retention);
    assert.ok(scored?.retention && scored.retention.earlier.total > 0, 'the scorecard reads the earlier summary');
    assert.equal(scored.retention.earlier.kept, scored.retention.earlier.total);
  });

  test(`${format}: every summary's last line names the recording and positions recall reads there, no checkpoint`, async () => {
    const written = [first, second].map(read);
    for (const [doc, recording] of [
      [written[0], input],
      [written[1], first],
    ] as const) {
      const [summary] = summaries(doc);
      assert.ok(summary);
      assert.doesNotMatch(summary, /checkpoint ck-/);
      const m =
        /\[The (\d+) replaced messages can be read from: (\S+), messages (\d+)-(\d+) \(context-keeper recall FILE --read \3-\4\)\.\]$/.exec(
          summary,
        );
      assert.ok(m, `the last line points at the recording:\n${summary.slice(-300)}`);
      assert.equal(m[2], path.basename(recording));
      const [count, from, to] = [m[1], m[3], m[4]].map(Number);
      assert.equal(to - from + 1, count);
      const cp = doc.checkpoints.find((c) => summary.includes(`${count} replaced`) && c.replacedIds.length === count);
      assert.ok(cp, 'a checkpoint of the output replaced that many messages');
      // Read one position at a time: a read of the whole range stops at recall's character cap.
      const idAt = async (at: number) =>
        (
          JSON.parse(
            await quiet((out) => recallCommand(recording, undefined, { read: { from: at, to: at }, json: true }, out)),
          ) as { messages: Array<{ id: string }> }
        ).messages[0]?.id;
      assert.equal(await idAt(from), cp.replacedIds[0], 'recall reads the first replaced message there');
      assert.equal(await idAt(to), cp.replacedIds.at(-1), 'and the last');
    }
  });

  for (const [name, run] of [
    ['compact', compactCommand],
    ['replay', replayCommand],
  ] as const)
    test(`${format}: ${name} --out is the same file on every run`, async () => {
      const outs = [path.join(dir, `${name}-1.json`), path.join(dir, `${name}-2.json`)];
      for (const o of outs) await quiet((out, note) => run(input, { ...budget(3000), out: o }, out, note));
      const [x, y] = outs.map((o) => fs.readFileSync(o, 'utf8'));
      assert.equal(x, y);
      const ids = (JSON.parse(x) as Written).checkpoints.map((c) => c.id).filter((id) => id.startsWith('ck-'));
      assert.ok(ids.length > 0);
      assert.equal(new Set(ids).size, ids.length, 'ids are unique within the output');
    });
}

// One request, then a long task after the next one: the first compaction summarises the task's
// older steps, so its summary stands after the latest request. Read back, that summary is no request.
const longTask: Step[] = [
  { user: 'add a retry budget to the fetch client in src/net/client.ts' },
  { say: `Looking at the client. ${filler(200)}` },
  { user: 'then wire the budget into the uploader in src/net/upload.ts' },
  ...[1, 2, 3, 4, 5, 6].flatMap((n): Step[] => [
    { tool: 'read', path: `src/net/part${n}.ts`, output: filler(200) },
    { tool: 'edit', path: `src/net/part${n}.ts`, old: 'retries = 0', new: 'retries = budget.left' },
    { say: `Part ${n} uses the budget. ${filler(120)}` },
  ]),
];

/** Runs a command, collecting standard output and error and the exit code it sets (then put back). */
async function run(
  command: (out: (l: string) => void, note: (l: string) => void) => Promise<void>,
): Promise<{ out: string; err: string; code: typeof process.exitCode }> {
  const out: string[] = [];
  const err: string[] = [];
  const exitCode = process.exitCode;
  try {
    process.exitCode = undefined;
    await command(
      (l) => out.push(l),
      (l) => err.push(l),
    );
    return { out: out.join('\n'), err: err.join('\n'), code: process.exitCode };
  } finally {
    process.exitCode = exitCode;
  }
}

for (const format of ['claude-code', 'openai-chat'] as const) {
  test(`${format}: a summary read back after the latest request is summarised again, the request typed last kept, exit 0`, async () => {
    const { write, file } = WRITERS[format];
    const dir = fs.mkdtempSync(path.join(tmp, `${format}-task-`));
    const input = path.join(dir, file);
    fs.writeFileSync(input, write(longTask));
    const first = path.join(dir, 'A.json');
    await quiet((out, note) => compactCommand(input, { ...budget(8000), out: first }, out, note));
    const a = read(first);
    const typed = a.messages.map((m) => m.role === 'user' && !HEADER.test(String(m.content)));
    const last = typed.lastIndexOf(true);
    assert.ok(
      a.messages.some((m, k) => k > last && HEADER.test(String(m.content))),
      `the first summary stands after the latest request:\n${JSON.stringify(a.messages.map((m) => m.role))}`,
    );
    const request = a.messages[last].content;

    const second = path.join(dir, 'B.json');
    const compacted = await run((out, note) =>
      compactCommand(first, { ...budget(3000), out: second, json: true }, out, note),
    );
    const json = JSON.parse(compacted.out) as { violations: unknown[]; applied: boolean; fits: boolean };
    assert.ok(json.applied, 'the second compaction replaced something');
    assert.deepEqual(json.violations, []);
    assert.ok(json.fits);
    assert.equal(compacted.code, undefined, 'no violation, a fitting result: success');
    assert.doesNotMatch(compacted.err, /invariant/);
    const b = read(second);
    assert.ok(
      b.messages.some((m) => m.role === 'user' && m.content === request),
      'the request typed last is in the context verbatim',
    );

    // Replayed message by message, the summary read back is no request either: the request stays.
    const replayedOut = path.join(dir, 'C.json');
    const replayed = await run((out, note) =>
      replayCommand(first, { ...budget(1500), out: replayedOut, json: true }, out, note),
    );
    const report = JSON.parse(replayed.out) as { invariantViolations: number; compactions: number };
    assert.ok(report.compactions > 0, 'the replay compacted');
    assert.ok(
      read(replayedOut).messages.some((m) => m.role === 'user' && m.content === request),
      'the replay keeps the request typed last verbatim',
    );
    assert.equal(report.invariantViolations, 0);
  });
}
