/**
 * The command-line tool on hostile inputs and outputs: `--out` on anything but a regular file or a
 * new path, an empty `--out`, an empty conversation, fields and parts the API does not accept, deep
 * nesting, and a session transcript torn by a crash (read as the session store reads it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';

const cli = path.resolve(__dirname, '../../../dist/cli.js');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-cli-inputs-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const skip = fs.existsSync(cli) ? false : 'needs a built dist/cli.js (npm run build)';

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

function write(name: string, value: unknown): string {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

const conversation = {
  messages: [
    { role: 'user', content: 'Fix the test.' },
    { role: 'assistant', content: 'Fixed.' },
  ],
};

test(
  '--out refuses a named pipe, a symbolic link, a device and an empty path, and leaves them as they are',
  { skip },
  async () => {
    const input = write('in.json', conversation);
    const fifo = path.join(tmp, 'pipe');
    fs.mkdirSync(path.join(tmp, 'sub'), { recursive: true });
    const link = path.join(tmp, 'link.json');
    fs.writeFileSync(path.join(tmp, 'target.json'), 'keep');
    fs.symlinkSync(path.join(tmp, 'target.json'), link);
    const cases: Array<[string, RegExp]> = [
      [link, /symbolic link/],
      [path.join(tmp, 'sub'), /folder/],
      ['', /needs a file path/],
    ];
    if (process.platform !== 'win32') {
      execFile('mkfifo', [fifo]);
      await new Promise((r) => setTimeout(r, 200));
      if (fs.existsSync(fifo)) cases.push([fifo, /named pipe/]);
      if (fs.existsSync('/dev/null')) cases.push(['/dev/null', /device/]);
    }
    for (const [out, message] of cases) {
      const r = await run(['compact', input, '--window', '8000', '--out', out]);
      assert.equal(r.code, 2, `${out}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, message);
    }
    assert.equal(fs.lstatSync(link).isSymbolicLink(), true, 'the link is still a link');
    assert.equal(fs.readFileSync(path.join(tmp, 'target.json'), 'utf8'), 'keep');
    if (fs.existsSync(fifo)) assert.equal(fs.lstatSync(fifo).isFIFO(), true, 'the pipe is still a pipe');
    // A new path and an existing regular file are fine.
    const fresh = path.join(tmp, 'fresh.json');
    assert.equal((await run(['compact', input, '--window', '8000', '--out', fresh])).code, 0);
    assert.equal((await run(['compact', input, '--window', '8000', '--out', fresh])).code, 0);
  },
);

test('an empty conversation is refused instead of written as sendable', { skip }, async () => {
  for (const [name, value] of [
    ['empty.json', []],
    ['only-system.json', [{ role: 'system', content: 'You are an agent.' }]],
  ] as const) {
    const out = path.join(tmp, `${name}.out`);
    const r = await run(['compact', write(name, value), '--window', '8000', '--out', out]);
    assert.equal(r.code, 2, r.stdout);
    assert.match(r.stderr, /no user or assistant message/);
    assert.equal(fs.existsSync(out), false);
  }
});

test('compact without --out refuses an empty conversation too: exit 2 with the file named', { skip }, async () => {
  for (const [name, value] of [
    ['empty-no-out.json', []],
    ['only-system-no-out.json', [{ role: 'system', content: 'You are an agent.' }]],
  ] as const) {
    const file = write(name, value);
    for (const extra of [[], ['--json']]) {
      const r = await run(['compact', file, '--window', '8000', ...extra]);
      assert.equal(r.code, 2, r.stdout);
      assert.equal(r.stdout, '', 'no report that could read as "nothing changed"');
      assert.equal(
        r.stderr.trim(),
        `context-keeper: ${file}: the conversation holds no user or assistant message; nothing to compact`,
      );
    }
  }
});

test('meter and compact of an empty or blank file say that the file is empty, naming it', { skip }, async () => {
  for (const [name, text, what] of [
    ['empty.jsonl', '', 'the file is empty'],
    ['blank.json', '\n  \n', 'the file holds only white space'],
  ] as const) {
    const file = write(name, text);
    for (const args of [
      ['meter', file],
      ['compact', file, '--window', '8000'],
    ]) {
      const r = await run(args);
      assert.equal(r.code, 2, r.stdout);
      assert.equal(r.stderr.trim(), `context-keeper: ${file}:1: ${what}: a transcript holds at least one message`);
      assert.doesNotMatch(r.stderr, /unrecognised/);
    }
  }
});

test(
  'stray keys, tool_calls on a user message and unknown part types are cleaned and reported; the output is sendable',
  { skip },
  async () => {
    const input = write('dirty.json', {
      messages: [
        {
          role: 'user',
          content: 'Go.',
          tool_calls: [{ id: 'x', type: 'function', function: { name: 'f', arguments: '{}' } }],
          timestamp: 12,
        },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Working.' },
            { type: 'video', url: 'v.mp4' },
          ],
          debug: { x: 1 },
        },
      ],
    });
    const out = path.join(tmp, 'dirty.out.json');
    const r = await run(['compact', input, '--window', '8000', '--out', out]);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(fs.readFileSync(out, 'utf8')) as { messages: Array<Record<string, unknown>> };
    assert.deepEqual(doc.messages[0], { role: 'user', content: 'Go.' });
    assert.deepEqual(Object.keys(doc.messages[1]).sort(), ['content', 'role']);
    assert.deepEqual(doc.messages[1].content, [
      { type: 'text', text: 'Working.' },
      { type: 'text', text: '[video content left out]' },
    ]);
    // What import repaired is a note beside the result: standard error, never among the result lines.
    assert.match(r.stderr, /repaired: .*field "tool_calls" is not part of a user message; dropped/);
    assert.match(r.stderr, /repaired: .*content part 1 of type "video"/);
    assert.doesNotMatch(r.stdout, /repaired:/);
    assert.match(r.stdout, /^dirty\.json: /);
  },
);

test('a value nested 20,000 levels deep is refused with the file, line and field', { skip }, async () => {
  const depth = 20_000;
  const input = write(
    'deep.json',
    `{"messages":[{"role":"user","content":"hi"},\n{"role":"assistant","content":"ok","meta":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}]}`,
  );
  const r = await run(['compact', input, '--window', '8000', '--out', path.join(tmp, 'deep.out.json')]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /deep\.json:2: messages\[1\]\.meta\.a.*nested more than 64 levels/);
});

test(
  'a session transcript torn by a crash is read as the session store reads it: bad lines skipped and reported',
  { skip },
  async () => {
    const lines = [
      { id: 'e1', message: { role: 'user', content: 'Start.' } },
      { id: 'e2', message: { role: 'assistant', content: 'Started.' } },
    ].map((e) => JSON.stringify(e));
    const input = write('transcript.jsonl', `${lines[0]}\n{ garbage\n${lines[1]}\n{"id":"e3","message":{"role":"us`);
    const r = await run(['meter', input, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { messages: number; warnings: string[] };
    assert.equal(report.messages, 2);
    assert.ok(
      report.warnings.some((w) => /transcript\.jsonl:2: not valid JSON; skipped/.test(w)),
      report.warnings.join('\n'),
    );
    assert.ok(
      report.warnings.some((w) => /transcript\.jsonl:4: incomplete last line/.test(w)),
      report.warnings.join('\n'),
    );
  },
);
