/**
 * A content block of a type the format does not define (a misspelt `txet`) is never dropped
 * unsaid: when it holds text, the text is read as text (it reaches the context and the summary)
 * and a warning names the file, the line or message, and the field; when it holds none, it is left
 * out with the same warning (Codex: refused with an error naming the field).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTranscriptTextSync } from '../../src/transcripts';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { summaryOf, WRITERS, type Step } from '../support/recordings';
import { rewriteRecords, transcriptError } from './helpers';

const RULE = 'Also never touch deploy.yml: the ops team manages it.';
/** Prose long enough that the span before the latest request is summarised, not only collapsed. */
const NOTES = Array.from(
  { length: 30 },
  (_, i) => `Step ${i}: the sum in src/app.ts subtracts where it should add, so case ${i} of the table fails.`,
).join(' ');
const steps: Step[] = [
  { user: 'Fix the failing test in src/app.ts.' },
  { say: NOTES },
  { tool: 'bash', command: 'npm test', output: '1 failing', ok: false },
  { user: RULE },
  { say: NOTES },
  { say: 'Understood.' },
  { tool: 'edit', path: 'src/app.ts', old: 'return a - b;', new: 'return a + b;' },
  { tool: 'bash', command: 'npm test', output: '3 passing' },
  { user: 'Now update the changelog.' },
];

/** The recording with the block that holds `RULE` given type `txet` (a string content made a block list first). */
function misspelt(text: string, block: (text: string) => Record<string, unknown> = (t) => ({ type: 'txet', text: t })) {
  return rewriteRecords(text, (o) => {
    if (typeof o.content === 'string' && o.content.includes(RULE)) o.content = [block(o.content)];
    if (typeof o.type === 'string' && typeof o.text === 'string' && o.text.includes(RULE)) {
      const replaced = block(o.text);
      for (const key of Object.keys(o)) delete o[key];
      Object.assign(o, replaced);
    }
  });
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

for (const [format, { write, file }] of Object.entries(WRITERS)) {
  test(`${format}: a block of unknown type that holds text is read as text, with a warning naming where`, async () => {
    const text = misspelt(write(steps));
    assert.ok(text.includes('"txet"'), 'the recording holds the misspelt block');
    const t = importTranscriptTextSync(text, file);
    assert.equal(t.format, format);
    const holders = t.entries.filter((e) => textWithPlaceholders(e.message.content).includes(RULE));
    assert.deepEqual(
      holders.map((e) => e.message.role),
      ['user'],
      'the words stay the user message they were',
    );
    const warning = new RegExp(
      `^${escape(file)}(:\\d+)?: .*content\\[\\d+\\]\\.type: content block of unknown type "txet"; its text is read as text$`,
    );
    assert.equal(t.warnings.filter((w) => warning.test(w)).length, 1, t.warnings.join('\n'));
    // A JSON-lines recording names the record's line.
    if (file.endsWith('.jsonl')) {
      const line = text.split('\n').findIndex((l) => l.includes('"txet"')) + 1;
      assert.ok(
        t.warnings.some((w) => w.startsWith(`${file}:${line}: `)),
        t.warnings.join('\n'),
      );
    }
    const { summary } = await summaryOf(text, file);
    assert.ok(summary.includes(RULE), `the summary keeps the request:\n${summary}`);
  });
}

for (const format of ['claude-code', 'cline', 'openhands'] as const) {
  const { write, file } = WRITERS[format];
  test(`${format}: a block of unknown type without text is left out with a warning, never silently`, () => {
    const text = misspelt(write(steps), () => ({ type: 'txet', data: 42 }));
    const t = importTranscriptTextSync(text, file);
    assert.ok(
      t.warnings.some((w) =>
        new RegExp(
          `^${escape(file)}(:\\d+)?: .*content\\[\\d+\\]\\.type: content block of unknown type "txet" holds no text; left out$`,
        ).test(w),
      ),
      t.warnings.join('\n'),
    );
  });
}

test('codex: a block of unknown type without text is refused, naming the line and field', async () => {
  const { write, file } = WRITERS.codex;
  const text = misspelt(write(steps), () => ({ type: 'txet', data: 42 }));
  const e = await transcriptError(async () => importTranscriptTextSync(text, file));
  const line = text.split('\n').findIndex((l) => l.includes('"txet"')) + 1;
  assert.equal(e.message, `${file}:${line}: payload.content[0].type: unknown content block type "txet"`);
});
