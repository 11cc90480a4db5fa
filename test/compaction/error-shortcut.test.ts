/**
 * The shortcut in `looksLikeError` (a plain search for the phrase the last pattern removes before
 * copying the text to remove it) never changes a decision: it says "error" exactly where the
 * patterns read without shortcuts (`matchesErrorPatterns`) do, on the tool results and messages of the
 * generated heavy conversation, on generated texts built around each pattern (short, long, with the
 * words at the ends and in the middle, in any case), and on every message of the recorded
 * transcripts in ../shared/transcripts when present.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { looksLikeError, matchesErrorPatterns } from '../../src/compaction/text';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { exitStatus } from '../../src/compaction/summary/ledger/actions';
import { loadSession } from '../../src/cli/load';
import { generateSession } from '../../bench/corpus';
import { itemsFromEntries } from '../../src/compaction/context';
import { rng } from '../support/generate';
import { sharedTranscriptsDir } from '../support/shared';

/** Checks every text; returns how many read as errors and how many do not. */
function check(texts: Iterable<string>, where: string): { matched: number; clean: number } {
  let matched = 0;
  let clean = 0;
  for (const t of texts) {
    const full = matchesErrorPatterns(t);
    if (full) matched++;
    else clean++;
    if (looksLikeError(t) !== full)
      assert.fail(`${where}: the decisions differ (reference ${full}) on ${JSON.stringify(t.slice(0, 200))}`);
  }
  return { matched, clean };
}

const SNIPPETS = [
  'Error: cannot find module',
  'error TS2322: Type',
  'npm ERR! code 1',
  'npm error code E404',
  'ERROR: build failed',
  'Traceback (most recent call last):',
  'FAILED tests/test_a.py',
  '3 failed, 10 passed',
  '0 failed, 12 passed',
  "thread 'main' panicked at src/main.rs",
  'fatal: not a git repository',
  'Exit code: 2',
  'exited with code 1',
  'exit status 127',
  '"exit_code": 1',
  'returncode=2',
  '"is_error": true',
  'is_error',
  '"error": {"message": "x"}',
  'Process exited with code 3',
  'exit code 0',
  '0 failed',
  'Traceback 0 failed(most recent call last)',
  '10 failed, 0 failed',
  'all tests passed',
  'compiled successfully',
  'EXIT CODE: 1',
  'Failed to compile',
  'RETURN_CODE = 4',
];
const FILLER =
  'the build output lists modules files and paths src/app.ts ok done value config parser token window'.split(' ');

function generatedTexts(seed: number, n: number): string[] {
  const r = rng(seed);
  const word = () => FILLER[Math.floor(r() * FILLER.length)];
  const filler = (k: number) => Array.from({ length: k }, word).join(r() < 0.1 ? '\n' : ' ');
  const cased = (s: string) => (r() < 0.3 ? s.toUpperCase() : r() < 0.5 ? s.toLowerCase() : s);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const snippet = cased(SNIPPETS[Math.floor(r() * SNIPPETS.length)]);
    // Short and long texts (the patterns read the first and last 400 and 4,000 characters), the
    // snippet at the start, the end, in the middle of a long text, or absent.
    const size = r() < 0.5 ? Math.floor(r() * 80) : Math.floor(r() * 3000);
    const at = r();
    const body = filler(size);
    out.push(
      at < 0.25
        ? `${snippet}\n${body}`
        : at < 0.5
          ? `${body}\n${snippet}`
          : at < 0.75
            ? `${body.slice(0, body.length / 2)} ${snippet} ${body.slice(body.length / 2)}`
            : body,
    );
  }
  return out;
}

test('error shortcut: the same decisions as the patterns (generated texts around each pattern)', () => {
  const { matched, clean } = check(generatedTexts(11, 4000), 'generated');
  // Both sides occur, or the test could not fail.
  assert.ok(matched > 500, `matched ${matched}`);
  assert.ok(clean > 200, `clean ${clean}`);
});

test('error shortcut: the same decisions as the patterns (the bench conversation)', () => {
  const items = itemsFromEntries(generateSession(5, 4000 * 300).slice(0, 4000));
  const { matched, clean } = check(
    items.map((it) => textWithPlaceholders(it.message.content)),
    'bench conversation',
  );
  assert.ok(matched > 0 && clean > 0, `matched ${matched}, clean ${clean}`);
});

test('exit status: read from the first 2,000 and last 400 characters, the scan for "exit" changes nothing', () => {
  assert.equal(exitStatus('building…\nProcess exited with code 3'), 3);
  assert.equal(exitStatus(`EXIT CODE: 2\n${'x '.repeat(3000)}`), 2);
  assert.equal(exitStatus(`${'x '.repeat(3000)}\nexited with code 1`), 1);
  // Only the ends are read: an exit in the middle of a long output is not the command's.
  assert.equal(exitStatus(`${'x '.repeat(1500)}exit code 4${' y'.repeat(1500)}`), undefined);
  assert.equal(exitStatus('all tests passed'), undefined);
});

const dir = sharedTranscriptsDir();
test('error shortcut: the same decisions as the patterns (recorded transcripts)', async (t) => {
  if (!dir)
    return t.skip('../shared/transcripts not found beside the repository; set CONTEXT_KEEPER_SHARED to run this');
  const files = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => fs.readdirSync(path.join(dir, d.name)).map((f) => path.join(dir, d.name, f)));
  let matched = 0;
  for (const file of files) {
    const s = await loadSession(file);
    matched += check(
      s.items.map((it) => textWithPlaceholders(it.message.content)),
      path.relative(dir, file),
    ).matched;
  }
  assert.ok(matched > 0, 'no message of the transcripts reads as an error');
});
