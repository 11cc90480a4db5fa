/**
 * `context-keeper mcp` through the official MCP client over stdio, spawning the built command-line
 * tool: it lists the recall tools and finds a phrase in what a Claude Code session's own compaction
 * replaced, found by the workspace's folder as Claude Code names it; the shared recordings too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { claudeProjectFolderName } from '../../src/watch/discovery';
import { RECORDED_KEY, REPLACED_PHRASE, claudeRecordingWithCompaction } from '../recall/recording';

const cli = path.resolve(__dirname, '../../../dist/cli.js');
const skip = fs.existsSync(cli) ? false : 'needs a built dist/cli.js (npm run build)';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-mcp-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Connects a client to `context-keeper mcp ARGS` with `env` added to a minimal environment. */
async function connect(args: string[], env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'mcp', ...args],
    env: { PATH: process.env.PATH ?? '', HOME: tmp, ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'recall-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = result.content as Array<{ type: string; text?: string }>;
  return content.map((c) => c.text ?? '').join('\n');
}

test(
  'the MCP server lists the recall tools and finds a phrase a Claude Code compaction replaced',
  { skip },
  async () => {
    const workspace = fs.mkdtempSync(path.join(tmp, 'ws-'));
    const claudeHome = path.join(tmp, 'claude');
    const project = path.join(claudeHome, 'projects', claudeProjectFolderName(workspace));
    fs.mkdirSync(project, { recursive: true });
    const session = path.join(project, 'b1e2.jsonl');
    fs.writeFileSync(session, claudeRecordingWithCompaction());

    const client = await connect(['--workspace', workspace, '--agent', 'claude-code'], {
      CLAUDE_CONFIG_DIR: claudeHome,
    });
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ['read_history', 'search_history']);
      const search = tools.find((t) => t.name === 'search_history')!;
      assert.match(search.description!, /At most 10 results/);
      assert.deepEqual(search.inputSchema.required, ['query']);
      assert.equal(search.annotations?.readOnlyHint, true);

      const found = await client.callTool({ name: 'search_history', arguments: { query: 'cache key omits' } });
      assert.ok(!found.isError, textOf(found));
      const text = textOf(found);
      assert.ok(
        text.startsWith(`Session ${session} (claude-code, 7 messages; its compactions: import-1 replaced 1-4)`),
        text,
      );
      assert.match(text, /\[1\] message 3 \(id u3\), tool result of Bash, replaced by checkpoint import-1/);
      assert.ok(text.includes(REPLACED_PHRASE));
      assert.ok(!text.includes(RECORDED_KEY), 'credentials are masked');

      const read = await client.callTool({
        name: 'read_history',
        arguments: { checkpoint: 'import-1', from: 3, to: 3 },
      });
      assert.ok(textOf(read).includes(`│ src/cache.ts:12: // note: ${REPLACED_PHRASE}`), textOf(read));

      // A newer session of the workspace becomes the current one.
      const newer = path.join(project, 'c3d4.jsonl');
      fs.writeFileSync(newer, claudeRecordingWithCompaction().replaceAll('tenant id', 'region code'));
      fs.utimesSync(newer, new Date(), new Date(Date.now() + 5_000));
      const again = await client.callTool({ name: 'search_history', arguments: { query: 'omits the region code' } });
      assert.match(textOf(again), /^Session .*c3d4\.jsonl/);
      assert.match(textOf(again), /1 message matches/);

      const bad = await client.callTool({ name: 'search_history', arguments: { query: 'x', checkpoint: 'import-9' } });
      assert.equal(bad.isError, true);
      assert.match(textOf(bad), /no checkpoint "import-9" in force; known: import-1/);
    } finally {
      await client.close();
    }
  },
);

test('the MCP server says where it looked when the workspace has no session', { skip }, async () => {
  const client = await connect(['--workspace', path.join(tmp, 'empty')], {
    CLAUDE_CONFIG_DIR: path.join(tmp, 'none'),
    CODEX_HOME: path.join(tmp, 'none'),
  });
  try {
    const r = await client.callTool({ name: 'search_history', arguments: { query: 'anything' } });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /no Claude Code or Codex session found for the workspace .*empty/);
  } finally {
    await client.close();
  }
});

const shared = path.resolve(__dirname, '../../../../shared/transcripts');
const sharedFiles = ['claude-code', 'codex']
  .flatMap((dir) => {
    try {
      return fs.readdirSync(path.join(shared, dir)).map((f) => path.join(shared, dir, f));
    } catch {
      return [];
    }
  })
  .filter((f) => f.endsWith('.jsonl'));

test(
  'the MCP server reads the shared Claude Code and Codex recordings',
  { skip: skip || (sharedFiles.length === 0 ? 'no shared recordings beside the checkout' : false) },
  async () => {
    for (const file of sharedFiles) {
      const client = await connect(['--file', file], {});
      try {
        const read = await client.callTool({ name: 'read_history', arguments: { from: 1, to: 2 } });
        assert.ok(!read.isError, textOf(read));
        const text = textOf(read);
        assert.match(text, /^Session .* \((claude-code|codex), \d+ messages/);
        // A word of the first message read is found again by search, cited at its position.
        const word = /[A-Za-z]{6,}/.exec(text.split('\n── ')[1]?.split('\n').slice(1).join(' ') ?? '')?.[0];
        if (!word) continue;
        const found = await client.callTool({ name: 'search_history', arguments: { query: word } });
        assert.match(textOf(found), /message(s)? match/);
        assert.ok(textOf(found).length < 6_000, 'bounded');
      } finally {
        await client.close();
      }
    }
  },
);
