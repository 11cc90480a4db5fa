import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkspaceTools } from '../../src/agent/tools';
import { NodeToolHost } from '../../src/agent/node-host';
import { capHeadTail, HeadTailText } from '../../src/agent/limits';
import type { CommandOutcome, ToolHost } from '../../src/agent/types';
import { tempWorkspace } from './helpers';

const signal = new AbortController().signal;
let ids = 0;
const run = (tools: WorkspaceTools, command: string, extra: object = {}) =>
  tools.execute({ id: `c${++ids}`, name: 'run_command', arguments: JSON.stringify({ command, ...extra }) }, signal);

const BUILD = `node -e "for (let i = 1; i <= 4000; i++) console.log('compiling module ' + i + ' of 4000');
console.log('src/app.ts(12,3): ' + ['error', 'TS2322'].join(' ') + ': Type number is not assignable');
console.log('Found 1 error.'); process.exitCode = 2"`;

test('a long build whose error is printed last reaches the model with the error and the exit status', async (t) => {
  const ws = tempWorkspace();
  t.after(ws.cleanup);
  for (const maxResultChars of [800, 4000, 16_000]) {
    const tools = new WorkspaceTools(new NodeToolHost(ws.root), { autoApprove: { commands: true }, maxResultChars });
    const r = await run(tools, BUILD);
    assert.equal(r.ok, false, 'a non-zero exit is a failed call');
    assert.ok(r.content.length <= maxResultChars, `${r.content.length} <= ${maxResultChars}`);
    assert.match(r.content, /compiling module 1 of 4000/, 'the head is kept');
    assert.match(r.content, /error TS2322/, 'the error printed last is kept');
    assert.match(r.content, /Found 1 error\.\n\[exit code 2\]$/);
    assert.match(r.content, /\[exit code 2\]$/, 'the status ends the result, after the cap');
    const marker = /\[output truncated: (\d+) characters \((\d+) lines\) omitted from the middle/.exec(r.content);
    assert.ok(marker, 'the omission is marked with its size');
    assert.ok(Number(marker[2]) > 3000 && Number(marker[2]) < 4000, marker[0]);
  }
});

test('a command killed at its timeout after flooding its output still says it timed out', async (t) => {
  const ws = tempWorkspace();
  t.after(ws.cleanup);
  const tools = new WorkspaceTools(new NodeToolHost(ws.root), {
    autoApprove: { commands: true },
    maxResultChars: 600,
  });
  const r = await run(tools, `node -e "setInterval(() => console.log('x'.repeat(2000)), 1)"`, { timeout_ms: 400 });
  assert.equal(r.ok, false);
  assert.ok(r.content.length <= 600, String(r.content.length));
  assert.match(r.content, /\[timed out after 400 ms and was killed\]$/);
});

test('command output that fits is returned whole with its status', async (t) => {
  const ws = tempWorkspace();
  t.after(ws.cleanup);
  const tools = new WorkspaceTools(new NodeToolHost(ws.root), {
    autoApprove: { commands: true },
    maxResultChars: 2000,
  });
  const r = await run(tools, `node -e "console.log('é'.repeat(300)); console.log('done')"`);
  assert.equal(r.ok, true);
  assert.ok(!r.content.includes('truncated'));
  assert.ok(r.content.includes(`${'é'.repeat(300)}\ndone`), 'multi-byte characters split across chunks decode whole');
  assert.match(r.content, /\[exit code 0\]$/);
});

test('a host that returns uncapped output, or a huge command line, cannot push the status out', async (t) => {
  const ws = tempWorkspace();
  t.after(ws.cleanup);
  const node = new NodeToolHost(ws.root);
  const host: ToolHost = Object.assign(Object.create(node) as NodeToolHost, {
    runCommand: (): Promise<CommandOutcome> =>
      Promise.resolve({
        exitCode: 1,
        output: `${'progress\n'.repeat(50_000)}FATAL: disk full\n`,
        timedOut: false,
        truncated: false,
      }),
  });
  const tools = new WorkspaceTools(host, { autoApprove: { commands: true }, maxResultChars: 1500 });
  const r = await run(tools, `echo ${'a'.repeat(40_000)}`);
  assert.ok(r.content.length <= 1500, String(r.content.length));
  assert.match(r.content, /FATAL: disk full/);
  assert.match(r.content, /\[exit code 1\]$/);
});

test('head-and-tail capture keeps bounded memory over an endless stream and counts what it left out', () => {
  const capture = new HeadTailText(1000);
  const line = 'y'.repeat(99) + '\n';
  for (let i = 0; i < 100_000; i++) capture.push(line);
  capture.push('LAST LINE');
  const text = capture.text();
  assert.equal(capture.length, 100_000 * 100 + 9);
  assert.ok(text.length <= 1000, String(text.length));
  assert.ok(text.startsWith('yyy'));
  assert.ok(text.endsWith('LAST LINE'));
  const m = /omitted/.exec(text);
  assert.ok(m);
  // Bounded: what it holds does not grow with the stream.
  const held =
    (capture as unknown as { head: string; tail: string }).head.length +
    (capture as unknown as { tail: string }).tail.length;
  assert.ok(held < 10_000, String(held));
  // No surrogate pair is split at either cut.
  const emoji = capHeadTail('😀'.repeat(5000), 500).text;
  assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(emoji));
});
