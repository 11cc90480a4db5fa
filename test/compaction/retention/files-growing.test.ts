/**
 * The files of a span that grew at its end are read on from the reading of the span before (see
 * `filesOfCalls`): only the new calls are read, also when a short span was read in between (the
 * scorecard of another checkpoint), and the files found are those of a reading from the start.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { filesOfCalls, type AgentCall } from '../../../src/compaction/retention';
import { keepMessageMemos } from '../../../src/compaction/message-memo';

/**
 * `n` answered write calls from message index `start` on, each creating its own file; every look at
 * a call's `denied` flag (read once per call a reading goes through) is counted in `reads`.
 */
function writeCalls(n: number, start: number, reads: { count: number }): AgentCall[] {
  return Array.from({ length: n }, (_, k) => {
    const index = start + 2 * k;
    const call = {
      index,
      name: 'write_file',
      args: { path: `src/f${index}.ts`, content: 'export {};' },
      callId: `c${index}`,
      resultIndex: index + 1,
      result: 'File written',
      failed: false,
    };
    Object.defineProperty(call, 'denied', {
      enumerable: true,
      get: () => {
        reads.count++;
        return undefined;
      },
    });
    return call;
  });
}

test('files of a grown span: only the new calls are read, after a short span read in between, with the files of a whole reading', () => {
  const reads = { count: 0 };
  const long = writeCalls(300, 0, reads);
  filesOfCalls(long);
  assert.ok(reads.count >= 300, 'the first reading reads every call');
  // A short span of other calls, read between two compactions of the long one.
  filesOfCalls(writeCalls(5, 10_000, { count: 0 }));
  const grown = [...long, ...writeCalls(20, 600, reads)];
  reads.count = 0;
  const continued = filesOfCalls(grown);
  assert.ok(reads.count <= 2 * 20, `only the 20 new calls are read, not ${reads.count} looks`);
  // The same files as a reading from the start, which keeps nothing (the memos off).
  keepMessageMemos(false);
  let whole;
  try {
    whole = filesOfCalls(grown);
  } finally {
    keepMessageMemos(true);
  }
  assert.deepEqual([...continued.modified], [...whole.modified]);
  assert.deepEqual(continued.read, whole.read);
  assert.equal(continued.modified.size, 320);
});
