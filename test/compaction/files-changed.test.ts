/**
 * The state of the code from every agent's edits: each file created or changed is named in the
 * summary's "Files changed" section with what changed (the functions, classes and endpoints an edit
 * defines, else its changed line), and the files read are listed, whatever tool or format made the
 * edit (Claude Code Write/Edit, Codex apply_patch through the shell, Cline write_to_file and
 * replace_in_file, OpenHands and SWE-agent str_replace_editor, Aider SEARCH/REPLACE, shell writes).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_WRITERS, summaryOf, type Step, sectionOf } from '../support/recordings';
import { actionsOf } from '../../src/compaction/summary/ledger/actions';
import { A, Acalls, T, U, items } from '../support/conversation';

const filler = (n: number) => `${'lorem ipsum dolor sit amet '.repeat(n)}`;

const work: Step[] = [
  { user: 'add a health endpoint and a retry helper' },
  {
    tool: 'read',
    path: 'src/server.ts',
    output: `import express from 'express';\nconst app = express();\n${filler(30)}`,
  },
  {
    tool: 'write',
    path: 'src/retry.ts',
    content:
      'export async function withRetry(fn: () => Promise<void>, times = 3) {\n  return fn();\n}\nexport class RetryError extends Error {}',
  },
  {
    tool: 'edit',
    path: 'src/server.ts',
    old: 'const app = express();',
    new: "const app = express();\napp.get('/health', (_req, res) => res.send('ok'));",
  },
  { tool: 'edit', path: 'README.md', old: 'Run it.', new: 'Run it with `npm start`; GET /health answers ok.' },
  { say: `Done. ${filler(500)}` },
  { user: 'thanks, now the docs' },
  { say: 'ok' },
];

for (const [format, { write, file }] of Object.entries(ALL_WRITERS)) {
  test(`${format}: every file created or changed is named under Files changed with what changed`, async () => {
    const { summary } = await summaryOf(write(work), file);
    const section = sectionOf(summary, 'Files changed');
    assert.match(section, /src\/retry\.ts[^\n]*created[^\n]*withRetry, RetryError/, summary);
    assert.match(section, /src\/server\.ts[^\n]*edited[^\n]*GET \/health/, summary);
    assert.match(
      section,
      /README\.md[^\n]*edited[^\n]*last change: "Run it with `npm start`; GET \/health answers ok\."/,
      summary,
    );
    if (format !== 'aider')
      assert.match(section, /read only:[^\n]*src\/server\.ts|src\/server\.ts: read, edited/, summary);
  });
}

test('shell and script writes name their files: heredocs, redirection, tee, sed -i, python and node writes; redirects to streams are no files', () => {
  const script = [
    "cat > src/api/routes.py <<'EOF'\ndef list_orders():\n    return []\nEOF",
    'echo "PORT=8080" >> .env && npm run build 2>&1 | tee build.log',
    "sed -i 's/8080/9090/' config/app.yaml",
    "python3 - <<'PY'\nopen('data/seed.json', 'w').write('[]')\nPY",
    "node -e \"require('fs').writeFileSync('dist/version.txt', '1')\"",
    'ls src > /dev/null 2>&1',
    "cat src/main.ts | head -20 && sed -n '1,40p' lib/util.ts",
  ].join('\n');
  const acts = actionsOf(
    items([U('go'), Acalls([['c1', 'bash', JSON.stringify({ command: script })]]), T('c1', 'done'), A('ok')]),
  );
  const files = acts
    .filter((a) => a.kind === 'file')
    .map((a) => `${a.kind === 'file' ? a.op : ''} ${a.kind === 'file' ? a.path : ''}`);
  for (const f of [
    'created src/api/routes.py',
    'created .env',
    'created build.log',
    'edited config/app.yaml',
    'edited data/seed.json',
    'edited dist/version.txt',
    'read src/main.ts',
    'read lib/util.ts',
  ])
    assert.ok(files.includes(f), `${f} in ${files.join('; ')}`);
  assert.ok(!files.some((f) => /&1|\/dev\/null/.test(f)), files.join('; '));
  const routes = acts.find((a) => a.kind === 'file' && a.path === 'src/api/routes.py');
  assert.deepEqual(routes?.kind === 'file' ? routes.symbols : [], ['list_orders']);
});
