/**
 * `context-keeper recall` on a recording: finds a phrase in what the recording agent's own
 * compaction replaced and cites it, reads a range, lists the compactions, masks credentials, and
 * names what is wrong in bad input.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { RECORDED_KEY, REPLACED_PHRASE, claudeRecordingWithCompaction } from './recording';

const cli = path.resolve(__dirname, '../../../dist/cli.js');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-cli-recall-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const skip = fs.existsSync(cli) ? false : 'needs a built dist/cli.js (npm run build)';
const recording = path.join(tmp, 'session.jsonl');
fs.writeFileSync(recording, claudeRecordingWithCompaction());

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

test("recall FILE QUERY finds a phrase the recording's own compaction replaced and cites it", { skip }, async () => {
  const r = await run(['recall', recording, 'cache key omits']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^1 message matches "cache key omits"/);
  assert.match(r.stdout, /\[1\] message 3 \(id u3\), tool result of Bash, replaced by checkpoint import-1/);
  assert.ok(r.stdout.includes(REPLACED_PHRASE));
  assert.ok(!r.stdout.includes(RECORDED_KEY), 'the token is masked');
  assert.match(r.stdout, /--read 3/);

  const json = await run(['recall', recording, 'cache key omits', '--json']);
  const parsed = JSON.parse(json.stdout);
  assert.equal(parsed.hits[0].checkpoints[0], 'import-1');
  assert.equal(parsed.hits[0].role, 'tool');
});

test(
  'recall FILE --read and --checkpoint read messages whole; FILE alone lists the compactions',
  { skip },
  async () => {
    const read = await run(['recall', recording, '--read', '2-3']);
    assert.equal(read.code, 0, read.stderr);
    assert.match(read.stdout, /── message 2 \(id u2\), assistant, calling Bash, replaced by checkpoint import-1/);
    assert.match(read.stdout, /│ → Bash\(\{"command":"grep -rn cacheKey src\/"\}\)/);
    assert.ok(read.stdout.includes(`│ src/cache.ts:12: // note: ${REPLACED_PHRASE}`));
    assert.ok(!read.stdout.includes(RECORDED_KEY));

    const byCheckpoint = await run(['recall', recording, '--checkpoint', 'import-1']);
    assert.equal(byCheckpoint.code, 0, byCheckpoint.stderr);
    assert.match(byCheckpoint.stdout, /^Messages 1-4 of 7 \(those checkpoint import-1 replaced\)/);

    const list = await run(['recall', recording]);
    assert.match(list.stdout, /claude-code session, 7 messages\.\ncheckpoint import-1 replaced messages 1-4/);
  },
);

test('recall names what is wrong: an unknown checkpoint, a bad range, a malformed line', { skip }, async () => {
  const unknown = await run(['recall', recording, 'cache', '--checkpoint', 'import-7']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no checkpoint "import-7" in force; known: import-1/);
  const range = await run(['recall', recording, '--read', 'ten']);
  assert.equal(range.code, 2);
  assert.match(range.stderr, /expected a message number or range such as 37 or 37-40, got "ten"/);
  const both = await run(['recall', recording, 'cache', '--read', '1']);
  assert.match(both.stderr, /either a QUERY to search or --read/);
  const broken = path.join(tmp, 'broken.jsonl');
  fs.writeFileSync(
    broken,
    claudeRecordingWithCompaction().replace('"type":"assistant"', '"type":"assistant","message":7,"x"'),
  );
  const bad = await run(['recall', broken, 'cache']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /broken\.jsonl:2: invalid JSON/);
});

test(
  "recall numbers messages as compact's checkpoint lines do, placeholder results for unanswered calls included",
  { skip },
  async () => {
    const big = (n: number) => `line ${n} of the module\n`.repeat(300);
    const messages: unknown[] = [{ role: 'system', content: 'You are a coding agent.' }];
    messages.push({ role: 'user', content: 'Read the modules.' });
    // An interrupted call: no result was recorded, so the import adds a placeholder after it.
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'lost', type: 'function', function: { name: 'Read', arguments: '{"file_path":"a.ts"}' } }],
    });
    // Long reasoning the collapse tier cannot shorten: a summary is written.
    for (let i = 1; i <= 8; i++) {
      messages.push({
        role: 'assistant',
        content: big(i),
        tool_calls: [
          { id: `c${i}`, type: 'function', function: { name: 'Read', arguments: `{"file_path":"m${i}.ts"}` } },
        ],
      });
      messages.push({ role: 'tool', tool_call_id: `c${i}`, content: `module ${i}` });
    }
    messages.push({ role: 'user', content: 'Now summarise them.' });
    const file = path.join(tmp, 'interrupted.json');
    fs.writeFileSync(file, JSON.stringify({ messages }));
    const compacted = await run(['compact', file, '--window', '4000', '--json']);
    assert.equal(compacted.code, 0, compacted.stderr);
    const summary = JSON.parse(compacted.stdout).checkpoints.find((c: { coverage?: unknown }) => c.coverage);
    assert.ok(summary, compacted.stdout);
    const last: number = summary.coverage.parts.at(-1).last;
    const read = JSON.parse((await run(['recall', file, '--read', String(last), '--json'])).stdout);
    assert.equal(read.messages[0].id, summary.replacedIds.at(-1), 'the same message at the same position');
    const placeholder = JSON.parse((await run(['recall', file, '--read', '4', '--json'])).stdout);
    assert.equal(placeholder.messages[0].role, 'tool', 'the placeholder result follows the interrupted call');
  },
);
