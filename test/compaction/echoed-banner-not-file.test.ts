/**
 * A file is named from real file operations and paths, never from the text a command echoes: a
 * banner line (`echo "=== PROMPT.MD ==="`, `echo "--- questions.md ---"`) names no file, in the
 * summary of the span nor in the one that replaces it (what the earlier summary held and the new
 * one keeps). A file an echo writes to (`echo x > notes.md`) is still named.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { keepEarlierHoldings } from '../../src/compaction/summary/earlier-holdings';
import type { ContextItem } from '../../src/compaction/types';

const FIRST: Step[] = [
  { user: 'read the task files and start the backend' },
  {
    tool: 'bash',
    command: 'echo "=== PROMPT.MD ===" && cat /w/task/prompt.md && echo "--- QUESTIONS.MD (first 80 lines) ---"',
    output: '=== PROMPT.MD ===\nBuild a bus platform.\n--- QUESTIONS.MD (first 80 lines) ---',
  },
  { tool: 'bash', command: 'echo "draft" > /w/task/notes.md', output: '' },
  { say: 'The task is clear.' },
];
/** The lines of `summary` outside its commands section (where the command is quoted as run). */
function outsideCommands(summary: string): string {
  const out: string[] = [];
  let inCommands = false;
  for (const l of summary.split('\n')) {
    if (l.startsWith('## ')) inCommands = l.startsWith('## Commands');
    else if (!inCommands) out.push(l);
  }
  return out.join('\n');
}

for (const format of ['claude-code', 'codex', 'openhands'] as const) {
  test(`${format}: echoed banner text names no file`, () => {
    const { write, file } = WRITERS[format];
    const items = itemsFromEntries(importTranscriptTextSync(write(FIRST), file).entries);
    const first = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 6000);
    assert.match(first, /PROMPT\.MD/, 'the command is quoted as run');
    assert.doesNotMatch(outsideCommands(first), /PROMPT\.MD|QUESTIONS\.MD/, first);
    // The summary replacing it keeps what the earlier one named and it does not: no banner text.
    const earlier: ContextItem = {
      id: 'cp~s',
      kind: 'summary',
      message: { role: 'user', content: first },
      covers: items.map((i) => i.id),
      checkpointId: 'cp',
    };
    const kept = keepEarlierHoldings('## Current work and next step\n- The backend is started.', [earlier]);
    assert.doesNotMatch(kept, /PROMPT\.MD|QUESTIONS\.MD/, kept);
    assert.match(kept, /notes\.md/, kept);
  });
}
