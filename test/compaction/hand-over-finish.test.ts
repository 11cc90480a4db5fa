/**
 * OpenHands' `finish` and SWE-agent's `submit` end the agent's turn as Cline's `attempt_completion`
 * does: the call is never an error signature (its result is the report or the submitted patch), and
 * the summary reads the work as handed over, the next step the user's, never the agent's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { errorSignatures } from '../../src/compaction/retention/errors';
import { agentCalls } from '../../src/compaction/retention/calls';

const STEPS: Step[] = [
  { user: 'fix the parser so that empty lines are skipped' },
  {
    tool: 'bash',
    command: 'python -m pytest tests/test_parser.py',
    output: 'FAILED tests/test_parser.py::test_empty - AssertionError',
    ok: false,
  },
  { tool: 'edit', path: 'src/parser.py', old: 'if line:', new: 'if line.strip():' },
  { tool: 'bash', command: 'python -m pytest tests/test_parser.py', output: '3 passed in 0.02s' },
  { done: 'Fixed the parser: empty lines are skipped and the parser tests pass.' },
];

for (const [format, tool] of [
  ['openhands', 'finish'],
  ['swe-agent', 'submit'],
  ['cline', 'attempt_completion'],
] as const) {
  test(`${format}: \`${tool}\` ends the turn: no error signature, the next step is the user's`, () => {
    const { write, file } = WRITERS[format];
    const entries = importTranscriptTextSync(write(STEPS), file).entries;
    // The hand-over call is read as a call of the recording.
    assert.ok(
      agentCalls(entries).some((c) => c.name === tool),
      `${format}: no ${tool} call read`,
    );
    const errors = errorSignatures(entries, 0, entries.length);
    assert.ok(!errors.some((e) => e.key.startsWith(tool)), JSON.stringify(errors));
    assert.ok(!errors.some((e) => e.state === 'open'), JSON.stringify(errors));
    const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(itemsFromEntries(entries), 6000);
    assert.match(
      summary,
      /^- Work completed \(the agent's last message here reports it done\): "Fixed the parser/m,
      summary,
    );
    assert.match(summary, /^- Next step: the user's turn/m, summary);
    assert.doesNotMatch(summary, /^- open:/m, summary);
    assert.doesNotMatch(summary, /In progress/, summary);
  });
}
