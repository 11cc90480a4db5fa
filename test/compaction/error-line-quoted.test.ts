/**
 * The error a summary quotes for a failed command is the tool's own failure line: never the
 * product's record of a collapsed result (its kept error line instead, else no quote), never a
 * warning printed before the error line; and a run that only hides the error (`2>nul`,
 * `2>/dev/null`, `|| true`) passing is no fix of the failure.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WRITERS, sectionOf, type Step } from '../support/recordings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { callOf, collapseItem } from '../../src/compaction/rewrite/collapse';
import type { ContextItem } from '../../src/compaction/types';

const FORMATS = ['claude-code', 'codex', 'cline'] as const;

function itemsOf(format: (typeof FORMATS)[number], steps: readonly Step[]): ContextItem[] {
  const { write, file } = WRITERS[format];
  return itemsFromEntries(importTranscriptTextSync(write(steps), file).entries);
}

const notesOf = (items: ContextItem[]) =>
  sectionOf(new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(items, 6000), 'Errors and fixes');

const NPM: Step[] = [
  { user: 'add next-auth to the app' },
  {
    tool: 'bash',
    command: 'npm install next-auth@beta',
    output: [
      'npm warn ERESOLVE overriding peer dependency',
      'npm warn While resolving: app@0.1.0',
      'npm error code ERESOLVE',
      'npm error ERESOLVE could not resolve',
    ].join('\n'),
    ok: false,
  },
];

for (const format of FORMATS)
  test(`${format}: the failure line quoted is the error line, not a warning before it`, () => {
    const errors = notesOf(itemsOf(format, NPM));
    assert.match(errors, /npm error (?:code )?ERESOLVE/, errors);
    assert.doesNotMatch(errors, /npm warn/, errors);
  });

/** Warnings as loggers print them: after a time, a date or fields, as a logfmt level, as a Python category. */
const LOGGED_WARNINGS = [
  '[12:00:01] WARN cache: TimeoutError: retrying in 1s',
  '2024-01-01T10:00:00Z WARNING pool: ConnectionError: retrying in 1s',
  '12:00:01.123 [main] WARN c.a.Config - SettingsException: optional file missing',
  'time=2024-01-01T10:00:00Z level=warn msg="RetryError: attempt 1 of 3"',
  '(node:4242) Warning: ExperimentalError: fetch is experimental',
  'app.py:3: DeprecationWarning: LegacyError: error_callback is deprecated',
];

for (const format of FORMATS)
  for (const warning of LOGGED_WARNINGS)
    test(`${format}: a logged warning (${warning.slice(0, 24)}…) is never quoted as the error after it`, () => {
      const steps: Step[] = [
        { user: 'start the api server' },
        {
          tool: 'bash',
          command: 'npm run serve',
          output: [warning, 'Error: listen EADDRINUSE: address already in use :::3000'].join('\n'),
          ok: false,
        },
      ];
      const notes = new ExtractiveSummarizer((t) => Math.ceil(t.length / 4)).notes(itemsOf(format, steps), 6000);
      const errors = sectionOf(notes, 'Errors and fixes');
      assert.match(errors, /EADDRINUSE/, errors);
      // Nowhere in the summary is the warning quoted as what failed.
      assert.ok(!notes.includes(warning.slice(0, 30)), notes);
    });

for (const format of FORMATS)
  test(`${format}: a collapsed result's record is never quoted as the error`, () => {
    const items = itemsOf(format, NPM);
    const at = items.findIndex(
      (i) => i.message.role !== 'assistant' && JSON.stringify(i.message).includes('npm error'),
    );
    assert.ok(at > 0, format);
    const collapsed = collapseItem(items[at], callOf(items, at), 'cp');
    assert.match(JSON.stringify(collapsed.message), /tool result collapsed/);
    items[at] = collapsed;
    const errors = notesOf(items);
    assert.match(errors, /npm install next-auth@beta/, errors);
    assert.doesNotMatch(errors, /tool result collapsed/, errors);
  });

const KILL: Step[] = [
  { user: 'restart the dev server' },
  {
    tool: 'bash',
    command: 'taskkill /F /IM node.exe',
    output: 'ERROR: The process "node.exe" not found.',
    ok: false,
  },
  { tool: 'bash', command: 'taskkill /F /IM node.exe 2>nul', output: '' },
  { tool: 'bash', command: 'pkill -f vite || true', output: '' },
];

for (const format of FORMATS)
  test(`${format}: hiding a command's error is no fix of its failure`, () => {
    const errors = notesOf(itemsOf(format, KILL));
    assert.match(errors, /taskkill \/F \/IM node\.exe/, errors);
    assert.doesNotMatch(errors, /fixed: `taskkill/, errors);
  });
