/**
 * The lines a summary quotes for a requested focus are the files' current text: a line a read showed
 * that a later edit of the same file replaced (a status `Ready` made `Done`, a `- [ ]` item ticked),
 * or that a later read showed again, is not quoted as if it still stood; the edit's new line is.
 * A line no later work touched is quoted as before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { sectionOf, WRITERS, type Step } from '../support/recordings';

/** The extractive notes of the whole recording `steps` in `format` for the focus `focus`. */
function notesOf(format: keyof typeof WRITERS, steps: readonly Step[], focus: string): string {
  const w = WRITERS[format];
  const items = itemsFromEntries(importTranscriptTextSync(w.write(steps), w.file).entries);
  return new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 8000, focus);
}

const ISSUES = [
  '| FW-004 | Done | P1 | Polish the top-up handoff |',
  '| FW-005 | Ready | P1 | Add the wallet-readiness demo |',
  '',
  '## Handoff',
  '- [ ] FW-005: build the wallet-readiness demo',
  '- [ ] FW-007: expense proof upload',
].join('\n');

const EDITED: Step[] = [
  { user: 'Build FW-005 and mark it done in issues.md.' },
  { tool: 'read', path: '/w/issues.md', output: ISSUES },
  { tool: 'write', path: '/w/scripts/readiness.mjs', content: 'export function ready() { return true; }\n' },
  {
    tool: 'edit',
    path: '/w/issues.md',
    old: '| FW-005 | Ready | P1 | Add the wallet-readiness demo |',
    new: '| FW-005 | Done | P1 | Add the wallet-readiness demo |',
  },
  {
    tool: 'edit',
    path: '/w/issues.md',
    old: '- [ ] FW-005: build the wallet-readiness demo',
    new: '- [x] FW-005: build the wallet-readiness demo',
  },
  { say: 'FW-005 is shipped and marked done.' },
];

for (const format of ['claude-code', 'cline', 'codex', 'openhands'] as const) {
  test(`${format}: a focus quote of a read line that a later edit replaced gives the edited line`, () => {
    const summary = notesOf(format, EDITED, 'FW-005');
    const quotes = sectionOf(summary, 'On the requested focus');
    assert.ok(quotes, summary);
    assert.doesNotMatch(quotes, /FW-005 \| Ready/, quotes);
    assert.doesNotMatch(quotes, /- \[ \] FW-005/, quotes);
    assert.match(quotes, /FW-005 \| Done/, quotes);
    assert.match(quotes, /\[x\] FW-005/, quotes);
  });

  test(`${format}: a focus quote of a read line no later work touched stays, and a later read is the one quoted`, () => {
    const summary = notesOf(format, EDITED, 'FW-007');
    assert.match(sectionOf(summary, 'On the requested focus'), /- \[ \] FW-007: expense proof upload/, summary);
    const reread = notesOf(
      format,
      [
        { user: 'What is the state of FW-005?' },
        { tool: 'read', path: '/w/issues.md', output: ISSUES },
        { tool: 'read', path: '/w/issues.md', output: ISSUES.replace('FW-005 | Ready', 'FW-005 | Blocked') },
        { say: 'FW-005 is blocked.' },
      ],
      'FW-005',
    );
    const quotes = sectionOf(reread, 'On the requested focus');
    assert.doesNotMatch(quotes, /FW-005 \| Ready/, quotes);
    assert.match(quotes, /FW-005 \| Blocked/, quotes);
  });
}
