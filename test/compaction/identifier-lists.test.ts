/**
 * The lists of identifiers a summary carries hold tokens that occur in the span as identifiers, in
 * every recording format: no whole shell commands or other text with spaces (a Windows path aside),
 * no paths a documentation file only cites, no last word of a file name with spaces, no member of
 * code taken for a file (`SqlTypes.JSON`, `response.json()`), no terminal colour codes (the control
 * byte or its escaped spelling as text, `\x1b[1;34m`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, summaryOf, windowFor, type Step } from '../support/recordings';
import { extractIdentifiers, isOneToken } from '../../src/compaction/summary/identifiers/identifiers';
import { backfillIdentifiers } from '../../src/compaction/summary/identifiers/backfill';
import { A, Acalls, T, U, items } from '../support/conversation';

const ESC = String.fromCharCode(27);
const filler = (n: number) => 'The provider registry now resolves the local server. '.repeat(n);

const work: Step[] = [
  { user: 'wire the local model provider' },
  {
    tool: 'bash',
    command: "cat 'LM Studio configuration.md'",
    output: 'Create lib/ai/providers/lmstudio.ts and point it at the local server.\nSee also docs/providers-guide.md.',
  },
  { tool: 'read', path: 'docs/setup.md', output: 'Put the key in config/secrets/local-model.yaml first.' },
  {
    tool: 'bash',
    command: 'rg -n "createProvider" src | head -20',
    output: 'src/ai/fallback-chain.ts:3:  createProvider(next)\nsrc/ai/registry.ts:14:  createProvider("ollama")',
  },
  {
    tool: 'bash',
    command: 'npm run build 2>&1 | tail -5',
    output: `built ${ESC}[32mdist/index.js${ESC}[0m and \\x1b[1;34mdist/chunk-a.js\\x1b[0m`,
  },
  { tool: 'edit', path: 'src/ai/registry.ts', old: 'createProvider("ollama")', new: 'createProvider("lmstudio")' },
  { say: `Registered the provider. ${filler(80)}` },
  { user: 'thanks, now the docs' },
  { say: 'ok' },
];

/** The lines of the summary's identifier lists (every "## Identifiers…" section). */
function identifierLines(summary: string): string[] {
  return summary
    .split(/\n(?=## )/)
    .filter((s) => s.startsWith('## Identifiers'))
    .flatMap((s) => s.split('\n').slice(1))
    .filter((l) => l.startsWith('- '))
    .map((l) => l.slice(2).replace(/ \(moved; now .*\)$/, ''));
}

for (const [format, { write, file }] of Object.entries(WRITERS)) {
  test(`${format}: the identifier lists hold tokens of the work, none of the noise kinds`, async () => {
    // Room beside the sections for the identifiers this reads (a smaller one names what it leaves out first).
    const { summary } = await summaryOf(write(work), file, windowFor(write(work), file, 1.9));
    const ids = identifierLines(summary);
    assert.ok(ids.length > 0, summary);
    // No command, no sentence: one token each.
    for (const id of ids) assert.ok(!/\s/.test(id), `not one token: ${id}\n${summary}`);
    // Paths only a documentation file cites are not carried; a search hit's are.
    assert.ok(!summary.includes('lib/ai/providers/lmstudio.ts'), summary);
    assert.ok(!summary.includes('config/secrets/local-model.yaml'), summary);
    assert.ok(summary.includes('src/ai/fallback-chain.ts'), summary);
    // A file name with spaces is one file: never its last word alone.
    assert.doesNotMatch(summary, /(?<!LM Studio )configuration\.md/, summary);
    // Terminal colour codes are no part of an identifier.
    for (const id of ids) assert.ok(!/x1b|\[\d+(?:;\d+)*m/.test(id) && !id.includes(ESC), `colour code in ${id}`);
  });
}

test('a member of code is no file name; a file name in capitals is one', () => {
  const ids = extractIdentifiers(
    [
      '    @JdbcTypeCode(SqlTypes.JSON)',
      '    const body = await response.json();',
      '    const port = process.env.PORT;',
      'copied IMG_0042.JPG and notes.txt',
    ].join('\n'),
  );
  for (const noise of ['SqlTypes.JSON', 'response.json', 'process.env'])
    assert.ok(!ids.includes(noise), ids.join('\n'));
  assert.ok(ids.includes('IMG_0042.JPG'), ids.join('\n'));
  assert.ok(ids.includes('notes.txt'), ids.join('\n'));
});

test('colour codes, as the control byte or escaped as text, are masked before reading identifiers', () => {
  const ids = extractIdentifiers(
    `${ESC}[1;34m"path"${ESC}[0m: "src/a.ts"\n\\x1b[1;34m"file"\\x1b[0m: "src/b.ts"\n\\\\u001b[0;32msrc/c.ts\\\\u001b[0m`,
  );
  assert.ok(ids.includes('src/a.ts') && ids.includes('src/b.ts') && ids.includes('src/c.ts'), ids.join('\n'));
  assert.ok(!ids.some((i) => /x1b|u001b|\[\d+(?:;\d+)*m/.test(i) || i.includes(ESC)), ids.join('\n'));
});

test('one token: a Windows path may hold spaces, a command may not', () => {
  assert.equal(isOneToken('c:\\Apps\\MRA - Copy\\src\\a.ts'), true);
  assert.equal(isOneToken('src/a.ts'), true);
  assert.equal(isOneToken('ls -la src'), false);
});

test("a terminal's echo that split a path gives no piece of it; a JSON line break after a letter is no drive path", () => {
  const full = '/home/u/conv/e03964cb/base_state.json';
  const span = items([
    U('why is the list empty?'),
    Acalls([['c1', 'bash', JSON.stringify({ command: `jq '.messages' ${full}` })]]),
    T('c1', `$ jq '.messages' /home/u/conv/e039 64cb/base_state.json\nnull`),
    A('It holds no messages.'),
  ]);
  const { added } = backfillIdentifiers('## Current work and next step\n- none', span, 2000);
  assert.ok(added.includes(full), added.join('\n'));
  assert.ok(!added.some((id) => id !== full && full.endsWith(id)), added.join('\n'));
  assert.ok(!extractIdentifiers('{"text": "f:\\n  done"}').includes('f:\\n'));
  assert.ok(extractIdentifiers('see C:\\Users\\dev\\app\\main.ts').includes('C:\\Users\\dev\\app\\main.ts'));
});
