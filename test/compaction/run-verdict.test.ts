/**
 * One verdict per run, read alike by the summary and its scorecard (`retention/outcome.ts`): a run
 * whose exit status is 0 (or unstated) but whose output reports a failure failed; a tool's own
 * success flag wins where the recording has one; a refused call is "denied by the user", neither
 * failed nor done; a search that matched nothing (exit 1) answered "no"; the content of a file that
 * was read is never a failure. Built in each recording format that words these.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, compactExtractive, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { collapsedVerdict, commandVerdict, failureReport, isDenial } from '../../src/compaction/retention/outcome';
import { typedPart } from '../../src/compaction/retention/requests';
import { errorNamedIn } from '../../src/compaction/retention/presence';
import type { ErrorSignature } from '../../src/compaction/retention/errors';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

async function compacted(format: keyof typeof WRITERS, steps: Step[]) {
  const w = WRITERS[format];
  const r = await compactExtractive(itemsFromEntries(importTranscriptTextSync(w.write(steps), w.file).entries));
  assert.ok('context' in r && 'checkpoints' in r, `${format}: compacted`);
  const summary = r.context.find((i) => i.kind === 'summary');
  assert.ok(summary, `${format}: a summary was written`);
  const card = r.checkpoints.find((c) => c.strategy === 'extractive')?.retention;
  assert.ok(card, `${format}: the checkpoint has a scorecard`);
  return { summary: textWithPlaceholders(summary.message.content), card };
}

const tail: Step[] = [{ say: `Looked into it. ${filler(1500)}` }, { user: 'go on' }, { say: 'ok' }];
const PROBE = `node -e "require('pg').connect().catch(e => console.error('Error:', e.message))"`;

test('a run that exits 0 but prints an error report failed, in the summary and the scorecard alike', async () => {
  for (const format of ['cline', 'codex', 'openai-chat', 'swe-agent'] as const) {
    const { summary, card } = await compacted(format, [
      { user: 'check the database connection' },
      { tool: 'bash', command: PROBE, output: 'Error: read ECONNRESET', exit: 0 },
      ...tail,
    ]);
    // SWE-agent's writer words "go on" as a new task: the failure is listed as an earlier turn's.
    assert.match(
      summary,
      format === 'swe-agent'
        ? /^- unresolved when that turn ended \(a newer request came after it\): `node -e[^\n]*Error: read ECONNRESET/m
        : /^- open: `node -e[^\n]*Error: read ECONNRESET/m,
      `${format}\n${summary}`,
    );
    assert.doesNotMatch(summary, /^- `node -e[^\n]*→ ok/m, `${format}\n${summary}`);
    // The scorecard counts it as the summary lists it: open work, or apart as an earlier turn's.
    assert.equal(card.errors.open, format === 'swe-agent' ? 0 : 1, `${format}\n${summary}`);
    assert.equal(card.errors.earlierTurn, format === 'swe-agent' ? 1 : undefined, `${format}\n${summary}`);
  }
});

test('a tool’s own success flag wins over the output’s wording (Claude Code)', async () => {
  const { summary, card } = await compacted('claude-code', [
    { user: 'check the database connection' },
    { tool: 'bash', command: PROBE, output: 'Error: read ECONNRESET' },
    ...tail,
  ]);
  assert.doesNotMatch(summary, /^- open:/m, summary);
  assert.equal(card.errors.open, 0, summary);
});

test('a stack trace after a passing verdict, and the content of a file read, are no failure', async () => {
  assert.equal(failureReport('Error: mock rejected\n    at x (a.js:1:1)\nTests: 4 passed, 4 total'), '');
  assert.equal(
    failureReport('Connected\nError: read ECONNRESET\n    at Socket (net.js:1:1)'),
    'Error: read ECONNRESET',
  );
  for (const format of ['cline', 'codex', 'openai-chat'] as const) {
    const { summary, card } = await compacted(format, [
      { user: 'look at the log and the schema' },
      { tool: 'read', path: 'logs/app.log', output: 'Error: read ECONNRESET\nTypeError: x is undefined\n' },
      { tool: 'bash', command: 'cat logs/app.log', output: 'Error: read ECONNRESET', exit: 0 },
      ...tail,
    ]);
    assert.doesNotMatch(summary, /^- open:/m, `${format}\n${summary}`);
    assert.equal(card.errors.open, 0, `${format}\n${summary}`);
  }
});

test('a refused call is denied by the user: not done, not a failure to fix, its file not changed', async () => {
  const denial = {
    cline: 'The user denied this operation.',
    'claude-code':
      "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.",
    'openai-chat': 'The user denied this operation.',
  } as const;
  for (const format of ['cline', 'claude-code', 'openai-chat'] as const) {
    const { summary, card } = await compacted(format, [
      { user: 'restart the proxy and fix the env file' },
      {
        tool: 'bash',
        command: 'taskkill /F /IM proxy.exe && start proxy.exe --port=5432',
        output: '',
        result: denial[format],
        ok: false,
      },
      { tool: 'edit', path: 'config/.env.local', old: 'A=1', new: 'A=2', result: denial[format], ok: false },
      ...tail,
    ]);
    assert.match(
      summary,
      /^- `taskkill \/F \/IM proxy\.exe && start proxy\.exe --port=5432` → denied by the user$/m,
      `${format}\n${summary}`,
    );
    assert.doesNotMatch(summary, /^- open:/m, `${format}\n${summary}`);
    assert.doesNotMatch(summary, /config\/\.env\.local: edited/, `${format}\n${summary}`);
    assert.equal(card.errors.open + card.errors.resolved, 0, `${format}\n${summary}`);
    assert.equal(card.filesChanged.total, 0, `${format}\n${summary}`);
  }
  assert.ok(isDenial("[execute_command for 'npm i'] Result:\nThe user denied this operation."));
  assert.ok(isDenial('exec command rejected by user'));
  assert.ok(!isDenial('Permission denied (publickey).'));
});

test('a denied run does not fix an earlier failure of the same command', () => {
  assert.deepEqual(commandVerdict('npm test', 'The user denied this operation.', undefined, undefined), {
    failed: false,
    denied: true,
  });
});

test('a search that matched nothing (exit 1) answered "no" in the summary and the scorecard; exit 2 failed', async () => {
  for (const format of ['cline', 'codex', 'claude-code', 'openai-chat'] as const) {
    const { summary, card } = await compacted(format, [
      { user: 'make sure no type errors are left' },
      { tool: 'bash', command: 'cd /w && npx tsc --noEmit 2>&1 | findstr "error TS"', output: '', ok: false, exit: 1 },
      { tool: 'bash', command: 'grep -rn "getStorage" src', output: '', ok: false, exit: 1 },
      { tool: 'bash', command: 'diff old.txt new.txt', output: '1c1\n< a\n---\n> b', ok: false, exit: 1 },
      ...tail,
    ]);
    assert.doesNotMatch(summary, /^- open:/m, `${format}\n${summary}`);
    assert.match(summary, /^- `grep -rn "getStorage" src` → no match/m, `${format}\n${summary}`);
    assert.equal(card.errors.open, 0, `${format}\n${summary}`);
  }
  // A pipe or separator inside a quoted pattern is the pattern's, not the shell's.
  assert.equal(
    commandVerdict('cd /w && npx tsc --noEmit 2>&1 | findstr /i "gcs-storage\\|firebase-admin"', '', 1, undefined)
      .answer,
    'no match',
  );
  assert.equal(commandVerdict('grep -E "a|b;c" src/a.ts', '', 1, undefined).answer, 'no match');
  const grepError = commandVerdict('grep -rn x src', 'grep: src: No such file or directory', 2, undefined);
  assert.equal(grepError.failed, false, 'a missing path is a probe’s "not found"');
  assert.equal(commandVerdict('grep -rn "(" src', 'grep: Unmatched ( or \\(', 2, undefined).failed, true);
});

test('an open error quoted in the summary by its full command (cd prefix, 2>&1, a pipe) is named', () => {
  const e: ErrorSignature = {
    index: 3,
    tool: 'command',
    key: 'npm run build | findstr error',
    line: '',
    files: [],
    state: 'open',
  };
  const text = '- open: `cd /d "C:\\Apps\\My App" && npm run build 2>&1 | findstr error` → exit 1';
  assert.ok(errorNamedIn(e, text, text.toLowerCase()));
  assert.ok(!errorNamedIn({ ...e, key: 'npm run lint | findstr error' }, text, text.toLowerCase()));
});

test('a collapsed record’s stated outcome is read back alike; a reply that carries no request is not a typed request', () => {
  const rec = (state: string) =>
    `[tool result collapsed] execute_command command=npx tsc --noEmit | findstr "error TS" → ${state}, 0 characters, 0 lines. The full output is kept in ContextKeeper's checkpoint history; run the tool again if it is needed.`;
  assert.deepEqual(collapsedVerdict(rec('ok (no match)')), { failed: false, answer: 'no match' });
  assert.deepEqual(collapsedVerdict(rec('error')), { failed: true });
  assert.deepEqual(collapsedVerdict(rec('denied by the user')), { failed: false, denied: true });
  assert.equal(
    commandVerdict('npx tsc --noEmit | findstr "error TS"', rec('error'), undefined, undefined).failed,
    true,
  );
  assert.equal(collapsedVerdict('Error: read ECONNRESET'), undefined);
  for (const t of [
    'y',
    'exit',
    "Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: all",
    '/help',
  ])
    assert.equal(typedPart(t), '', t);
  assert.equal(typedPart('fix the login page'), 'fix the login page');
});
