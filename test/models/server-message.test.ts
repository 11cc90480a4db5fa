/** The message of a server's error reply, as a failed request reports it (`serverMessage`). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverMessage } from '../../src/models/http';

test("serverMessage reads the common error shapes, else the body's text, collapsed and bounded", () => {
  assert.equal(serverMessage('{"error":{"message":"model not loaded","type":"server_error"}}'), 'model not loaded');
  assert.equal(serverMessage('{"error":"llama runner process has terminated"}'), 'llama runner process has terminated');
  assert.equal(serverMessage('{"detail":"Not Found"}'), 'Not Found');
  assert.equal(serverMessage('{"message":"  busy\\n  try later "}'), 'busy try later');
  assert.equal(serverMessage('Internal Server Error\n'), 'Internal Server Error');
  assert.equal(serverMessage(''), '');
  const long = serverMessage('x'.repeat(1_000));
  assert.equal(long.length, 200);
  assert.ok(long.endsWith('…'));
});
