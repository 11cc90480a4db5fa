import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkspaceTools, CANCELLED_RESULT } from '../../src/agent/tools';
import { NodeToolHost } from '../../src/agent/node-host';
import { tempWorkspace } from './helpers';

// Overlapping alternatives: the glob's regular expression backtracks exponentially on a name without a Z.
const HOSTILE = `${'{*,*}'.repeat(14)}Z`;

function ticking(): { stop: () => number } {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 20);
  return {
    stop: () => {
      clearInterval(timer);
      return ticks;
    },
  };
}

test('a model-written glob that backtracks is stopped at its deadline and the event loop keeps running', async (t) => {
  const ws = tempWorkspace({ 'notes-about-the-project-without-the-letter.txt': 'x', 'src/a.ts': 'a' });
  t.after(ws.cleanup);
  const tools = new WorkspaceTools(new NodeToolHost(ws.root, { globDeadlineMs: 800 }));
  for (const [name, args] of [
    ['find_files', { pattern: HOSTILE }],
    ['search_text', { pattern: 'x', glob: HOSTILE }],
  ] as const) {
    const clock = ticking();
    const started = Date.now();
    const r = await tools.execute({ id: 'c1', name, arguments: JSON.stringify(args) }, new AbortController().signal);
    const elapsed = Date.now() - started;
    const ticks = clock.stop();
    assert.equal(r.ok, false, name);
    assert.match(r.content, /ran past the 800 ms limit and was stopped/, name);
    assert.ok(elapsed < 5_000, `${name}: ${elapsed} ms`);
    assert.ok(ticks >= Math.floor(elapsed / 20 / 4), `${name}: the event loop ran (${ticks} ticks in ${elapsed} ms)`);
  }
});

test('cancel ends a find_files call whose glob backtracks, at once', async (t) => {
  const ws = tempWorkspace({ 'notes-about-the-project-without-the-letter.txt': 'x' });
  t.after(ws.cleanup);
  const tools = new WorkspaceTools(new NodeToolHost(ws.root, { globDeadlineMs: 60_000 }));
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 300);
  const started = Date.now();
  const r = await tools.execute(
    { id: 'c1', name: 'find_files', arguments: JSON.stringify({ pattern: HOSTILE }) },
    controller.signal,
  );
  assert.equal(r.content, CANCELLED_RESULT);
  assert.ok(Date.now() - started < 2_000, `${Date.now() - started} ms`);
});

test('ordinary globs still match in walk order, shallow files first, bounded by the result cap', async (t) => {
  const files: Record<string, string> = {
    'a.ts': '',
    'b.js': '',
    'src/c.ts': '',
    'src/deep/d.ts': '',
    'node_modules/m/e.ts': '',
  };
  const ws = tempWorkspace(files);
  t.after(ws.cleanup);
  const host = new NodeToolHost(ws.root);
  assert.deepEqual(await host.findFiles('*.ts', 10), ['a.ts', 'src/c.ts', 'src/deep/d.ts']);
  assert.deepEqual(await host.findFiles('src/**/*.ts', 10), ['src/c.ts', 'src/deep/d.ts']);
  assert.deepEqual(await host.findFiles('*.ts', 2), ['a.ts', 'src/c.ts']);
});
