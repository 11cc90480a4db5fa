/** The extension's log channel never writes the API key, in any form a server echoes it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LogOutputChannel } from 'vscode';
import { redactingLog } from '../../src/secrets/redacting-log';

test('log lines are redacted with the key in force at write time', () => {
  const written: string[] = [];
  const fake = {
    name: 'ContextKeeper',
    info: (m: string) => written.push(`info ${m}`),
    error: (m: string | Error) => written.push(`error ${m instanceof Error ? m.message : m}`),
    appendLine: (m: string) => written.push(`line ${m}`),
    show: () => written.push('shown'),
  } as unknown as LogOutputChannel;
  let key: string | undefined;
  const log = redactingLog(fake, () => key);
  key = 'sk-proj-Stored4Key3In2Secret1Storage9abcd';
  log.info(`401: Incorrect API key provided: sk-proj-****abcd`);
  log.error(new Error(`request to http://x/v1?key=${encodeURIComponent(key)} failed`));
  log.appendLine(`Authorization: Bearer ${key}`);
  log.show();
  assert.equal(log.name, 'ContextKeeper');
  assert.deepEqual(written, [
    'info 401: Incorrect API key provided: ***',
    'error request to http://x/v1?key=*** failed',
    'line Authorization: Bearer ***',
    'shown',
  ]);
  key = undefined;
  log.info('sk-proj-****abcd');
  assert.equal(written.at(-1), 'info sk-proj-****abcd');
});
