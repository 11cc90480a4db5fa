/**
 * A message without a role is refused with an error that names the file, the line (the record's
 * in JSON lines; where the message starts in one JSON document, whose field path holds its index),
 * the field, and the roles the format has, in every format.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTranscriptText } from '../../src/transcripts';
import { WRITERS, type Step } from '../support/recordings';
import { rewriteRecords, transcriptError } from './helpers';

const REPLY = 'The test passes now.';
const steps: Step[] = [{ user: 'Fix the failing test.' }, { say: REPLY }, { user: 'Thanks.' }];

/** Where each format keeps the role of the reply, as an error names it. */
const FIELDS: Record<keyof typeof WRITERS, RegExp> = {
  'claude-code': /^message\.role$/,
  codex: /^payload\.role$/,
  cline: /^\[\d+\]\.role$/,
  'openai-chat': /^messages\[\d+\]\.role$/,
  'swe-agent': /^history\[\d+\]\.role$/,
  openhands: /^\[\d+\]\.llm_message\.role$/,
};

for (const [format, { write, file }] of Object.entries(WRITERS) as Array<
  [keyof typeof WRITERS, (typeof WRITERS)[keyof typeof WRITERS]]
>) {
  test(`${format}: a message without a role names the file, line and field`, async () => {
    // The innermost object that has a role and holds the reply loses its role.
    const text = rewriteRecords(write(steps), (o) => {
      if ('role' in o && JSON.stringify(o).includes(REPLY) && !JSON.stringify(Object.values(o)).includes('"role"'))
        delete o.role;
    });
    const e = await transcriptError(() => importTranscriptText(text, file));
    assert.match(e.field, FIELDS[format]);
    assert.match(
      e.message,
      /: message has no "role" \(expected (one of [a-z]+(, [a-z]+)+|"assistant")\)$/,
      `${format}: ${e.message}`,
    );
    const line = text.split('\n').findIndex((l) => l.includes(REPLY)) + 1;
    assert.equal(e.line, line, e.message);
    assert.ok(e.message.startsWith(`${file}:${line}: ${e.field}: `), e.message);
  });
}
