import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { claudeProjectFolderName, discoverSessions, normalizeDir } from '../../src/watch/discovery';
import { ClaudeLines, CodexLines } from './fixtures';

test('discovery: Claude Code folder names replace every non-alphanumeric character, in every path form', () => {
  assert.equal(claudeProjectFolderName('/home/ana/my_app.v2'), '-home-ana-my-app-v2');
  assert.equal(claudeProjectFolderName('C:\\Users\\Ana\\My Project'), 'C--Users-Ana-My-Project');
  assert.equal(claudeProjectFolderName('/Users/ana/Code/site'), '-Users-ana-Code-site');
  assert.equal(claudeProjectFolderName('/home/ana/проект'), '-home-ana-------');
});

test('discovery: directory comparison ignores separators and trailing slashes, and case on Windows', () => {
  assert.equal(normalizeDir('C:\\Users\\Ana\\App\\'), normalizeDir('c:/users/ana/app'));
  assert.equal(normalizeDir('/home/ana/app/'), '/home/ana/app');
  assert.notEqual(normalizeDir('/home/ana/App'), normalizeDir('/home/ana/app'), 'POSIX paths keep case');
  assert.equal(
    normalizeDir('/private/var/folders/x'),
    '/var/folders/x',
    "macOS's /private prefix of temporary folders",
  );
});

test('discovery: finds the workspace sessions of both agents in their homes and nothing of other folders', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-disc-'));
  const workspace = path.join(root, 'ws', 'my app');
  fs.mkdirSync(workspace, { recursive: true });
  const claudeHome = path.join(root, 'claude');
  const codexHome = path.join(root, 'codex');
  const project = path.join(claudeHome, 'projects', claudeProjectFolderName(fs.realpathSync(workspace)));
  fs.mkdirSync(project, { recursive: true });
  fs.writeFileSync(path.join(project, 'a.jsonl'), new ClaudeLines().user('hello') + '\n');
  fs.writeFileSync(path.join(project, 'notes.txt'), 'not a session');
  const other = path.join(claudeHome, 'projects', '-elsewhere');
  fs.mkdirSync(other, { recursive: true });
  fs.writeFileSync(path.join(other, 'b.jsonl'), new ClaudeLines().user('other') + '\n');
  const day = path.join(codexHome, 'sessions', '2026', '01', '02');
  fs.mkdirSync(day, { recursive: true });
  fs.writeFileSync(path.join(day, 'rollout-1.jsonl'), new CodexLines().meta(workspace + '/') + '\n');
  fs.writeFileSync(path.join(day, 'rollout-2.jsonl'), new CodexLines().meta('/some/other/dir') + '\n');
  const past = new Date(Date.now() - 60_000);
  fs.utimesSync(path.join(project, 'a.jsonl'), past, past);

  const found = discoverSessions(workspace, { claudeHome, codexHome });
  assert.deepEqual(
    found.map((s) => [path.basename(s.file), s.agent]),
    [
      ['rollout-1.jsonl', 'codex'],
      ['a.jsonl', 'claude-code'],
    ],
    'newest first; other projects and non-session files are left out',
  );
  assert.ok(found.every((s) => s.size > 0));
  assert.deepEqual(
    discoverSessions(workspace, { claudeHome: path.join(root, 'none'), codexHome: path.join(root, 'none') }),
    [],
  );
});

test('discovery: the config homes come from CLAUDE_CONFIG_DIR and CODEX_HOME', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-disc-'));
  const workspace = fs.realpathSync(fs.mkdtempSync(path.join(root, 'ws-')));
  const project = path.join(root, 'cfg', 'projects', claudeProjectFolderName(workspace));
  fs.mkdirSync(project, { recursive: true });
  fs.writeFileSync(path.join(project, 's.jsonl'), new ClaudeLines().user('x') + '\n');
  const found = discoverSessions(workspace, {
    env: { CLAUDE_CONFIG_DIR: path.join(root, 'cfg'), CODEX_HOME: path.join(root, 'nocodex'), HOME: root },
  });
  assert.equal(found.length, 1);
  assert.equal(found[0].agent, 'claude-code');
});
