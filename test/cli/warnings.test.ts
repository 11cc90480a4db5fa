/**
 * What the command-line tool says beside its result: a model whose tokenizer encoding is not known
 * is named with the encoding that counts instead (a warning on standard error and `encodingWarning`
 * in `--json`, for every command that takes `--model`), and the repairs import made (tool pairing,
 * reused ids, interrupted calls) are `repaired:` lines on standard error in the text output of
 * `meter`, `compact` and `replay`, and listed in full in their `--json` reports. `models --json` writes its notes to standard error, its output staying the array.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compactCommand, meterCommand, replayCommand, type BudgetOptions } from '../../src/cli/commands';
import { modelsCommand } from '../../src/cli/models';
import { fakeServer } from '../models/fake-servers';
import { sharedTranscriptsDir } from '../support/shared';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-cli-warnings-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const call = (id: string, command: string) => ({
  id,
  type: 'function',
  function: { name: 'run_command', arguments: JSON.stringify({ command }) },
});
/** Two calls with one id inside one reply, and a last call left without a result. */
const repairedChat = {
  model: 'gpt-4o',
  messages: [
    { role: 'user', content: 'List the files and the folder.' },
    { role: 'assistant', content: null, tool_calls: [call('c1', 'ls'), call('c1', 'pwd')] },
    { role: 'tool', tool_call_id: 'c1', content: 'a.txt' },
    { role: 'tool', tool_call_id: 'c1', content: '/home/dev' },
    { role: 'assistant', content: 'Reading a.txt.', tool_calls: [call('c2', 'cat a.txt')] },
  ],
};
const file = path.join(tmp, 'repaired.json');
fs.writeFileSync(file, JSON.stringify(repairedChat));
const REPAIRS = [
  /occur twice in one step and were made unique: c1/,
  /no recorded result: c2/,
  /had no result \(c2\); added a placeholder result/,
];

const budget = (extra: Partial<BudgetOptions> = {}): BudgetOptions => ({
  window: 8000,
  at: 0.8,
  to: 0.5,
  keepSteps: 1,
  summarizer: 'extractive',
  ...extra,
});

/** Runs a command with its result lines and its notes (standard error) collected apart. */
async function run(
  command: (out: (l: string) => void, note: (l: string) => void) => Promise<void>,
): Promise<{ out: string; notes: string[] }> {
  const out: string[] = [];
  const notes: string[] = [];
  const exitCode = process.exitCode;
  try {
    await command(
      (l) => out.push(l),
      (l) => notes.push(l),
    );
  } finally {
    process.exitCode = exitCode;
  }
  return { out: out.join('\n'), notes };
}

const commands = {
  meter: (model: string | undefined, json: boolean) =>
    run((out, note) => meterCommand(file, { model, json }, out, note)),
  compact: (model: string | undefined, json: boolean) =>
    run((out, note) => compactCommand(file, budget({ model, json }), out, note)),
  replay: (model: string | undefined, json: boolean) =>
    run((out, note) => replayCommand(file, budget({ model, json }), out, note)),
};

for (const [name, command] of Object.entries(commands)) {
  test(`${name} --model with an unknown name warns on standard error and in --json, naming the model and the encoding`, async () => {
    for (const json of [false, true]) {
      const r = await command('gtp-4o', json);
      const warnings = r.notes.filter((l) => l.startsWith('warning: '));
      assert.equal(warnings.length, 1, r.notes.join('\n'));
      assert.match(
        warnings[0],
        /^warning: --model "gtp-4o" is not a model whose tokenizer encoding is known; counting with o200k_base/,
      );
      assert.doesNotMatch(warnings[0], /\n/);
      assert.doesNotMatch(r.out, /gtp-4o" is not/, 'the warning is not among the result lines');
      if (json) {
        const report = JSON.parse(r.out) as { model: string; encoding: string; encodingWarning: string | null };
        assert.equal(report.model, 'gtp-4o');
        assert.equal(report.encoding, 'o200k_base');
        assert.equal(`warning: ${report.encodingWarning}`, warnings[0]);
      }
    }
  });

  test(`${name}: a known model (named or recorded) gives no encoding warning and encodingWarning null`, async () => {
    for (const model of ['gpt-4', undefined]) {
      const r = await command(model, true);
      assert.deepEqual(
        r.notes.filter((l) => l.startsWith('warning: ')),
        [],
      );
      const report = JSON.parse(r.out) as { encoding: string; encodingWarning: string | null };
      assert.equal(report.encodingWarning, null);
      assert.equal(report.encoding, model === 'gpt-4' ? 'cl100k_base' : 'o200k_base');
    }
  });
}

test("a recorded model with no known encoding is named too, as the recording's", async () => {
  const other = path.join(tmp, 'claude.json');
  fs.writeFileSync(other, JSON.stringify({ ...repairedChat, model: 'claude-opus-4-7' }));
  const r = await run((out, note) => compactCommand(other, budget({ json: true }), out, note));
  assert.match(
    r.notes.join('\n'),
    /^warning: the recorded model "claude-opus-4-7" has no known tokenizer encoding; counting with o200k_base/m,
  );
  assert.match((JSON.parse(r.out) as { encodingWarning: string }).encodingWarning, /recorded model "claude-opus-4-7"/);
});

for (const name of ['meter', 'compact', 'replay'] as const) {
  test(`${name} --json lists every repair the text output prints as "repaired:" lines`, async () => {
    const text = await commands[name](undefined, false);
    const printed = text.notes.filter((l) => l.startsWith('repaired: ')).map((l) => l.slice('repaired: '.length));
    assert.doesNotMatch(
      text.out,
      /repaired:|warning:/,
      'repairs are notes on standard error, never among the result lines',
    );
    for (const re of REPAIRS)
      assert.ok(
        printed.some((w) => re.test(w)),
        `${re} printed:\n${text.notes.join('\n')}`,
      );
    const json = await commands[name](undefined, true);
    const report = JSON.parse(json.out) as { warnings: string[] };
    assert.deepEqual(report.warnings, printed);
    assert.deepEqual(json.notes, [], 'with --json the repairs are in the report, not on standard error');
  });
}

test('meter --json and compact --json list the same repairs', async () => {
  const meter = JSON.parse((await commands.meter(undefined, true)).out) as { warnings: string[] };
  const compact = JSON.parse((await commands.compact(undefined, true)).out) as { warnings: string[] };
  assert.deepEqual(compact.warnings, meter.warnings);
  for (const re of REPAIRS)
    assert.ok(
      meter.warnings.some((w) => re.test(w)),
      String(re),
    );
});

test('models --json: what the probes found wrong goes to standard error; standard output stays the array', async (t) => {
  const server = await fakeServer({});
  t.after(() => server.close());
  const r = await run((out, note) =>
    modelsCommand({ baseUrl: `${server.url}/v1`, json: true, timeoutMs: 5_000 }, out, {}, undefined, note),
  );
  assert.deepEqual(JSON.parse(r.out), []);
  assert.ok(r.notes.length > 0, 'the notes are not lost');
  assert.match(r.notes[0], /^note: GET http:\/\/127\.0\.0\.1:\d+\/v1\/models: /);
});

const shared = sharedTranscriptsDir();
test(
  'compact --json counts the compactions recorded in the file, as the text output says them',
  { skip: shared ? false : '../shared/transcripts not found beside the repository' },
  async () => {
    const recording = path.join(shared!, 'openai-chat', fs.readdirSync(path.join(shared!, 'openai-chat'))[0]);
    const text = await run((out, note) => compactCommand(recording, budget({ window: 128_000 }), out, note));
    const said = /\((\d+) compaction\(s\) recorded in the file became import checkpoints\)/.exec(text.out);
    assert.ok(said, text.out);
    const json = await run((out, note) =>
      compactCommand(recording, budget({ window: 128_000, json: true }), out, note),
    );
    assert.equal((JSON.parse(json.out) as { importedCompactions: number }).importedCompactions, Number(said[1]));
  },
);
