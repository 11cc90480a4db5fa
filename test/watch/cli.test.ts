import * as assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { agentSentTokens, ClaudeLines } from './fixtures';
import { claudeProjectFolderName } from '../../src/watch/discovery';
import { SessionWatcher } from '../../src/watch/watcher';
import { sharedTranscriptsDir } from '../support/shared';

const cli = path.resolve(__dirname, '../../../dist/cli.js');
const exec = promisify(execFile);
const noCli = !fs.existsSync(cli) ? 'needs a built dist/cli.js (npm run build)' : false;

/** Reads JSON lines from a child's stdout as they arrive. */
function lineReader(stream: NodeJS.ReadableStream): () => Promise<Record<string, unknown>> {
  let buf = '';
  const queue: string[] = [];
  const waiters: Array<(l: string) => void> = [];
  stream.on('data', (d: Buffer) => {
    buf += d.toString('utf8');
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      const w = waiters.shift();
      if (w) w(line);
      else queue.push(line);
    }
  });
  return () =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no update within 60 s')), 60_000);
      const take = (l: string) => {
        clearTimeout(timer);
        resolve(JSON.parse(l) as Record<string, unknown>);
      };
      const q = queue.shift();
      if (q !== undefined) take(q);
      else waiters.push(take);
    });
}

test(
  'cli: watch --json prints one object per update whose tokens equal meter --json for the same content',
  { skip: noCli },
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-watch-cli-'));
    const file = path.join(dir, 's.jsonl');
    const c = new ClaudeLines();
    fs.writeFileSync(file, c.user('Rename the config loader') + '\n');
    const child = spawn(process.execPath, [cli, 'watch', file, '--json', '--interval', '100'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const next = lineReader(child.stdout);
      const first = await next();
      const meter1 = JSON.parse((await exec(process.execPath, [cli, 'meter', file, '--json'])).stdout) as {
        tokens: number;
      };
      assert.equal(first.tokens, meter1.tokens);
      assert.equal(first.checkpoints, 0);
      fs.appendFileSync(
        file,
        [c.toolCall('t1', 'git mv config.ts loader.ts', 2500), c.toolResult('t1', '')].join('\n') + '\n',
      );
      const second = await next();
      const meter2 = JSON.parse((await exec(process.execPath, [cli, 'meter', file, '--json'])).stdout) as {
        tokens: number;
      };
      assert.equal(second.tokens, meter2.tokens);
      assert.ok(second.tokens > first.tokens);
      assert.equal(second.reportedTokens, 2500);
      assert.equal(second.window, 200_000);
      fs.appendFileSync(file, c.compaction('config loader renamed').join('\n') + '\n');
      const third = await next();
      assert.equal(third.checkpoints, 1);
    } finally {
      child.kill('SIGTERM');
    }
  },
);

test('cli: sessions --json lists the sessions of a workspace folder', { skip: noCli }, async () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ck-sessions-')));
  const ws = path.join(root, 'ws');
  fs.mkdirSync(ws);
  const project = path.join(root, 'claude', 'projects', claudeProjectFolderName(ws));
  fs.mkdirSync(project, { recursive: true });
  fs.writeFileSync(path.join(project, 'abc.jsonl'), new ClaudeLines().user('hi') + '\n');
  const { stdout } = await exec(process.execPath, [cli, 'sessions', ws, '--json'], {
    env: { ...process.env, CLAUDE_CONFIG_DIR: path.join(root, 'claude'), CODEX_HOME: path.join(root, 'codex') },
  });
  const list = JSON.parse(stdout) as Array<{ path: string; agent: string; size: number; lastActivity: string }>;
  assert.equal(list.length, 1);
  assert.equal(list[0].agent, 'claude-code');
  assert.equal(list[0].path, path.join(project, 'abc.jsonl'));
  assert.ok(list[0].size > 0 && !Number.isNaN(Date.parse(list[0].lastActivity)));
});

const transcripts = sharedTranscriptsDir();
test(
  'watch: every recorded Claude Code and Codex session, written out in pieces while followed, ends on the full import figure',
  { skip: transcripts ? false : 'needs ../shared/transcripts beside the repository (or CONTEXT_KEEPER_SHARED)' },
  async (t) => {
    const files = ['claude-code', 'codex'].flatMap((d) => {
      const folder = path.join(transcripts!, d);
      return fs.existsSync(folder)
        ? fs
            .readdirSync(folder)
            .filter((f) => f.endsWith('.jsonl'))
            .map((f) => path.join(folder, f))
        : [];
    });
    for (const source of files) {
      await t.test(path.basename(source), async () => {
        const bytes = fs.readFileSync(source);
        const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ck-watch-rec-')), 'live.jsonl');
        fs.writeFileSync(file, bytes.subarray(0, 1));
        const w = new SessionWatcher(file, source.includes('codex') ? 'codex' : 'claude-code');
        // Pieces that cut lines anywhere, including inside multi-byte characters.
        const piece = Math.ceil(bytes.length / 7);
        for (let at = 1; at < bytes.length; at += piece) {
          fs.appendFileSync(file, bytes.subarray(at, Math.min(bytes.length, at + piece)));
          w.update();
        }
        const gauge = w.update().gauge;
        const full = await agentSentTokens(file);
        assert.equal(gauge.tokens, full.tokens);
        assert.equal(gauge.checkpoints, full.checkpoints);
        assert.equal(w.totalBytesRead, bytes.length, 'every byte read exactly once');
      });
    }
  },
);
