/**
 * Identifier lists hold only what the work used as identifiers: a relative module specifier of an
 * import (`./chat`), a dependency lock file (`package-lock.json`, `pnpm-lock.yaml`, `yarn.lock`) and a
 * package archive's address (a registry tarball) are none; a real path beside them is kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, summaryOf, type Step } from '../support/recordings';
import { extractIdentifiers } from '../../src/compaction/summary/identifiers/identifiers';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);
const JUNK = ['./chat', 'package-lock.json', 'pnpm-lock.yaml', 'yarn.lock', 'mqtt-5.3.0.tgz'];

const work: Step[] = [
  { user: 'Why does the chat panel fail to load?' },
  {
    tool: 'bash',
    command: 'ls web && grep -n resolved web/package-lock.json | head -2',
    output: [
      'package-lock.json  pnpm-lock.yaml  yarn.lock  src',
      '12: "resolved": "https://registry.npmjs.org/mqtt/-/mqtt-5.3.0.tgz",',
    ].join('\n'),
  },
  {
    tool: 'read',
    path: 'web/src/chat_panel.tsx',
    output:
      "import { Chat } from './chat';\nimport { send } from '../lib/send_queue.ts';\nexport const ChatPanel = () => Chat;",
  },
  { say: `The panel imports the chat module. ${filler(1500)}` },
  { user: 'thanks' },
  { say: 'ok' },
];

for (const format of ['claude-code', 'codex', 'openhands'] as const) {
  test(`${format}: import specifiers, lock files and archive addresses are no identifiers`, async () => {
    const { write, file } = WRITERS[format];
    const { summary } = await summaryOf(write(work), file);
    const lists = summary
      .split('\n## ')
      .filter((s) => s.startsWith('Identifiers'))
      .join('\n');
    for (const junk of JUNK)
      assert.ok(
        !lists.split('\n').some((l) => l === `- ${junk}` || l.endsWith(`/${junk}`) || l.endsWith(junk)),
        summary,
      );
  });
}

test('identifiers of a text leave out specifiers, lock files and archive addresses', () => {
  const ids = extractIdentifiers(
    "import { Chat } from './chat';\nimport x from '../lib/utils.ts';\nsee package-lock.json, web/yarn.lock and src/app.ts\nresolved https://registry.npmjs.org/mqtt/-/mqtt-5.3.0.tgz; docs at https://example.com/docs",
  );
  assert.deepEqual(ids, ['../lib/utils.ts', 'src/app.ts', 'https://example.com/docs']);
});
