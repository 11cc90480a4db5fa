/**
 * The compare of a checkpoint stays usable at any size: both laid-out sides have an even number of
 * lines as VS Code counts them (its line-level diff keeps the shared divider then, so the diff is two
 * one-sided blocks with no character pass), and a compare over `COMPARE_DIFF_MAX_LINES` lines opens
 * side by side without a diff, with a notification that says so.
 */
import '../support/vscode-fake/register';
import { beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CheckpointDocumentProvider,
  checkpointUri,
  CHECKPOINT_SCHEME,
  parseCheckpointUri,
} from '../../src/views/documents/checkpoint-documents';
import {
  COMPARE_DIFF_MAX_LINES,
  COMPARE_DIVIDER,
  COMPARE_HEADER,
  compareLines,
  editorLineCount,
  layOutCompare,
} from '../../src/views/documents/compare-layout';
import type { ContextItem } from '../../src/compaction/types';
import type { CheckpointRecord } from '../../src/service/records';
import { host, resetVscodeFake, workspace } from '../support/vscode-fake';

beforeEach(() => resetVscodeFake());

test('both sides of every compare have an even number of lines as the editor counts them, the divider closing the left', () => {
  for (let replacedLines = 0; replacedLines < 40; replacedLines++)
    for (let summaryLines = 1; summaryLines < 12; summaryLines++)
      for (const trailing of ['', '\n', '\n\n']) {
        const replaced = Array.from({ length: replacedLines }, (_, i) => `### user · u${i}\nStep ${i}.`).join('\n');
        const summary = Array.from({ length: summaryLines }, (_, i) => `- note ${i}`).join('\n') + trailing;
        const documents = layOutCompare(replaced, summary);
        const what = `${replacedLines} replaced, ${summaryLines} summary lines`;
        assert.equal(editorLineCount(documents.replaced) % 2, 0, `left side, ${what}`);
        assert.equal(editorLineCount(documents.summary) % 2, 0, `right side, ${what}`);
        assert.equal(documents.replaced.split('\n').at(-1), COMPARE_DIVIDER, what);
        assert.deepEqual(documents.summary.split('\n').slice(0, 2), [COMPARE_HEADER, COMPARE_DIVIDER], what);
      }
});

test('a lone carriage return counts as a line break, as the editor reads it, so the counts stay even', () => {
  const documents = layOutCompare('### tool · t1\rprogress 10%\rprogress 100%', 'line one\rline two\r\nline three');
  assert.equal(editorLineCount(documents.replaced) % 2, 0);
  assert.equal(editorLineCount(documents.summary) % 2, 0);
  assert.ok(documents.summary.includes('line one\nline two\nline three'), documents.summary);
});

/** A checkpoint replacing `steps` user/assistant/tool triples, with a summary naming each file. */
function record(steps: number): CheckpointRecord {
  const replaced: ContextItem[] = [];
  for (let i = 0; i < steps; i++) {
    const call = {
      id: `c${i}`,
      type: 'function' as const,
      function: { name: 'read_file', arguments: `{"path":"f${i}"}` },
    };
    replaced.push(
      { id: `u${i}`, kind: 'raw', covers: [`u${i}`], message: { role: 'user', content: `Step ${i}.` } },
      {
        id: `a${i}`,
        kind: 'raw',
        covers: [`a${i}`],
        message: { role: 'assistant', content: null, tool_calls: [call] },
      },
      {
        id: `t${i}`,
        kind: 'raw',
        covers: [`t${i}`],
        message: { role: 'tool', tool_call_id: `c${i}`, content: 'x\n'.repeat(90) },
      },
    );
  }
  const summary = ['## Files read', '', ...Array.from({ length: steps }, (_, i) => `- f${i}`)].join('\n');
  return {
    id: `cp-${steps}`,
    time: '2026-12-03T10:00:00.000Z',
    trigger: 'manual',
    strategy: 'extractive',
    replacedIds: replaced.map((r) => r.id),
    replaced,
    inserted: [
      { id: 's', kind: 'summary', covers: replaced.map((r) => r.id), message: { role: 'user', content: summary } },
    ],
    summary,
    tokensBefore: 50_000,
    tokensAfter: 5_000,
  };
}

/** Opens the compare of `checkpoint` and says how it opened: as a diff, or as documents side by side. */
async function openCompare(checkpoint: CheckpointRecord) {
  const provider = new CheckpointDocumentProvider((id) => (id === checkpoint.id ? checkpoint : undefined));
  workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, provider);
  await provider.showDiff(checkpoint.id);
  const lines = compareLines({
    replaced: provider.provideTextDocumentContent(checkpointUri(checkpoint.id, 'replaced')),
    summary: provider.provideTextDocumentContent(checkpointUri(checkpoint.id, 'summary')),
  });
  provider.dispose();
  return {
    lines,
    diffs: host.executed.filter((e) => e.id === 'vscode.diff'),
    shown: host.shownDocuments.map((d) => ({ ...d, part: parseCheckpointUri(d.uri)?.part })),
    notices: host.messages.map((m) => m.message),
  };
}

test('a compare within the line limit opens as a diff; one over it opens side by side without a diff, and says so', async () => {
  // About 2.3 lines a step: 1,000 steps stay within the limit, 6,000 go over it.
  const small = await openCompare(record(1_000));
  assert.ok(small.lines <= COMPARE_DIFF_MAX_LINES, `${small.lines} lines`);
  assert.equal(small.diffs.length, 1, 'opened as a diff');
  assert.deepEqual(small.shown, []);

  resetVscodeFake();
  const large = await openCompare(record(6_000));
  assert.ok(large.lines > COMPARE_DIFF_MAX_LINES, `${large.lines} lines`);
  assert.equal(large.diffs.length, 0, 'no diff is computed');
  assert.deepEqual(
    large.shown.map((d) => [d.part, d.viewColumn, d.preview]),
    [
      ['replaced', -1, false],
      ['summary', -2, false],
    ],
    'the replaced messages in the active column, the summary beside them',
  );
  assert.equal(large.notices.length, 1, large.notices.join('\n'));
  assert.match(large.notices[0], /side by side, without a diff/);
});
