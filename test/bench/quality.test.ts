/**
 * The quality benchmark's own measuring code (bench/quality): the "kept" rule for typed messages,
 * identifier extraction, the agent actions it reads, and the reviewed typed-message list, which must
 * still match the shared transcripts (skipped when they are absent).
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { loadSession } from '../../src/cli/load';
import { keptIn, normalize, WordIndex, words, fingerprint } from '../../bench/quality/text';
import { actionsOf } from '../../bench/quality/actions';
import { emptyIdentifiers, errorLines, fromAction, fromWrittenText } from '../../bench/quality/identifiers';
import { measure, recordingOf } from '../../bench/quality/measure';
import { readTypedData, resolveTyped, typedDataPath } from '../../bench/quality/typed';
import { transcriptFiles } from '../../bench/corpus';

const root = path.resolve(__dirname, '../../..');
const kept = (message: string, context: string) => keptIn(message, normalize(context), new WordIndex(context));
const REQUEST =
  'Please move the token meter into its own module, keep the public API of the compactor unchanged, add tests for the empty conversation and for a conversation of one huge tool result, and then run the whole suite before you commit anything to the branch.';

test('a typed message counts as kept verbatim, with whitespace and line breaks changed', () => {
  assert.equal(kept(REQUEST, `Summary\n- requests:\n${REQUEST.replace(/ /g, '\n  ')}\nend`), 'verbatim');
});

test('a message shortened in the middle counts only while 90% of its words remain', () => {
  const w = REQUEST.split(' ');
  const cut = (n: number) => `${w.slice(0, 20).join(' ')} […${n} words left out…] ${w.slice(20 + n).join(' ')}`;
  // 45 words: dropping 4 keeps 91%, dropping 6 keeps 87%.
  assert.equal(words(REQUEST).length, 45);
  assert.equal(kept(REQUEST, cut(4)), 'words');
  assert.equal(kept(REQUEST, cut(6)), 'no');
});

test('scattered common words do not make a message kept', () => {
  const shuffled = [...REQUEST.split(' ')].reverse().join(' ');
  assert.equal(kept(REQUEST, shuffled), 'no');
});

test('a short message must appear as a whole word sequence', () => {
  assert.equal(kept('center all cards', 'then center all cards.'), 'verbatim');
  assert.equal(kept('center all cards', 'Center   all\ncards please'), 'words');
  assert.equal(kept('center all cards', 'center the cards, all of them'), 'no');
  assert.equal(kept('center all cards', 'recenter all cardsets'), 'no');
});

test('Japanese text is split into words, so a shortened Japanese message is judged by its words', () => {
  const ja =
    '本当にそれだけ？Depositされた回数って何件？バッチで束ねてるし最初settledされないこととかもあったからそれも含めて出して。';
  assert.ok(words(ja).length >= 20);
  assert.equal(kept(ja, `前置き ${ja} 後書き`), 'verbatim');
  assert.equal(kept(ja, ja.slice(0, 20)), 'no');
});

test('fingerprints ignore whitespace differences only', () => {
  assert.equal(fingerprint('a  b\nc '), fingerprint('a b c'));
  assert.notEqual(fingerprint('a b c'), fingerprint('a b d'));
});

test('actions are read from tool calls, SWE-agent function blocks and Aider file blocks', () => {
  const claude = actionsOf(0, {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: 'c1',
        function: {
          name: 'Edit',
          arguments: JSON.stringify({
            file_path: '/w/src/a.ts',
            old_string: 'x',
            new_string: 'export function parseConfig() {}',
          }),
        },
      },
      { id: 'c2', function: { name: 'Bash', arguments: JSON.stringify({ command: 'npm test\necho done' }) } },
    ],
  });
  assert.deepEqual(
    claude.map((a) => [a.kind, a.path ?? a.command, a.callId]),
    [
      ['edit', '/w/src/a.ts', 'c1'],
      ['command', 'npm test\necho done', 'c2'],
    ],
  );
  const codex = actionsOf(1, {
    role: 'assistant',
    tool_calls: [
      {
        id: 'c3',
        function: { name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', 'rg ollama src'] }) },
      },
    ],
  });
  assert.equal(codex[0].command, 'rg ollama src');
  const swe = actionsOf(2, {
    role: 'assistant',
    content:
      'Fix it:\n<function=str_replace_editor>\n<parameter=command>str_replace</parameter>\n<parameter=path>/testbed/x.py</parameter>\n<parameter=new_str>def keep_dtypes(df):</parameter>\n</function>\n<function=str_replace_editor>\n<parameter=command>view</parameter>\n<parameter=path>/testbed/y.py</parameter>\n</function>',
  });
  assert.deepEqual(
    swe.map((a) => [a.kind, a.path]),
    [
      ['edit', '/testbed/x.py'],
      ['other', '/testbed/y.py'],
    ],
  );
  const aider = actionsOf(3, {
    role: 'assistant',
    content: 'Here it is.\n\nsrc/app/page.tsx\n```tsx\nexport default function Page() {}\n```\n',
  });
  assert.deepEqual(
    aider.map((a) => [a.kind, a.path]),
    [['edit', 'src/app/page.tsx']],
  );
});

test('identifiers by class come from written text and tool-call arguments', () => {
  const ids = emptyIdentifiers();
  fromWrittenText(
    'Look at src/lib/db.ts and https://example.com/docs.\nIt fails with TypeError: x is undefined\nthen call `createServerClient()`.',
    ids,
  );
  for (const a of actionsOf(0, {
    role: 'assistant',
    tool_calls: [
      {
        id: 'c',
        function: {
          name: 'Write',
          arguments: JSON.stringify({
            file_path: 'C:\\App\\src\\x.ts',
            content: 'class StorageClient {}\nconst upload = async (f) => f',
          }),
        },
      },
    ],
  }))
    fromAction(a, ids);
  assert.deepEqual([...ids.paths].sort(), ['C:/App/src/x.ts', 'src/lib/db.ts']);
  assert.deepEqual([...ids.urls], ['https://example.com/docs']);
  assert.deepEqual([...ids.errors], ['It fails with TypeError: x is undefined']);
  assert.deepEqual([...ids.symbols].sort(), ['StorageClient', 'createServerClient', 'upload']);
  assert.deepEqual(errorLines('ok\nnpm ERR! code ELIFECYCLE\nall good'), ['npm ERR! code ELIFECYCLE']);
});

test('measure counts the replaced span only and reads the current state from the whole recording', () => {
  const entries = [
    {
      id: 'u1',
      message: {
        role: 'user',
        content:
          'Rename the helper in src/util/strings.ts to normalizeTitle and keep the old name exported as an alias.',
      },
    },
    {
      id: 'a1',
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 't1', function: { name: 'Bash', arguments: '{"command":"npm test"}' } }],
      },
    },
    {
      id: 't1',
      message: {
        role: 'tool',
        tool_call_id: 't1',
        content: 'FAIL src/util/strings.test.ts\nError: expected normalizeTitle',
      },
    },
    {
      id: 'a2',
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 't2',
            function: {
              name: 'Edit',
              arguments: '{"file_path":"src/util/strings.ts","new_string":"export function normalizeTitle() {}"}',
            },
          },
        ],
      },
    },
    { id: 't2', message: { role: 'tool', tool_call_id: 't2', content: 'ok' } },
  ];
  const typed = [{ index: 0, id: 'u1', text: String(entries[0].message.content), words: 19 }];
  const r = recordingOf(entries, typed);
  const f = measure(r, new Set([0, 1, 2]), [
    { role: 'user', content: 'Summary: ran npm test; FAIL src/util/strings.test.ts' },
    entries[3].message,
    entries[4].message,
  ]);
  assert.deepEqual(f.typedReplaced, { kept: 0, total: 1 });
  assert.deepEqual(f.identifiers.commands, { kept: 1, total: 1 });
  assert.deepEqual(f.identifiers.paths, { kept: 1, total: 1 });
  assert.deepEqual(
    f.state.map((s) => [s.item, s.value, s.kept]),
    [
      ['latest request', String(entries[0].message.content).slice(0, 100), false],
      ['latest failure line', 'FAIL src/util/strings.test.ts', true],
      ['latest command', 'npm test', true],
      ['edited file', 'src/util/strings.ts', true],
    ],
  );
});

test('the reviewed typed-message list matches the shared transcripts', async (t) => {
  const { dir, files } = transcriptFiles();
  if (!dir) return t.skip('shared transcripts not present (../shared/transcripts or $CONTEXT_KEEPER_SHARED)');
  const data = readTypedData(typedDataPath(root));
  assert.deepEqual(
    data.transcripts.map((x) => x.file).sort(),
    files.map((f) => path.relative(dir, f).split(path.sep).join('/')).sort(),
    'one list per shared transcript',
  );
  let total = 0;
  for (const x of data.transcripts) {
    const s = await loadSession(path.join(dir, x.file));
    const typed = resolveTyped(x, s.entries);
    assert.ok(typed.length > 0, `${x.file}: at least one typed message`);
    for (const r of x.records)
      assert.match(r.note, /^reviewed/, `${x.file} ${r.id}: every record carries the reviewer's verdict`);
    total += typed.length;
  }
  assert.equal(total, 118);
});

test('a stale locator fails with the transcript, record and field named', () => {
  const entries = [{ id: 'e0', message: { role: 'user', content: 'add a retry to the upload' } }];
  const rec = {
    index: 0,
    id: 'e0',
    start: 0,
    length: 25,
    sha256: fingerprint('add a retry to the upload'),
    words: 6,
    typed: true,
    note: 'reviewed: typed',
  };
  assert.equal(
    resolveTyped({ file: 'x/y.json', entries: 1, records: [rec] }, entries)[0].text,
    'add a retry to the upload',
  );
  assert.throws(
    () => resolveTyped({ file: 'x/y.json', entries: 1, records: [{ ...rec, sha256: '0'.repeat(64) }] }, entries),
    /x\/y\.json: record 0 \(entry 0\): field "sha256"/,
  );
  assert.throws(
    () => resolveTyped({ file: 'x/y.json', entries: 2, records: [rec] }, entries),
    /x\/y\.json: the importer gives 1 entries/,
  );
});
