/**
 * A user-role message a harness wrote is labelled as the harness's in the sidebar's transcript and in
 * the compare document alike, in every recording format: Cline's task resumption and to-do reminder,
 * Claude Code's reminders. A message that is mostly a harness's text around a line the user typed
 * names both; the user's own requests stay the user's.
 */
import '../support/vscode-fake/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { itemsForEntry, type ToolNames } from '../../src/views/sidebar/transcript-items';
import { renderItems } from '../../src/views/documents/checkpoint-documents';
import { WRITERS } from '../support/recordings';

const ENVIRONMENT = [
  '<environment_details>',
  '# Visual Studio Code Visible Files',
  'src/parser.ts',
  '',
  '# Visual Studio Code Open Tabs',
  'src/parser.ts, src/lexer.ts, test/parser.test.ts',
  '',
  '# Current Time',
  '12/3/2026, 9:00:00 AM (UTC)',
  '</environment_details>',
].join('\n');

const RESUMED = [
  '[TASK RESUMPTION] This task was interrupted 16 hours ago. It may or may not be complete, so please reassess the task context. Be aware that the project state may have changed since then.',
  '',
  'Note: If you previously attempted a tool use that the user did not provide a result for, you should assume the tool use was not successful and assess whether you should retry.',
  '',
  'New instructions for task continuation:',
  '<user_message>',
  'Keep going.',
  '</user_message>',
  '',
  ENVIRONMENT,
].join('\n');

const TODO = [
  '# TODO LIST UPDATE REQUIRED - You MUST include the task_progress parameter in your NEXT tool call.',
  '',
  '**Current Progress: 1/3 items completed (33%)**',
  '',
  ENVIRONMENT,
].join('\n');

const REMINDER =
  '<system-reminder>\nThe task tools have not been used recently. Consider using them.\n</system-reminder>';

const REQUEST = 'Fix the parser so that it accepts trailing commas in argument lists, then run the tests.';

for (const format of ['cline', 'claude-code', 'openai-chat'] as const) {
  test(`${format}: harness text in the user role is labelled as the harness's in the sidebar and the compare document`, () => {
    const { write, file } = WRITERS[format];
    const recording = write([
      { user: REQUEST },
      { say: 'Looking at the parser.' },
      { user: RESUMED },
      { say: 'Resuming.' },
      { user: TODO },
      { say: 'Noted.' },
      { user: REMINDER },
      { say: 'Done.' },
    ]);
    // Cline writes its notices and reminders as text blocks of their own, not inside the user's `<feedback>`.
    const raw =
      format === 'cline' ? recording.replaceAll('<feedback>\\n', '').replaceAll('\\n</feedback>', '') : recording;
    const { entries } = importTranscriptTextSync(raw, file);
    const names: ToolNames = new Map();
    const lines = entries.flatMap((entry) =>
      itemsForEntry(entry, names, { running: new Set(), outcomes: new Map() }).filter((l) => l.kind === 'user'),
    );
    /** The speaker of the user line whose text holds `marker` ("You" when it is the user's). */
    const speakerOf = (marker: string) => {
      const line = lines.find((l) => l.text.includes(marker));
      assert.ok(line && line.kind === 'user', `no line with ${marker}`);
      return line.speaker ?? 'You';
    };
    assert.equal(speakerOf('trailing commas'), 'You');
    assert.equal(speakerOf('[TASK RESUMPTION]'), 'Cline (harness), with your words');
    const todo = speakerOf('# TODO LIST UPDATE REQUIRED');
    assert.match(todo, /^Cline \(/);
    assert.equal(speakerOf('The task tools have not been used'), 'Claude Code (harness)');

    const headings = renderItems(itemsFromEntries(entries))
      .split('\n')
      .filter((l) => l.startsWith('### ') && !/^### (assistant|system)\b/.test(l))
      .map((l) => l.replace(/ · \S+$/, ''));
    assert.deepEqual(headings, [
      '### user',
      '### Cline (harness), with your words',
      `### ${todo}`,
      '### Claude Code (harness)',
    ]);
  });
}
