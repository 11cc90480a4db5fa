/**
 * The watcher as the extension host runs it: deferred counters (the tokenizer's table read in the
 * background), so no count loads the table on the host's thread. Its own file: the table of the
 * encoding must not be loaded yet in this process when the first test runs.
 */
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { deferredCounterForModel, isEncodingLoaded } from '../../src/tokenizer/tokenizer';
import { SessionWatcher, followFile, type WatchUpdate } from '../../src/watch/watcher';
import { ClaudeLines } from './fixtures';

test('watch with deferred counters: a labelled estimate at once, then the exact count of a synchronous watcher, without a count loading the table', async (t) => {
  assert.equal(isEncodingLoaded('o200k_base'), false, 'precondition: nothing loaded the table yet');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-watch-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'session.jsonl');
  const c = new ClaudeLines();
  fs.writeFileSync(
    file,
    [
      c.user('Add a health endpoint to the server'),
      c.toolCall('t1', 'ls src'),
      c.toolResult('t1', 'server.ts\nroutes.ts\nhealth.test.ts'),
    ].join('\n') + '\n',
  );
  const updates: WatchUpdate[] = [];
  const watcher = new SessionWatcher(file, undefined, { counter: (model) => deferredCounterForModel(model) });
  const exact = await new Promise<WatchUpdate>((resolve) => {
    const follow = followFile(
      watcher,
      (u) => {
        updates.push(u);
        if (!u.gauge.estimated) {
          follow.dispose();
          resolve(u);
        }
      },
      (err) => assert.fail(err as Error),
      60_000,
    );
  });
  assert.equal(updates[0].gauge.estimated, true, 'the first gauge is a labelled estimate');
  assert.ok(updates.length >= 2);
  // The command-line tool's synchronous watcher on the same file.
  const sync = new SessionWatcher(file).update().gauge;
  assert.equal(exact.gauge.tokens, sync.tokens);
  assert.equal(exact.gauge.usedTokens, sync.usedTokens);
});
