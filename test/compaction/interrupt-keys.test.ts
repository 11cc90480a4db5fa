/**
 * Keys sent to stop a hung command (OpenHands' `C-c` terminal input) are no failure: neither the
 * summary nor the scorecard lists them among errors, so the two agree. A command the terminal left
 * running (a heredoc still waiting for its end marker) wrote no file known to be written: the
 * scorecard does not count it among files changed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { errorSignatures } from '../../src/compaction/retention/errors';
import { spanFiles } from '../../src/compaction/retention/files';

const HUNG = `[The command has no new output after 30 seconds. You may wait longer to see additional output by sending empty command '', send keys ("C-c", "C-z", "C-d") to interrupt/kill the previous command.]`;

const STEPS: Step[] = [
  { user: 'Find out which events carry the failing tool call id.' },
  {
    tool: 'bash',
    command: "cat > /tmp/analyze.py << 'EOF'\nimport json\nprint(json.dumps({}))\nEOF",
    output: `> import json\n> print(json.dumps({}))\n${HUNG}`,
    ok: false,
    exit: -1,
  },
  { tool: 'bash', command: 'C-c', output: '[The command completed with exit code 1. CTRL+C was sent.]', ok: false },
  { tool: 'bash', command: 'grep -c toolu_01 events/*.json', output: 'events/12.json:2', exit: 0 },
  { say: 'Two events carry the id: the call and its observation.' },
  { user: 'Now explain why the observation was rejected.' },
  { say: 'It was rejected because its call had been answered already.' },
];

for (const format of ['openhands', 'openai-chat'] as const) {
  test(`${format}: interrupt keys sent to a hung command are no failure in the summary or the scorecard`, () => {
    const { write, file } = WRITERS[format];
    const entries = importTranscriptTextSync(write(STEPS), file).entries;
    const summary = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(itemsFromEntries(entries), 6000);
    // The hung heredoc stays a failure; the keys that stopped it are not one.
    assert.match(summary, /cat > \/tmp\/analyze\.py/, summary);
    assert.doesNotMatch(summary, /^- [^\n]*`C-c`[^\n]*(?:fail|exit 1|unresolved|open)/im, summary);
    assert.doesNotMatch(summary, /^- (?:open|unresolved[^:]*):[^\n]*`C-c`/im, summary);
    // Nor a command that succeeded: the keys are listed as what they were.
    assert.doesNotMatch(summary, /`C-c` → ok/, summary);
    assert.match(summary, /`C-c` → keys sent to stop the command that was running/, summary);
    const keys = errorSignatures(entries, 0, entries.length).filter((e) => e.key.startsWith('C-c'));
    assert.deepEqual(keys, []);
  });

  test(`${format}: a file a hung command was to write is not among the files changed`, () => {
    const { write, file } = WRITERS[format];
    const entries = importTranscriptTextSync(write(STEPS), file).entries;
    const files = spanFiles(entries);
    assert.ok(!files.modified.has('/tmp/analyze.py'), JSON.stringify([...files.modified]));
  });
}
