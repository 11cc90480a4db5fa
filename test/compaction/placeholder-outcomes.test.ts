/**
 * What the product wrote in a tool output's place is never an outcome: the last tool call of the
 * replaced messages that got no result (none recorded, or only the placeholder result added for a
 * call without one) is said to have none, and its command is listed with no outcome; a verification whose output was collapsed to its one-line
 * record quotes no outcome from that record (only the verdict line it kept from the real output).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

function notesOf(format: keyof typeof WRITERS, text: string): string {
  const entries = importTranscriptTextSync(text, WRITERS[format].file).entries;
  return new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(itemsFromEntries(entries), 6000);
}

const UNANSWERED: Step[] = [
  { user: 'deploy the service' },
  { tool: 'read', path: 'deploy/service.yaml', output: `kind: Service\n${filler(20)}` },
  { tool: 'bash', command: 'kubectl apply -f deploy/service.yaml', output: 'UNANSWERED' },
  { user: 'stop, do not deploy yet; review the config first' },
];

/** The recording of {@link UNANSWERED} with the deploy call's result taken out. */
const withoutResult: Partial<Record<keyof typeof WRITERS, () => string>> = {
  'openai-chat': () => {
    const rec = JSON.parse(WRITERS['openai-chat'].write(UNANSWERED)) as { messages: Array<{ content?: unknown }> };
    rec.messages = rec.messages.filter((m) => m.content !== 'UNANSWERED');
    return JSON.stringify(rec);
  },
  cline: () => {
    const msgs = JSON.parse(WRITERS.cline.write(UNANSWERED)) as Array<{ content: Array<{ text?: string }> }>;
    return JSON.stringify(msgs.filter((m) => !m.content.some((b) => b.text?.includes('UNANSWERED'))));
  },
};

for (const [format, write] of Object.entries(withoutResult)) {
  test(`${format}: the last tool call that got no result is said to have none`, () => {
    const summary = notesOf(format as keyof typeof WRITERS, write());
    assert.match(
      summary,
      /^- Last tool call: [^\n]*kubectl apply -f deploy\/service\.yaml[^\n]*\(it got no result: interrupted, denied or never answered; its outcome is unknown\)$/m,
      summary,
    );
    // Its command is listed without an outcome, never as run fine.
    assert.match(summary, /^- `kubectl apply -f deploy\/service\.yaml` → no result was recorded/m, summary);
    assert.doesNotMatch(summary, /`kubectl apply[^\n]*→ ok/, summary);
  });
}

for (const format of ['claude-code', 'openai-chat'] as const) {
  test(`${format}: a last tool call with its result is not said to have none`, () => {
    const summary = notesOf(format, WRITERS[format].write([...UNANSWERED.slice(0, 2), UNANSWERED[0]]));
    assert.match(summary, /^- Last tool call: [^\n]*service\.yaml$/m, summary);
  });

  test(`${format}: a verification collapsed to its record quotes no outcome from the record`, () => {
    const record = (cmd: string, tail = '') =>
      `[tool result collapsed] Bash command=${cmd} → ok, 3086 characters, 59 lines${tail}. The full output is kept in ContextKeeper's checkpoint history; run the tool again if it is needed.`;
    const steps: Step[] = [
      { user: 'build the app and run the tests' },
      { tool: 'bash', command: 'pnpm build', output: '', result: record('pnpm build') },
      { tool: 'read', path: 'README.md', output: `# App\n${filler(20)}` },
    ];
    const summary = notesOf(format, WRITERS[format].write(steps));
    const line = /^- Latest verification: .*$/m.exec(summary)?.[0] ?? '';
    assert.match(line, /pnpm build → no outcome quoted: its output was collapsed before this summary/, summary);
    assert.doesNotMatch(line, /characters|checkpoint history|→ ok/, summary);
    // The verdict line a record kept from the real output is quoted as that.
    const tested = notesOf(
      format,
      WRITERS[format].write([
        ...steps.slice(0, 2),
        {
          tool: 'bash',
          command: 'npm test',
          output: '',
          result: record('npm test', '; last line: 42 passed, 0 failed'),
        },
      ]),
    );
    assert.match(
      tested,
      /^- Latest verification: Bash npm test → its output was collapsed before this summary; its last line was: "42 passed, 0 failed"$/m,
      tested,
    );
  });
}
