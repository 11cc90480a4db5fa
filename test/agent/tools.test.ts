import { test } from 'node:test';
import assert from 'node:assert/strict';
import { symlinkSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { WorkspaceTools } from '../../src/agent/tools';
import { NodeToolHost } from '../../src/agent/node-host';
import { globToRegExp } from '../../src/agent/glob';
import type { ApprovalRequest } from '../../src/agent/types';
import { tempWorkspace } from './helpers';

const signal = new AbortController().signal;
let ids = 0;
const run = (tools: WorkspaceTools, name: string, args: object) =>
  tools.execute({ id: `c${++ids}`, name, arguments: JSON.stringify(args) }, signal);

test('read_file returns a line range with a header', async (t) => {
  const ws = tempWorkspace({ 'f.txt': 'one\ntwo\nthree\nfour\n' });
  t.after(ws.cleanup);
  const tools = new WorkspaceTools(new NodeToolHost(ws.root));
  const r = await run(tools, 'read_file', { path: 'f.txt', start_line: 2, end_line: 3 });
  assert.equal(r.ok, true);
  assert.equal(r.content, 'f.txt (lines 2-3 of 4)\ntwo\nthree');
  const bad = await run(tools, 'read_file', { path: 'f.txt', start_line: 9 });
  assert.equal(bad.ok, false);
});

test('paths outside the workspace are refused, through .. and through symlinks', async (t) => {
  const outside = tempWorkspace({ 'secret.txt': 'secret' });
  const ws = tempWorkspace({ 'in.txt': 'in' });
  t.after(() => {
    ws.cleanup();
    outside.cleanup();
  });
  symlinkSync(outside.root, path.join(ws.root, 'link'));
  symlinkSync(path.join(outside.root, 'secret.txt'), path.join(ws.root, 'file-link'));
  const tools = new WorkspaceTools(new NodeToolHost(ws.root), { autoApprove: { edits: true } });
  for (const p of ['../x', path.join(outside.root, 'secret.txt'), 'link/secret.txt', 'file-link', '/etc/passwd']) {
    const r = await run(tools, 'read_file', { path: p });
    assert.equal(r.ok, false, p);
    assert.match(r.content, /outside the workspace/, p);
  }
  const w = await run(tools, 'write_file', { path: 'link/new.txt', content: 'x' });
  assert.match(w.content, /outside the workspace/);
  assert.equal(existsSync(path.join(outside.root, 'new.txt')), false);
  assert.equal((await run(tools, 'read_file', { path: 'in.txt' })).ok, true);
});

test('tool output is capped with a visible marker', async (t) => {
  const ws = tempWorkspace({ 'big.txt': 'x'.repeat(50_000) });
  t.after(ws.cleanup);
  const tools = new WorkspaceTools(new NodeToolHost(ws.root), { maxResultChars: 1000 });
  const r = await run(tools, 'read_file', { path: 'big.txt' });
  assert.ok(r.content.length < 1200);
  assert.match(r.content, /\[output truncated: \d+ more characters not shown/);
});

test('find_files and search_text are bounded and skip node_modules', async (t) => {
  const files: Record<string, string> = { 'node_modules/m/index.ts': 'needle' };
  for (let i = 0; i < 30; i++) files[`src/f${i}.ts`] = `const needle${i} = ${i};\n`;
  const ws = tempWorkspace(files);
  t.after(ws.cleanup);
  const tools = new WorkspaceTools(new NodeToolHost(ws.root));
  const found = await run(tools, 'find_files', { pattern: 'src/**/*.ts', max_results: 5 });
  assert.equal(found.content.split('\n').filter((l) => l.startsWith('src/')).length, 5);
  assert.match(found.content, /more files match/);
  const hits = await run(tools, 'search_text', { pattern: 'needle\\d+', max_results: 10 });
  const lines = hits.content.split('\n');
  assert.equal(lines.filter((l) => /^src\/f\d+\.ts:1: /.test(l)).length, 10);
  assert.match(hits.content, /more matches not shown/);
  assert.doesNotMatch(hits.content, /node_modules/);
  const bad = await run(tools, 'search_text', { pattern: '(' });
  assert.equal(bad.ok, false);
});

test('edits need approval: declined leaves the file, approved applies, auto-approve skips asking', async (t) => {
  const ws = tempWorkspace({ 'a.ts': 'const x = 1;\nconst y = 2;\n' });
  t.after(ws.cleanup);
  const asked: ApprovalRequest[] = [];
  let answer = false;
  const tools = new WorkspaceTools(new NodeToolHost(ws.root), {
    approve: async (r) => {
      asked.push(r);
      return answer;
    },
  });
  const declined = await run(tools, 'edit_file', { path: 'a.ts', old_text: 'const x = 1;', new_text: 'const x = 10;' });
  assert.equal(declined.ok, false);
  assert.match(declined.content, /declined/);
  assert.equal(readFileSync(path.join(ws.root, 'a.ts'), 'utf8'), 'const x = 1;\nconst y = 2;\n');
  assert.equal(asked[0].kind, 'edit');
  assert.equal(asked[0].path, 'a.ts');
  assert.match(asked[0].detail, /- const x = 1;\n\+ const x = 10;/);
  answer = true;
  const applied = await run(tools, 'edit_file', { path: 'a.ts', old_text: 'const x = 1;', new_text: 'const x = 10;' });
  assert.equal(applied.ok, true);
  assert.equal(readFileSync(path.join(ws.root, 'a.ts'), 'utf8'), 'const x = 10;\nconst y = 2;\n');
  const ambiguous = await run(tools, 'edit_file', { path: 'a.ts', old_text: 'const', new_text: 'let' });
  assert.match(ambiguous.content, /occurs 2 times/);
  const auto = new WorkspaceTools(new NodeToolHost(ws.root), { autoApprove: { edits: true } });
  assert.equal((await run(auto, 'write_file', { path: 'new/b.ts', content: 'b' })).ok, true);
  assert.equal(readFileSync(path.join(ws.root, 'new/b.ts'), 'utf8'), 'b');
  const none = new WorkspaceTools(new NodeToolHost(ws.root));
  assert.match((await run(none, 'write_file', { path: 'c.ts', content: 'c' })).content, /needs approval/);
});

test('run_command caps output, reports exit codes and kills on timeout', async (t) => {
  const ws = tempWorkspace({ 'a.txt': 'a' });
  t.after(ws.cleanup);
  const tools = new WorkspaceTools(new NodeToolHost(ws.root), {
    autoApprove: { commands: true },
    maxResultChars: 500,
    commandTimeoutMs: 20_000,
  });
  const ls = await run(tools, 'run_command', { command: 'ls' });
  assert.equal(ls.ok, true);
  assert.match(ls.content, /a\.txt[\s\S]*\[exit code 0\]/);
  const fail = await run(tools, 'run_command', { command: 'exit 3' });
  assert.equal(fail.ok, false);
  assert.match(fail.content, /exit code 3/);
  const noisy = await run(tools, 'run_command', { command: 'node -e "process.stdout.write(\'y\'.repeat(100000))"' });
  assert.ok(noisy.content.length < 1000);
  assert.match(noisy.content, /truncated/);
  const started = Date.now();
  const slow = await run(tools, 'run_command', { command: 'sleep 5', timeout_ms: 300 });
  assert.ok(Date.now() - started < 2000);
  assert.match(slow.content, /timed out/);
});

test('glob patterns', () => {
  assert.ok(globToRegExp('src/**/*.ts').test('src/a/b.ts'));
  assert.ok(globToRegExp('src/**/*.ts').test('src/b.ts'));
  assert.ok(!globToRegExp('src/**/*.ts').test('test/b.ts'));
  assert.ok(globToRegExp('*.json').test('a/b/package.json'));
  assert.ok(globToRegExp('*.{ts,js}').test('x.js'));
  assert.ok(!globToRegExp('src/*.ts').test('src/a/b.ts'));
});

test('a change saved while an edit approval waits is not overwritten: the edit is asked again with the new diff', async (t) => {
  const ws = tempWorkspace({ 'app.ts': 'export const a = 1;\nexport const b = 2;\n' });
  t.after(ws.cleanup);
  const file = path.join(ws.root, 'app.ts');
  const userWork =
    'export const a = 1;\nexport const b = 2;\nexport const userWork = "saved while the approval waited";\n';
  const asked: ApprovalRequest[] = [];
  const tools = new WorkspaceTools(new NodeToolHost(ws.root), {
    approve: async (r) => {
      asked.push(r);
      // While the first approval waits, the user saves a line of their own to the same file.
      if (asked.length === 1) writeFileSync(file, userWork);
      return true;
    },
  });
  const r = await run(tools, 'edit_file', {
    path: 'app.ts',
    old_text: 'export const a = 1;',
    new_text: 'export const a = 42;',
  });
  assert.equal(r.ok, true, r.content);
  assert.equal(asked.length, 2, 'asked again');
  assert.equal(asked[0].before, 'export const a = 1;\nexport const b = 2;\n');
  assert.equal(asked[1].before, userWork, 'the second approval shows the text on disk now');
  assert.match(asked[1].title, /changed while the approval was waiting/);
  assert.match(asked[1].detail, /userWork/);
  assert.equal(readFileSync(file, 'utf8'), userWork.replace('a = 1', 'a = 42'), "the user's line is kept");
});

test('write_file asks again when the file changed during its approval, and nothing is written when declined', async (t) => {
  const ws = tempWorkspace({ 'notes.md': 'old\n' });
  t.after(ws.cleanup);
  const file = path.join(ws.root, 'notes.md');
  const asked: ApprovalRequest[] = [];
  const tools = new WorkspaceTools(new NodeToolHost(ws.root), {
    approve: async (r) => {
      asked.push(r);
      if (asked.length === 1) writeFileSync(file, 'the user wrote this\n');
      return asked.length === 1;
    },
  });
  const r = await run(tools, 'write_file', { path: 'notes.md', content: 'agent text\n' });
  assert.equal(r.ok, false);
  assert.match(r.content, /declined/);
  assert.equal(asked.length, 2);
  assert.equal(asked[1].before, 'the user wrote this\n');
  assert.equal(readFileSync(file, 'utf8'), 'the user wrote this\n');
});

test('an edit whose text is gone after a change during approval is refused, and a file that keeps changing is not written', async (t) => {
  const ws = tempWorkspace({ 'a.ts': 'const x = 1;\n' });
  t.after(ws.cleanup);
  const file = path.join(ws.root, 'a.ts');
  const gone = new WorkspaceTools(new NodeToolHost(ws.root), {
    approve: async () => {
      writeFileSync(file, 'const y = 2;\n');
      return true;
    },
  });
  const r = await run(gone, 'edit_file', { path: 'a.ts', old_text: 'const x = 1;', new_text: 'const x = 3;' });
  assert.equal(r.ok, false);
  assert.match(r.content, /not found in a\.ts \(it changed while the approval was waiting\)/);
  assert.equal(readFileSync(file, 'utf8'), 'const y = 2;\n');
  let n = 0;
  const churn = new WorkspaceTools(new NodeToolHost(ws.root), {
    approve: async () => {
      writeFileSync(file, `const y = 2; // ${++n}\n`);
      return true;
    },
  });
  const c = await run(churn, 'write_file', { path: 'a.ts', content: 'agent\n' });
  assert.equal(c.ok, false);
  assert.match(c.content, /kept changing/);
  assert.equal(readFileSync(file, 'utf8'), `const y = 2; // ${n}\n`);
});
