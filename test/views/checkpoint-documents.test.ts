/**
 * Checkpoint documents over a real manual compaction of the demo recording: the record renders its
 * rows and the summary, the replaced span and what stands in its place render one section per
 * message (one line a message, so the compare is cheap), `show` and `showDiff` open them in editors, and `refresh` re-renders only open documents.
 */
import '../support/vscode-fake/register';
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { importTranscript } from '../../src/transcripts';
import { text } from '../../src/demo/modelserver/replies';
import {
  CHECKPOINT_SCHEME,
  CheckpointDocumentProvider,
  checkpointTitle,
  checkpointUri,
  compareTitle,
  parseCheckpointUri,
  renderCheckpoint,
  renderItems,
  oneLine,
  COMPARE_MESSAGE_CHARS,
} from '../../src/views/documents/checkpoint-documents';
import type { ContextItem } from '../../src/compaction/types';
import {
  ALSO_IN_SUMMARY,
  COMPARE_DIVIDER,
  COMPARE_HEAD_CHARS,
  COMPARE_HEAD_END,
  COMPARE_HEADER,
  layOutCompare,
} from '../../src/views/documents/compare-layout';
import { serviceFixture, StubSummarizer, type ServiceFixture } from '../service/fixtures';
import { host, resetVscodeFake, Uri, window, workspace } from '../support/vscode-fake';
import { checkpointRunLookup } from '../../src/views/documents/checkpoint-lookup';
import { formatClock } from '../../src/format/display';
import { formatTokens } from '../../src/format/tokens';
import type { CheckpointRecord } from '../../src/service/records';
import { describeOutcome } from '../../src/service/compaction/outcome';

let fx: ServiceFixture;
let checkpoint: CheckpointRecord;
let provider: CheckpointDocumentProvider;

before(async () => {
  fx = await serviceFixture(() => text('ok'), {
    window: 32_000,
    summarizer: new StubSummarizer('SUMMARY: the parser was fixed; tests pass.'),
  });
  const imported = await importTranscript(path.resolve(__dirname, '../../../samples/demo-session.json'));
  await fx.service.importTranscript({ source: 'demo', entries: imported.entries });
  const outcome = await fx.service.compactNow({ focus: 'the parser' });
  assert.equal(outcome.status.kind, 'applied', describeOutcome(outcome.status));
  checkpoint = fx.service.getCheckpoints().find((c) => c.strategy === 'summary')!;
  assert.ok(checkpoint, 'the compaction wrote a summary checkpoint');
});
after(() => fx.cleanup());

beforeEach(() => {
  provider?.dispose();
  resetVscodeFake();
  provider = new CheckpointDocumentProvider((id) => fx.service.getCheckpoints().find((c) => c.id === id));
  workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, provider);
});

const render = (id: string, part: 'checkpoint' | 'replaced' | 'summary') =>
  provider.provideTextDocumentContent(checkpointUri(id, part));

test('the checkpoint record lists trigger, tokens, replaced messages, summarizer and focus, then the summary', () => {
  const doc = render(checkpoint.id, 'checkpoint');
  const lines = doc.split('\n');
  assert.equal(lines[0], `# Checkpoint ${checkpoint.id}`);
  const row = (key: string) => lines.find((l) => l.startsWith(`| ${key} |`));
  assert.equal(row('Trigger'), '| Trigger | manual (Compact) |');
  assert.equal(row('Strategy'), '| Strategy | summary |');
  assert.equal(lines[2], '| Field | Value |', 'the table has a header row, not an empty one');
  const grouped = (n: number) => String(n).replace(/\B(?=(\d{3})+$)/g, ',');
  assert.equal(row('Tokens'), `| Tokens | ${grouped(checkpoint.tokensBefore)} → ${grouped(checkpoint.tokensAfter)} |`);
  assert.equal(row('Messages replaced'), `| Messages replaced | ${checkpoint.replacedIds.length} |`);
  assert.equal(row('Focus'), '| Focus | the parser |');
  assert.ok(checkpoint.replacedIds.length > 5);
  const summaryAt = lines.indexOf('## Summary');
  assert.ok(summaryAt > 0);
  assert.match(lines.slice(summaryAt).join('\n'), /SUMMARY: the parser was fixed; tests pass\./);
});

test("the checkpoint record's typed-request figures come from its scorecard, and the summary's verbatim requests section", () => {
  const doc = render(checkpoint.id, 'checkpoint');
  const lines = doc.split('\n');
  const r = checkpoint.requests!;
  assert.ok(r && r.whole + r.shortened > 0, 'the replaced span holds typed requests');
  // The stub model's summary has no requests of its own: the product restores them verbatim, and says so.
  assert.equal(r.missingFromModel, r.whole + r.shortened);
  // One source for the figures: the header row gives the scorecard's counts, the same as the list below.
  const card = checkpoint.retention!.requests;
  assert.equal(
    lines.find((l) => l.startsWith('| Typed requests kept |')),
    `| Typed requests kept | ${card.whole} whole, ${card.shortened} shortened, ${card.leftOut} left out (of ${card.total}) |`,
  );
  assert.ok(
    lines.includes(
      `- Typed requests: ${card.total} (${card.whole} kept whole, ${card.shortened} shortened, ${card.leftOut} left out)`,
    ),
  );
  assert.equal(
    lines.find((l) => l.startsWith('| Requests the model left out |')),
    `| Requests the model left out | ${r.missingFromModel}, put back verbatim in the requests section |`,
  );
  const summary = lines.slice(lines.indexOf('## Summary')).join('\n');
  assert.match(summary, /## Requests, verbatim \(oldest first; the user's own words\)\n- /);
});

test('the checkpoint record shows its scorecard: what the summary kept of the span, and what it left out by name', () => {
  const card = checkpoint.retention;
  assert.ok(card, 'the compaction scored its summary');
  const lines = render(checkpoint.id, 'checkpoint').split('\n');
  const at = lines.indexOf('## What this compaction kept');
  assert.ok(at > 0 && at < lines.indexOf('## Summary'), 'the scorecard comes before the summary');
  assert.equal(
    lines[at + 2],
    `- Typed requests: ${card.requests.total} (${card.requests.whole} kept whole, 0 shortened, 0 left out)`,
  );
  assert.equal(lines[at + 4], `- Files read: ${card.filesRead.named} of ${card.filesRead.total} named`);
  // The stub's one-line summary leaves names of the code the agent worked with out: listed by name.
  assert.ok(card.identifiers.kept < card.identifiers.total);
  const names = lines.find((l) => l.startsWith('- Identifiers left out: '));
  assert.ok(names, lines.slice(at, at + 12).join('\n'));
  assert.ok(names.includes(`\`${card.missing.identifiers[0]}\``), 'names are shown as code');
});

test('the replaced span has one section per replaced message; the summary side shows what stands in its place', () => {
  const replaced = render(checkpoint.id, 'replaced');
  const headings = replaced.split('\n').filter((l) => l.startsWith('### '));
  assert.equal(headings.length, checkpoint.replaced.length);
  assert.equal(
    checkpoint.replaced.reduce((n, item) => n + item.covers.length, 0),
    checkpoint.replacedIds.length,
  );
  assert.match(headings[0], /^### (user|assistant|tool)/);
  const summary = render(checkpoint.id, 'summary');
  assert.match(summary, /^### \w+ \(summary\)/m);
  assert.match(summary, /SUMMARY: the parser was fixed/);
});

test('a checkpoint not in the session says so instead of failing', () => {
  assert.match(
    render('cp-gone', 'checkpoint'),
    /^# Checkpoint cp-gone was not found\n\nThis tab showed the record of checkpoint cp-gone/,
  );
  assert.match(
    render('cp-gone', 'replaced'),
    /the replaced messages \(left side of the compare\) of checkpoint cp-gone/,
  );
  assert.equal(parseCheckpointUri(checkpointUri('a/b', 'summary', 'x'))?.id, 'a/b');
});

test('show opens the record in an editor titled "Checkpoint", time, trigger and tokens; showDiff opens replaced ↔ summary', async () => {
  await provider.show(checkpoint.id);
  const editor = window.visibleTextEditors[0];
  assert.equal(editor.document.uri.scheme, CHECKPOINT_SCHEME);
  // The file name ends in .md (Markdown mode); the tab shows the label the editor was opened with.
  assert.equal(editor.document.uri.path, `/${checkpoint.id}/checkpoint.md`);
  const open = host.executed.find((e) => e.id === 'vscode.open')!;
  const title = `Checkpoint ${formatClock(checkpoint.time)} · manual · ${formatTokens(checkpoint.tokensBefore)} → ${formatTokens(checkpoint.tokensAfter)}`;
  assert.equal(
    new URLSearchParams(editor.document.uri.query).get('title'),
    title,
    'a tab whose checkpoint is gone can name it',
  );
  assert.equal(open.args[2], title);
  const tab = window.tabGroups.activeTabGroup.activeTab!;
  assert.equal(tab.label, title);
  assert.doesNotMatch(tab.label, /\.md$/, 'the tab names no file extension');
  assert.equal(editor.document.getText(), render(checkpoint.id, 'checkpoint'));
  await provider.showDiff(checkpoint.id);
  const diff = host.executed.find((e) => e.id === 'vscode.diff')!;
  const [left, right, diffTitle] = diff.args as [Uri, Uri, string];
  assert.deepEqual(parseCheckpointUri(left), { id: checkpoint.id, part: 'replaced' });
  assert.deepEqual(parseCheckpointUri(right), { id: checkpoint.id, part: 'summary' });
  assert.equal(diffTitle, `${title}: replaced ↔ summary`);
  const options = diff.args[3] as { selection?: { start: { line: number; character: number } } };
  const start = options.selection?.start;
  assert.deepEqual([start?.line, start?.character], [0, 0], 'the diff opens at the top');
});

/** A token figure as tabs show it. */
const k = formatTokens;

/** Three steps of one Continue run (committed together: same trigger and time), and a later manual run. */
function continueRun(): CheckpointRecord[] {
  const time = '2026-03-04T23:09:00.000Z';
  return [
    { ...checkpoint, id: 'cp-a', trigger: 'continue', time, tokensBefore: 120_000, tokensAfter: 80_000 },
    { ...checkpoint, id: 'cp-b', trigger: 'continue', time, tokensBefore: 80_000, tokensAfter: 45_000 },
    { ...checkpoint, id: 'cp-c', trigger: 'continue', time, tokensBefore: 45_000, tokensAfter: 30_500 },
    {
      ...checkpoint,
      id: 'cp-d',
      trigger: 'manual',
      time: '2026-03-04T23:40:00.000Z',
      tokensBefore: 31_000,
      tokensAfter: 9_000,
    },
  ];
}

test("a step of a compaction run is titled with the run's figures (before its first step, after its last) and its place", () => {
  const list = continueRun();
  const runOf = checkpointRunLookup({ current: { sessionId: 's1', getCheckpoints: () => list } }, '/nowhere');
  assert.deepEqual(
    runOf('cp-b').map((c) => c.id),
    ['cp-a', 'cp-b', 'cp-c'],
  );
  assert.deepEqual(
    runOf('cp-d', 's1').map((c) => c.id),
    ['cp-d'],
  );
  assert.deepEqual(runOf('cp-gone'), []);
  const clock = formatClock(list[0].time);
  assert.equal(
    checkpointTitle(list[0], runOf('cp-a')),
    `Checkpoint ${clock} · continue · ${k(120_000)} → ${k(30_500)} · step 1 of 3`,
  );
  assert.equal(
    checkpointTitle(list[1], runOf('cp-b')),
    `Checkpoint ${clock} · continue · ${k(120_000)} → ${k(30_500)} · step 2 of 3`,
  );
  assert.equal(
    compareTitle('cp-c', list[2], runOf('cp-c')),
    `Checkpoint ${clock} · continue · ${k(120_000)} → ${k(30_500)} · step 3 of 3: replaced ↔ summary`,
  );
  // A run of one: its own figures, no step.
  assert.equal(
    checkpointTitle(list[3], runOf('cp-d')),
    `Checkpoint ${formatClock(list[3].time)} · manual · ${k(31_000)} → ${k(9_000)}`,
  );
  assert.equal(checkpointTitle(list[3]), checkpointTitle(list[3], runOf('cp-d')));
  // Its last step restored: the run leaves what its last step in force left.
  const restored = list.map((c) => (c.id === 'cp-c' ? { ...c, restored: true } : c));
  assert.equal(
    checkpointTitle(restored[0], restored.slice(0, 3)),
    `Checkpoint ${clock} · continue · ${k(120_000)} → ${k(45_000)} · step 1 of 3`,
  );
  assert.equal(
    compareTitle('cp-x'),
    'Checkpoint cp-x: replaced ↔ summary',
    'a checkpoint not found is named by its id',
  );
});

test("show and showDiff title a run's step with the run's figures", async () => {
  const list = continueRun();
  const shown = { current: { sessionId: 's1', getCheckpoints: () => list } };
  const runProvider = new CheckpointDocumentProvider(
    (id) => list.find((c) => c.id === id),
    () => 's1',
    checkpointRunLookup(shown, '/nowhere'),
  );
  try {
    await runProvider.show('cp-a');
    const clock = formatClock(list[0].time);
    assert.equal(
      window.tabGroups.activeTabGroup.activeTab!.label,
      `Checkpoint ${clock} · continue · ${k(120_000)} → ${k(30_500)} · step 1 of 3`,
    );
    await runProvider.showDiff('cp-c');
    assert.equal(
      window.tabGroups.activeTabGroup.activeTab!.label,
      `Checkpoint ${clock} · continue · ${k(120_000)} → ${k(30_500)} · step 3 of 3: replaced ↔ summary`,
    );
    assert.deepEqual(parseCheckpointUri(window.visibleTextEditors[0].document.uri), {
      id: 'cp-a',
      part: 'checkpoint',
      sessionId: 's1',
    });
  } finally {
    runProvider.dispose();
  }
});

test('checkpoint URIs of earlier versions, with the title as file name, still name their checkpoint', () => {
  const old = Uri.from({
    scheme: CHECKPOINT_SCHEME,
    path: '/cp-3/checkpoint/14.02 auto 11.9k → 3.8k.md',
    query: 'session=s1',
  });
  assert.deepEqual(parseCheckpointUri(old), { id: 'cp-3', part: 'checkpoint', sessionId: 's1' });
  assert.match(
    provider.provideTextDocumentContent(old),
    /the record of checkpoint cp-3 \(“14\.02 auto 11\.9k → 3\.8k”\)/,
  );
  const titled = checkpointUri('cp-3', 'checkpoint', 'Checkpoint 2:02 PM · auto · 12k → 3.8k', 's1');
  assert.deepEqual(parseCheckpointUri(titled), { id: 'cp-3', part: 'checkpoint', sessionId: 's1' });
  assert.match(
    provider.provideTextDocumentContent(titled),
    /the record of checkpoint cp-3 \(“Checkpoint 2:02 PM · auto · 12k → 3\.8k”\)/,
  );
  assert.deepEqual(parseCheckpointUri(checkpointUri('cp-3', 'summary')), { id: 'cp-3', part: 'summary' });
});

test('refresh re-renders the documents that are open, and forgets closed ones', async () => {
  const changed: string[] = [];
  provider.onDidChange((uri) => changed.push(uri.toString()));
  const record = await workspace.openTextDocument(checkpointUri(checkpoint.id, 'checkpoint'));
  await workspace.openTextDocument(checkpointUri(checkpoint.id, 'summary'));
  provider.refresh();
  assert.deepEqual(
    changed.sort(),
    [checkpointUri(checkpoint.id, 'checkpoint').toString(), checkpointUri(checkpoint.id, 'summary').toString()].sort(),
  );
  host.onDidCloseTextDocument.fire(record);
  changed.length = 0;
  provider.refresh();
  assert.deepEqual(changed, [checkpointUri(checkpoint.id, 'summary').toString()]);
  provider.dispose();
  assert.equal(host.editorListenerCount(), 0, 'the close listener is released on dispose');
});

test('headings inside verbatim requests and messages stay text; summary headings nest under Summary; no empty Summary section', () => {
  const summary =
    '## Task state\nparser fixed\n## Requests, verbatim (oldest first)\n- # Waterfront project\n  ## Error Message\n  ```\n  # a shell comment\n  ```\n- plain';
  const doc = renderCheckpoint({ ...checkpoint, summary });
  const headings = doc.split('\n').filter((line) => /^#{1,6}\s/.test(line));
  // The scorecard's section (this compaction has one) adds its heading and no other.
  assert.deepEqual(headings, [
    `# Checkpoint ${checkpoint.id}`,
    '## What this compaction kept',
    '## Summary',
    '### Task state',
    '### Requests, verbatim (oldest first)',
  ]);
  assert.match(doc, /^- \\# Waterfront project$/m);
  assert.match(doc, /^ {2}\\## Error Message$/m);
  assert.match(doc, /^ {2}# a shell comment$/m, 'fenced code is left as written');
  assert.doesNotMatch(renderCheckpoint({ ...checkpoint, summary: '' }), /## Summary/);
  const items = renderItems([
    {
      id: 'u1',
      kind: 'raw',
      covers: ['u1'],
      message: { role: 'user', content: '# Waterfront project\n## Error Message\ntext' },
    },
  ]);
  assert.deepEqual(
    items.split('\n').filter((line) => /^#{1,6}\s/.test(line)),
    ['### user · u1'],
  );
  assert.match(items, /^\\# Waterfront project ## Error Message text$/m, 'the message is one line, its mark escaped');
});

test("the summary side of the replaced ↔ summary diff shows the summary's headings as headings, nested under its label", () => {
  const summary = '## Task state\nparser fixed\n## Requests, verbatim (oldest first)\n- # Waterfront project\n- plain';
  const side = renderItems([
    { id: 's1', kind: 'summary', covers: ['u1', 'a1'], message: { role: 'user', content: summary } },
  ]);
  assert.doesNotMatch(side, /\\## Task state/, 'no escaped heading shows as literal text');
  const headings = side.split('\n').filter((line) => /^#{1,6}\s/.test(line));
  assert.deepEqual(headings, [
    '### user (summary) · 2 messages',
    '##### Task state',
    '##### Requests, verbatim (oldest first)',
  ]);
  // The user's own words quoted in the summary still cannot become headings.
  assert.match(side, /^- \\# Waterfront project$/m);
});

/**
 * The headings an outline would list (CommonMark rules, enough for these documents): `#` lines
 * (also as a list item's first line) and setext headings (a line of `=` or `-` under a text line),
 * outside fenced code. Escaped marks (`\#`, `\---`) are text.
 */
function outline(doc: string): string[] {
  const found: string[] = [];
  let fence: string | undefined;
  let previous = '';
  for (const line of doc.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker)
        fence = undefined;
    } else if (marker) {
      fence = marker;
    } else if (/^\s{0,3}(?:[-*+] \s{0,3})?#{1,6}(\s|$)/.test(line)) {
      found.push(line.trim());
    } else if (/^\s*(=+|-+)\s*$/.test(line) && previous.trim() !== '' && !/^\s*(`{3,}|~{3,})/.test(previous)) {
      found.push(`setext: ${previous.trim()}`);
    }
    previous = line;
  }
  return found;
}

test('a quoted line of dashes or equals signs under a text line never becomes a heading of the checkpoint document', () => {
  const summary = [
    '## Task state',
    'the build fails',
    '## Requests, verbatim (oldest first)',
    '- Fix the build. The log says:',
    '  To help make Turbopack better, report this error',
    '  -----',
    '  Title of a note',
    '  ====',
    '- plain',
  ].join('\n');
  const doc = renderCheckpoint({ ...checkpoint, summary, focus: 'the build\n# and its log' });
  assert.deepEqual(outline(doc), [
    `# Checkpoint ${checkpoint.id}`,
    '## What this compaction kept',
    '## Summary',
    '### Task state',
    '### Requests, verbatim (oldest first)',
  ]);
  assert.match(doc, /^ {2}\\-----$/m, 'the dashes show as written');
  assert.match(doc, /^ {2}\\====$/m);
  assert.match(doc, /^\| Focus \| the build # and its log \|$/m, 'a line break in a value stays inside its cell');
  // The model's own summary text: an underline would make a heading beside "Summary".
  const model = renderCheckpoint({ ...checkpoint, summary: 'Progress\n---\n\n---\nnext steps' });
  assert.deepEqual(outline(model), [`# Checkpoint ${checkpoint.id}`, '## What this compaction kept', '## Summary']);
  assert.match(model, /^\n?---$/m, 'a dash line after a blank line (a rule, not a heading) is left as it is');
});

test('messages in the replaced span are one line each: white space collapsed, underlines and fences never make structure', () => {
  const items = renderItems([
    {
      id: 'u1',
      kind: 'raw',
      covers: ['u1'],
      message: { role: 'user', content: 'Error report\n=============\nstack:\n```\nline\n---\n```\nEnd\n-' },
    },
    {
      id: 'a1',
      kind: 'raw',
      covers: ['a1'],
      message: { role: 'assistant', content: 'Here is the start:\n````js\nconst a = 1;\n```\nstill code' },
    },
    { id: 't1', kind: 'raw', covers: ['t1'], message: { role: 'tool', tool_call_id: 'c1', content: '---\ndone' } },
  ]);
  assert.deepEqual(outline(items), ['### user · u1', '### assistant · a1', '### tool · t1']);
  assert.match(items, /^Error report ============= stack: ``` line --- ``` End -$/m);
  assert.match(items, /^Here is the start: ````js const a = 1; ``` still code$/m);
  assert.match(items, /^--- done$/m, 'a line of dashes joined to its text is no underline');
});

test('the compare documents of a long step are small and stable: one line a message, each cut with the rest counted', () => {
  // An 82-message step: a request, then 27 rounds of a call, a long tool result and a short note.
  const long = Array.from({ length: 400 }, (_, i) => `src/module${i}.ts:${i}: warning: unused variable 'x${i}'`).join(
    '\n',
  );
  const step: ContextItem[] = [
    { id: 'u0', kind: 'raw', covers: ['u0'], message: { role: 'user', content: 'Fix every warning.' } },
  ];
  for (let i = 1; step.length < 82; i++) {
    const call = {
      id: `c${i}`,
      type: 'function' as const,
      function: { name: 'bash', arguments: `{"command":"npm run lint -- part${i}"}` },
    };
    step.push(
      {
        id: `a${i}`,
        kind: 'raw',
        covers: [`a${i}`],
        message: { role: 'assistant', content: null, tool_calls: [call] },
      },
      { id: `t${i}`, kind: 'raw', covers: [`t${i}`], message: { role: 'tool', tool_call_id: `c${i}`, content: long } },
      {
        id: `n${i}`,
        kind: 'raw',
        covers: [`n${i}`],
        message: { role: 'assistant', content: `Part ${i} has warnings.` },
      },
    );
  }
  const doc = renderItems(step.slice(0, 82));
  const lines = doc.split('\n');
  assert.equal(renderItems(step.slice(0, 82)), doc, 'the same items give the same text');
  // A heading, one line of text or of a call, and blank lines between: 4 lines a message at most.
  assert.ok(lines.length <= 82 * 4, `${lines.length} lines`);
  const widest = Math.max(...lines.map((l) => l.length));
  assert.ok(widest <= COMPARE_MESSAGE_CHARS + 40, `the widest line has ${widest} characters`);
  const result = lines.find((l) => l.startsWith('src/module0.ts:0:'))!;
  assert.match(
    result,
    new RegExp(` … \\(${long.replace(/\s+/g, ' ').length - COMPARE_MESSAGE_CHARS} more characters\\)$`),
  );
  assert.ok(lines.includes('→ `bash` {"command":"npm run lint -- part1"}'), 'a tool call is a line of its own');
});

test('the compare of a 673-message span shares only marker lines with its summary, so only its short head is diffed both-sided', () => {
  // A long step as a Cline recording holds it: requests, calls, long results, notes; one request the
  // summary keeps verbatim on a line of its own.
  const kept = 'Deploy the service to the dev project only.';
  const replaced: ContextItem[] = [];
  for (let i = 0; replaced.length < 673; i++) {
    const call = {
      id: `c${i}`,
      type: 'function' as const,
      function: { name: 'read_file', arguments: `{"path":"f${i}"}` },
    };
    replaced.push(
      {
        id: `u${i}`,
        kind: 'raw',
        covers: [`u${i}`],
        message: { role: 'user', content: i === 3 ? kept : `Step ${i}.` },
      },
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
        message: { role: 'tool', tool_call_id: `c${i}`, content: 'x\n'.repeat(900) },
      },
    );
  }
  const summaryText = ['## Requests', '', kept, '', '## Files read', '', ...replaced.map((_, i) => `- f${i}`)].join(
    '\n',
  );
  const record: CheckpointRecord = {
    ...checkpoint,
    id: 'cp-long',
    replaced: replaced.slice(0, 673),
    inserted: [{ id: 's', kind: 'summary', covers: ['u0'], message: { role: 'user', content: summaryText } }],
  };
  const longProvider = new CheckpointDocumentProvider((id) => (id === record.id ? record : undefined));
  const left = longProvider.provideTextDocumentContent(checkpointUri(record.id, 'replaced')).split('\n');
  const right = longProvider.provideTextDocumentContent(checkpointUri(record.id, 'summary')).split('\n');
  longProvider.dispose();
  // The diff editor pairs lines compared trimmed: the header (first on both sides), the end of the
  // head and the divider (last on the left, second and after the head on the right) must be the only
  // lines both sides hold. Then the diff is the head (both sides, short), the rest of the span removed
  // and the rest of the summary added, and no long block needs the character-by-character pass.
  const leftSet = new Set(left.map((l) => l.trim()));
  const shared = [...new Set(right.map((l) => l.trim()))].filter((l) => leftSet.has(l));
  assert.deepEqual(shared, [COMPARE_HEADER, COMPARE_DIVIDER, COMPARE_HEAD_END]);
  assert.deepEqual([left[0], left.at(-1)], [COMPARE_HEADER, COMPARE_DIVIDER]);
  assert.deepEqual(right.slice(0, 2), [COMPARE_HEADER, COMPARE_DIVIDER]);
  const anchors = pairedLines(left, right);
  assert.deepEqual(
    anchors.map(([l, r]) => [left[l], right[r]]),
    [COMPARE_HEADER, COMPARE_HEAD_END, COMPARE_DIVIDER].map((line) => [line, line]),
    'the header, the end of the head and the divider pair',
  );
  const [, head, divider] = anchors;
  for (const [side, from, to] of [
    [left, 1, head[0]],
    [right, 1, head[1]],
  ] as const)
    assert.ok(side.slice(from, to).join('').length <= COMPARE_HEAD_CHARS + 200, 'the head is short on both sides');
  assert.equal(divider[1], head[1] + 1, 'the rest of the replaced messages has nothing beside it');
  assert.equal(divider[0], left.length - 1, 'the rest of the summary has nothing beside it');
  assert.equal(left[1], `### user · u0`, 'the left side opens on the first replaced message');
  assert.equal(left.filter((l) => l.startsWith('### ')).length, 673, 'every replaced message is shown');
  assert.ok(right.includes(kept), 'the summary side shows the summary as written');
  assert.ok(left.includes(`${kept}${ALSO_IN_SUMMARY}`), 'a line the summary keeps verbatim is marked on the left');
});

/**
 * Filler lines a side-by-side diff puts above line 1 of each pane of `left` ↔ `right`, for a layout
 * whose lines the two sides share (compared trimmed) pair in order: the other pane's lines before the
 * first shared line, less this pane's own.
 */
function fillerAboveFirstLine(left: readonly string[], right: readonly string[]): { left: number; right: number } {
  const rightSet = new Set(right.map((l) => l.trim()));
  const l = left.findIndex((line) => rightSet.has(line.trim()));
  const r = right.findIndex((line) => line.trim() === left[l].trim());
  return { left: Math.max(0, r - l), right: Math.max(0, l - r) };
}

test('the compare opens at the start of the replaced messages: line 1 of both panes is the top, with no filler above it', () => {
  // vscode.diff reveals its selection (line 1) on the right pane, centred. Filler above the right
  // pane's line 1 would put the replaced messages' start above the view as soon as the diff is known
  // before the reveal (a second open, a tab restored with the window).
  for (const replaced of [
    '### user · u1\nFix the parser.',
    Array.from({ length: 400 }, (_, i) => `line ${i}`).join('\n'),
  ])
    for (const summary of ['short', Array.from({ length: 300 }, (_, i) => `note ${i}`).join('\n')]) {
      const documents = layOutCompare(replaced, summary);
      const left = documents.replaced.split('\n');
      const right = documents.summary.split('\n');
      assert.deepEqual(fillerAboveFirstLine(left, right), { left: 0, right: 0 });
      assert.equal(left[1], replaced.split('\n')[0], 'the replaced messages start right below the first line');
    }
});

/**
 * The lines of `left` and `right` the diff pairs, as index pairs in order: a longest common
 * subsequence of the lines both sides hold (compared trimmed, as the diff editor does), which in these
 * layouts are only the few marker lines.
 */
function pairedLines(left: readonly string[], right: readonly string[]): Array<[number, number]> {
  const rightSet = new Set(right.map((l) => l.trim()));
  const leftSet = new Set(left.map((l) => l.trim()));
  const l = left.flatMap((line, i) => (rightSet.has(line.trim()) ? [i] : []));
  const r = right.flatMap((line, i) => (leftSet.has(line.trim()) ? [i] : []));
  const same = (i: number, j: number) => left[l[i]].trim() === right[r[j]].trim();
  const best = Array.from({ length: l.length + 1 }, () => new Array<number>(r.length + 1).fill(0));
  for (let i = l.length - 1; i >= 0; i--)
    for (let j = r.length - 1; j >= 0; j--)
      best[i][j] = same(i, j) ? best[i + 1][j + 1] + 1 : Math.max(best[i + 1][j], best[i][j + 1]);
  const pairs: Array<[number, number]> = [];
  for (let i = 0, j = 0; i < l.length && j < r.length;)
    if (same(i, j) && best[i][j] === best[i + 1][j + 1] + 1) pairs.push([l[i++], r[j++]]);
    else if (best[i + 1][j] >= best[i][j + 1]) i++;
    else j++;
  return pairs;
}

/**
 * The row a side-by-side diff of `left` ↔ `right` shows line `line` of the right pane on (0 the top),
 * its lines paired as {@link pairedLines} pairs them: a block between paired lines takes as many rows
 * as its longer side, with the filler of the shorter side below its lines.
 */
function rightPaneRow(left: readonly string[], right: readonly string[], line: number): number {
  let row = 0;
  let l = 0;
  let r = 0;
  for (const [pl, pr] of [...pairedLines(left, right), [left.length, right.length] as [number, number]]) {
    if (line < pr) return row + (line - r);
    row += Math.max(pl - l, pr - r);
    if (line === pr) return row;
    row += 1;
    l = pl + 1;
    r = pr + 1;
  }
  return row;
}

test("the compare opens on the summary's start beside the first replaced messages, the filler below both", () => {
  // A summary side whose start stood below filler as tall as the replaced messages looked empty at open.
  const summary = renderItems([
    {
      id: 's1',
      kind: 'summary',
      covers: ['u1'],
      message: { role: 'user', content: '## Task state\nparser fixed\n## Files read\n- a.ts' },
    },
  ]);
  for (const count of [1, 30, 700]) {
    const replaced = Array.from({ length: count }, (_, i) => `### user · u${i}\nStep ${i}, ${'x'.repeat(i % 90)}`);
    const documents = layOutCompare(replaced.join('\n'), summary);
    const left = documents.replaced.split('\n');
    const right = documents.summary.split('\n');
    const heading = right.findIndex((line) => /^#{1,6}\s/.test(line));
    assert.ok(heading >= 0, documents.summary);
    const row = rightPaneRow(left, right, heading);
    assert.ok(row < 20, `${count} replaced messages: the summary's first heading shows on row ${row}`);
    assert.equal(left[1], '### user · u0', 'the left pane opens on the first replaced message');
    assert.equal(rightPaneRow(left, right, right.indexOf('##### Task state')) < 20, true);
  }
});

test('the compare says on its first line that long messages are cut, and to how many characters', () => {
  const long = 'word '.repeat(COMPARE_MESSAGE_CHARS);
  const items: ContextItem[] = [
    { id: 'm1', kind: 'raw', covers: ['m1'], message: { role: 'tool', tool_call_id: 'c1', content: long } },
  ];
  const { replaced, summary } = layOutCompare(renderItems(items), 'The summary.');
  assert.match(replaced, /more characters\)/, 'the message is cut');
  for (const side of [replaced, summary]) {
    const first = side.split('\n')[0];
    assert.match(first, new RegExp(`cut to their first ${COMPARE_MESSAGE_CHARS} characters`));
    assert.match(first, /no word-for-word comparison/);
  }
});

test('a message collapsed and cut a piece at a time reads as collapsed whole, with the same count of characters left', () => {
  const whole = (text: string) => {
    const flat = text.replace(/\s+/g, ' ').trim();
    if (flat.length <= COMPARE_MESSAGE_CHARS) return flat;
    let cut = COMPARE_MESSAGE_CHARS;
    const code = flat.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut--;
    return `${flat.slice(0, cut)} … (${flat.length - cut} more characters)`;
  };
  const pieces = ['a', 'bc ', '  ', '\n\t', '\u00a0', '\u2028', '\ufeff', '😀', 'x'.repeat(150), ' '.repeat(900)];
  let seed = 7;
  const next = () => (seed = (seed * 48271) % 2147483647);
  for (let n = 0; n < 400; n++) {
    let text = '';
    const parts = next() % 120;
    for (let k = 0; k < parts; k++) text += pieces[next() % pieces.length];
    assert.equal(oneLine(text), whole(text), JSON.stringify(text.slice(0, 80)));
  }
  // A cut that would fall inside a pair of surrogates, and a message of one long run of spaces.
  for (const text of [`${'x'.repeat(COMPARE_MESSAGE_CHARS - 1)}😀 tail`, ` ${' '.repeat(10_000)}a b`, ''])
    assert.equal(oneLine(text), whole(text));
});

test('the checkpoint scheme is a read-only file system whose files hold the documents, re-read after a refresh', async () => {
  // The workbench persists across a window reload only editors whose scheme a file system serves.
  const uri = checkpointUri(checkpoint.id, 'replaced', 'a title', 'session-1');
  const expected = render(checkpoint.id, 'replaced');
  const stat = provider.stat(uri);
  assert.equal(stat.type, 1, 'a checkpoint URI is a file');
  assert.equal(stat.size, Buffer.byteLength(expected, 'utf8'));
  assert.equal(stat.permissions, 1, 'read-only');
  assert.equal(Buffer.from(provider.readFile(uri)).toString('utf8'), expected);
  assert.throws(() => provider.writeFile(uri), /no permissions/);
  const changes: string[] = [];
  provider.onDidChangeFile((events) => changes.push(...events.map((e) => e.uri.toString())));
  provider.refresh();
  assert.ok(provider.stat(uri).mtime > stat.mtime, 'a refresh moves the modification time');
  assert.ok(changes.includes(uri.toString()), 'a refresh reports the open file changed');
});
