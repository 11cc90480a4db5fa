/**
 * A focus quote of a file's line is the file's current text also when a shell command changed the
 * file after it was read: `sed -i` edited it in place, `echo … > f` or `cat > f <<EOF` wrote it anew,
 * `rm`/`mv` removed it (the commands the files section reads as file changes). A command that only
 * added to the file (`>>`) leaves its earlier lines standing, and a failed command changes nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { sectionOf, WRITERS, type Step } from '../support/recordings';

function notesOf(format: keyof typeof WRITERS, steps: readonly Step[], focus: string): string {
  const w = WRITERS[format];
  const items = itemsFromEntries(importTranscriptTextSync(w.write(steps), w.file).entries);
  return new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 8000, focus);
}

const ISSUES = [
  '| FW-005 | Ready | P1 | Add the wallet-readiness demo |',
  '| FW-007 | Ready | P2 | Expense proof upload |',
].join('\n');

const steps = (command: string, ok = true): Step[] => [
  { user: 'Build FW-005 and mark it done in issues.md.' },
  { tool: 'read', path: 'docs/issues.md', output: ISSUES },
  {
    tool: 'bash',
    command,
    output: ok ? '' : "sed: can't read docs/issues.md: No such file or directory",
    exit: ok ? 0 : 2,
    ok,
  },
  { say: 'FW-005 is marked done.' },
];

const CHANGES = [
  "sed -i 's/FW-005 | Ready/FW-005 | Done/' docs/issues.md",
  "echo '| FW-005 | Done | P1 | Add the wallet-readiness demo |' > docs/issues.md",
  "cat > docs/issues.md <<'EOF'\n| FW-005 | Done | P1 | Add the wallet-readiness demo |\nEOF",
  'rm docs/issues.md',
  'mv docs/issues.md docs/archive/issues.md',
];

for (const format of ['claude-code', 'codex', 'openhands', 'cline'] as const) {
  test(`${format}: a read line a later shell command changed is not quoted as the file's text`, () => {
    for (const command of CHANGES) {
      const summary = notesOf(format, steps(command), 'FW-005');
      const quotes = sectionOf(summary, 'On the requested focus');
      assert.doesNotMatch(quotes, /\(output of [^)]*\) \| FW-005 \| Ready/, `${command}\n${quotes}`);
    }
  });

  test(`${format}: an append or a failed shell command leaves the read line standing`, () => {
    for (const [command, ok] of [
      ["echo '| FW-009 | Ready | P3 | Docs |' >> docs/issues.md", true],
      ["sed -i 's/FW-005 | Ready/FW-005 | Done/' docs/issues.md", false],
    ] as const) {
      const summary = notesOf(format, steps(command, ok), 'FW-005');
      assert.match(sectionOf(summary, 'On the requested focus'), /\| FW-005 \| Ready/, `${command}\n${summary}`);
    }
  });
}
