/** Placement and grouping of compaction dividers (with the mark of a summary edited by hand), and the session list's records. */
import '../support/vscode-fake/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compactionHeadline } from '../../src/webview/shared/compaction-headline';
import type { ContextItem, Entry, RetentionScorecard } from '../../src/compaction/types';
import { latestRunPeak, placeCompactions } from '../../src/views/sidebar/compaction-dividers';
import { SessionList } from '../../src/views/session-list';
import type { CheckpointRecord } from '../../src/service/records';
import {
  compactionDetailOf,
  DIVIDER_SUMMARY_CHARS,
  shownSummary,
  toCheckpointView,
} from '../../src/views/sidebar/view-mappers';
import { formatInteger } from '../../src/format/display';
import { renderCheckpoint } from '../../src/views/documents/checkpoint-documents';

function entry(id: string, minute: number | undefined): Entry {
  return {
    id,
    message: { role: 'user', content: id },
    meta: minute === undefined ? undefined : { timestamp: `2026-01-01T10:${String(minute).padStart(2, '0')}:00.000Z` },
  };
}

function item(kind: ContextItem['kind'], covers: string[]): ContextItem {
  return { id: `i-${covers.join('-')}-${kind}`, kind, message: { role: 'user', content: 'x' }, covers };
}

function checkpoint(
  id: string,
  minute: number,
  replacedIds: string[],
  inserted: ContextItem[],
  extra: Partial<CheckpointRecord> = {},
): CheckpointRecord {
  return {
    id,
    time: `2026-01-01T10:${String(minute).padStart(2, '0')}:30.000Z`,
    trigger: 'auto',
    strategy: 'summary',
    replacedIds,
    replaced: [],
    inserted,
    summary: `summary of ${id}`,
    tokensBefore: 1000,
    tokensAfter: 400,
    ...extra,
  };
}

const order = ['e0', 'e1', 'e2', 'e3', 'e4', 'e5'];
const entries = new Map(order.map((id, i) => [id, entry(id, i)]));
const lines = new Map(order.map((id) => [id, `line-${id}`]));

test('a divider stands after the newest entry older than the compaction, not right after what it replaced', () => {
  const placed = placeCompactions(
    [checkpoint('cp1', 3, ['e0', 'e1'], [item('summary', ['e0', 'e1'])])],
    order,
    entries,
    lines,
    undefined,
  );
  assert.equal(placed.compactions.length, 1);
  assert.equal(placed.compactions[0].afterId, 'line-e3');
  assert.deepEqual(
    [...placed.compactedBy.entries()],
    [
      ['e0', 'cp1'],
      ['e1', 'cp1'],
    ],
  );
});

test('without times, a divider stands after the last entry it replaced', () => {
  const untimed = new Map(order.map((id) => [id, entry(id, undefined)]));
  const placed = placeCompactions(
    [checkpoint('cp1', 3, ['e0', 'e2'], [item('summary', ['e0', 'e2'])])],
    order,
    untimed,
    lines,
    undefined,
  );
  assert.equal(placed.compactions[0].afterId, 'line-e2');
});

test('checkpoints of one run share a divider whose figures add up; a later run gets its own', () => {
  const run = [
    checkpoint('cp1', 3, ['e1'], [item('collapsed', ['e1'])], {
      strategy: 'collapse',
      tokensBefore: 1200,
      tokensAfter: 900,
    }),
    checkpoint('cp2', 3, ['e0', 'e2'], [item('summary', ['e0', 'e2'])], { tokensBefore: 900, tokensAfter: 300 }),
    checkpoint('cp3', 5, ['e3'], [item('collapsed', ['e3'])], { trigger: 'manual' }),
  ];
  const placed = placeCompactions(run, order, entries, lines, { compactAt: { tokens: 1100, fraction: 0.8 } } as never);
  assert.equal(placed.compactions.length, 2);
  const [first, second] = placed.compactions;
  assert.deepEqual(first.checkpointIds, ['cp1', 'cp2']);
  assert.equal(first.tokensBefore, 1200);
  assert.equal(first.tokensAfter, 300);
  assert.equal(first.collapsed, 1);
  assert.equal(first.summaries, 1);
  assert.equal(first.thresholdTokens, 1100);
  assert.equal(second.trigger, 'manual');
  assert.equal(second.thresholdTokens, undefined);
  assert.equal(second.afterId, 'line-e5');
});

test('the trigger is named only where it fired: not with automatic compaction off, not for another cause', () => {
  const run = [
    checkpoint('cp1', 1, ['e1'], [item('collapsed', ['e1'])], { strategy: 'collapse', tokensBefore: 1200 }),
    checkpoint('cp9', 5, ['e3'], [item('collapsed', ['e3'])], {
      cause: 'the provider refused the request as too long for its context window',
    }),
  ];
  const budget = { compactAt: { tokens: 1100, fraction: 0.8 } } as never;
  const off = placeCompactions(run, order, entries, lines, budget, false);
  assert.ok(off.compactions.every((c) => c.thresholdTokens === undefined));
  assert.doesNotMatch(compactionHeadline(off.compactions[0]), /trigger/);
  const on = placeCompactions(run, order, entries, lines, budget, true);
  assert.equal(on.compactions[0].thresholdTokens, 1100);
  assert.match(compactionHeadline(on.compactions[0]), /passed the 1\.1k-token trigger/);
  const caused = on.compactions.find((c) => c.cause);
  assert.equal(caused?.thresholdTokens, undefined);
  assert.match(
    compactionHeadline(caused!),
    /^Compacted automatically because the provider refused the request as too long for its context window: the context went from/,
  );
});

test('each replaced entry says what holds it now: collapsed, clipped, or summarized (the newest checkpoint wins)', () => {
  const run = [
    checkpoint('cp1', 1, ['e1'], [item('collapsed', ['e1'])], { strategy: 'collapse' }),
    checkpoint('cp2', 2, ['e2'], [item('clipped', ['e2'])], { strategy: 'clip', trigger: 'manual' }),
    checkpoint('cp3', 4, ['e0', 'e1'], [item('summary', ['e0', 'e1'])]),
  ];
  const placed = placeCompactions(run, order, entries, lines, undefined);
  assert.deepEqual(Object.fromEntries(placed.compactedAs), { e0: 'summarized', e1: 'summarized', e2: 'clipped' });
  const collapsedOnly = placeCompactions(run.slice(0, 1), order, entries, lines, undefined);
  assert.deepEqual(Object.fromEntries(collapsedOnly.compactedAs), { e1: 'collapsed' });
  assert.equal(placeCompactions([{ ...run[0], restored: true }], order, entries, lines, undefined).compactedAs.size, 0);
});

test('a restored checkpoint keeps its divider (marked) but dims nothing', () => {
  const placed = placeCompactions(
    [checkpoint('cp1', 3, ['e0'], [item('summary', ['e0'])], { restored: true })],
    order,
    entries,
    lines,
    undefined,
  );
  assert.equal(placed.compactions[0].restored, true);
  assert.equal(placed.compactedBy.size, 0);
});

test('the session list keeps imports beside working sessions, renames and removes', async () => {
  const data = new Map<string, unknown>();
  const list = new SessionList({
    get: <T>(key: string) => data.get(key) as T | undefined,
    update: async (key, value) => void data.set(key, value),
  });
  const working = await list.ensureListed('s1', new Date('2026-01-01T10:00:00Z'));
  assert.equal(working.kind, 'working');
  await list.upsert({ id: 's2', label: 'session.json (codex)', kind: 'imported', updated: '2026-01-01T11:00:00Z' });
  await list.setCurrent('s2');
  assert.deepEqual(
    list.all().map((s) => s.id),
    ['s2', 's1'],
  );
  await list.rename('s1', 'Refactor');
  assert.equal(list.get('s1')?.label, 'Refactor');
  await list.remove('s2');
  assert.equal(list.currentId, undefined);
  assert.deepEqual(
    list.all().map((s) => s.id),
    ['s1'],
  );
});

test('files re-attached after a summary are listed on its divider and are not counted as summaries', () => {
  const attached: ContextItem = {
    id: 'cp1~f1',
    kind: 'summary',
    message: { role: 'user', content: '[File re-attached …]' },
    covers: [],
    checkpointId: 'cp1',
    attachedFile: 'src/app.ts',
  };
  const placed = placeCompactions(
    [
      checkpoint('cp1', 3, ['e0', 'e1'], [item('summary', ['e0', 'e1']), attached], {
        attachedFiles: [{ path: 'src/app.ts', tokens: 120 }],
      }),
    ],
    order,
    entries,
    lines,
    undefined,
  );
  const [view] = placed.compactions;
  assert.equal(view.summaries, 1);
  assert.deepEqual(view.attachedFiles, [{ path: 'src/app.ts', tokens: 120 }]);
});

test('the peak of the latest run is the largest "before" over its checkpoints, not the last one\'s', () => {
  const at = (second: number) => `2026-01-01T10:05:${String(second).padStart(2, '0')}.000Z`;
  const run = [
    // An earlier run, over a minute before: not part of the latest one.
    checkpoint('old', 1, ['e0'], [], { tokensBefore: 50_000, tokensAfter: 20_000 }),
    checkpoint('collapse', 5, ['e1'], [], {
      time: at(0),
      strategy: 'collapse',
      tokensBefore: 12_000,
      tokensAfter: 9_000,
    }),
    checkpoint('summary', 5, ['e2'], [], { time: at(0), tokensBefore: 9_000, tokensAfter: 4_000 }),
    checkpoint('reattach', 5, ['e3'], [], { time: at(0), tokensBefore: 4_000, tokensAfter: 4_600 }),
  ];
  assert.deepEqual(latestRunPeak(run), { tokens: 12_000, time: at(0) });
  // Restored and imported checkpoints are no peak; a restored one also ends the run.
  assert.deepEqual(
    latestRunPeak([...run, checkpoint('undone', 6, ['e4'], [], { restored: true, tokensBefore: 99_000 })]),
    { tokens: 12_000, time: at(0) },
  );
  assert.equal(latestRunPeak([checkpoint('imp', 1, ['e0'], [], { trigger: 'import' })]), undefined);
  // Another trigger is another run.
  const manualAfter = [
    ...run,
    checkpoint('manual', 5, ['e4'], [], { time: at(30), trigger: 'manual', tokensBefore: 4_600, tokensAfter: 3_000 }),
  ];
  assert.deepEqual(latestRunPeak(manualAfter), { tokens: 4_600, time: at(30) });
  assert.equal(latestRunPeak([]), undefined);
});

test("a divider carries its checkpoints' scorecards as one: a line for the divider, details with the names left out", () => {
  const card = (changed: number, named: number, missing: string[]): RetentionScorecard => ({
    requests: { total: 1, whole: 1, shortened: 0, leftOut: 0 },
    filesChanged: { total: changed, named },
    filesRead: { total: 0, named: 0 },
    errors: { open: 0, openNamed: 0, resolved: 0, shownOpen: 0 },
    neverFailedShownFailing: 0,
    identifiers: { total: 0, kept: 0 },
    missing: { requests: [], filesChanged: missing, openErrors: [], shownOpen: [], identifiers: [] },
  });
  const placed = placeCompactions(
    [
      checkpoint('cp1', 3, ['e0'], [item('summary', ['e0'])], { retention: card(2, 1, ['src/a.ts']) }),
      checkpoint('cp2', 3, ['e1'], [item('summary', ['e1'])], { retention: card(1, 0, ['src/b.ts']) }),
      // Saved before scorecards existed: no line.
      checkpoint('cp3', 5, ['e4'], [item('summary', ['e4'])]),
    ],
    order,
    entries,
    lines,
    undefined,
  );
  assert.equal(placed.compactions.length, 2);
  const [run, old] = placed.compactions;
  assert.deepEqual(run.checkpointIds, ['cp1', 'cp2']);
  assert.equal(run.retention?.line, 'kept: requests 2/2 whole, files changed 1/3 named');
  assert.ok(run.retention?.details.includes('Files changed not named: src/a.ts; src/b.ts'));
  assert.equal(old.retention, undefined);
});

test("a step whose summary a later step of the same run replaced is not counted twice in the divider's figures", () => {
  const card = (total: number, whole: number, leftOut: string[]): RetentionScorecard => ({
    requests: { total, whole, shortened: 0, leftOut: total - whole },
    filesChanged: { total: 1, named: 1 },
    filesRead: { total: 0, named: 0 },
    errors: { open: 0, openNamed: 0, resolved: 0, shownOpen: 0 },
    neverFailedShownFailing: 0,
    identifiers: { total: 0, kept: 0 },
    missing: {
      requests: leftOut.map((r) => `left out: ${r}`),
      filesChanged: [],
      openErrors: [],
      shownOpen: [],
      identifiers: [],
    },
  });
  const placed = placeCompactions(
    [
      // Step 1 keeps 2 of 3 requests; step 2 replaces step 1's summary and the next message, and keeps
      // step 1's 2 and its own 1.
      checkpoint('cp1', 3, ['e0', 'e1'], [item('summary', ['e0', 'e1'])], { retention: card(3, 2, ['old one']) }),
      checkpoint('cp2', 3, ['e0', 'e1', 'e2'], [item('summary', ['e0', 'e1', 'e2'])], { retention: card(3, 3, []) }),
    ],
    order,
    entries,
    lines,
    undefined,
  );
  const [run] = placed.compactions;
  assert.deepEqual(run.checkpointIds, ['cp1', 'cp2']);
  assert.equal(run.retention?.line, 'kept: requests 3/4 whole, 1 left out, files changed 2/2 named');
  assert.ok(run.retention?.details.includes('Requests not kept whole: left out: old one'));
});

test("automatic compactions a second apart are separate runs: separate dividers, and the peak is the latest one's", () => {
  const at = (ms: number) => new Date(Date.parse('2026-01-01T10:05:00.000Z') + ms).toISOString();
  // Four automatic runs within 1.4 s, each one checkpoint (one commit, one time).
  const runs = [
    checkpoint('a1', 5, ['e0'], [item('summary', ['e0'])], { time: at(0), tokensBefore: 10_357, tokensAfter: 7_786 }),
    checkpoint('a2', 5, ['e1'], [item('summary', ['e1'])], { time: at(400), tokensBefore: 10_950, tokensAfter: 9_100 }),
    checkpoint('a3', 5, ['e2'], [item('summary', ['e2'])], { time: at(900), tokensBefore: 10_698, tokensAfter: 9_340 }),
    checkpoint('a4', 5, ['e3'], [item('summary', ['e3'])], {
      time: at(1_400),
      tokensBefore: 9_800,
      tokensAfter: 9_285,
    }),
  ];
  const placed = placeCompactions(runs, order, entries, lines, undefined);
  assert.deepEqual(
    placed.compactions.map((c) => [c.checkpointIds, c.tokensBefore, c.tokensAfter]),
    [
      [['a1'], 10_357, 7_786],
      [['a2'], 10_950, 9_100],
      [['a3'], 10_698, 9_340],
      [['a4'], 9_800, 9_285],
    ],
  );
  assert.deepEqual(latestRunPeak(runs), { tokens: 9_800, time: at(1_400) });
});

test('the steps of one run share its divider even where a later step replaced earlier entries; figures from first to last', () => {
  const time = '2026-01-01T10:05:00.000Z';
  // A manual compaction of an import: a summary of the recent span, then earlier summaries summarised
  // again (they stand before it in the transcript). One commit: one time.
  const run = [
    checkpoint('m1', 5, ['e3', 'e4'], [item('summary', ['e3', 'e4'])], {
      time,
      trigger: 'manual',
      tokensBefore: 102_000,
      tokensAfter: 17_000,
    }),
    checkpoint('m2', 5, ['e0', 'e1'], [item('summary', ['e0', 'e1'])], {
      time,
      trigger: 'manual',
      tokensBefore: 17_000,
      tokensAfter: 16_000,
    }),
  ];
  const untimed = new Map(order.map((id) => [id, entry(id, undefined)]));
  const placed = placeCompactions(run, order, untimed, lines, undefined);
  assert.equal(placed.compactions.length, 1);
  const [view] = placed.compactions;
  assert.deepEqual(view.checkpointIds, ['m1', 'm2']);
  assert.equal(view.tokensBefore, 102_000);
  assert.equal(view.tokensAfter, 16_000);
  assert.equal(view.summaries, 2);
  assert.equal(view.afterId, 'line-e4');
});

test('recorded compactions of an import, applied at one time, stay separate where they stand apart', () => {
  const time = '2026-01-01T10:05:00.000Z';
  const imported = [
    checkpoint('i1', 5, ['e0'], [item('summary', ['e0'])], { time, trigger: 'import' }),
    checkpoint('i2', 5, ['e3'], [item('summary', ['e3'])], { time, trigger: 'import' }),
  ];
  const untimed = new Map(order.map((id) => [id, entry(id, undefined)]));
  assert.equal(placeCompactions(imported, order, untimed, lines, undefined).compactions.length, 2);
});

test('a summary edited by hand in the preview marks its divider, its history row and its document', () => {
  const edited = checkpoint('cp1', 3, ['e0', 'e1'], [item('summary', ['e0', 'e1'])], { editedByHand: true });
  const plain = checkpoint('cp2', 5, ['e2'], [item('summary', ['e2'])]);
  const placed = placeCompactions([edited, plain], order, entries, lines, undefined);
  assert.deepEqual(
    placed.compactions.map((c) => c.editedByHand === true),
    [true, false],
  );
  assert.equal(toCheckpointView(edited).editedByHand, true);
  assert.equal(toCheckpointView(plain).editedByHand, undefined);
  assert.match(renderCheckpoint(edited), /Summary text\s*\|?\s*edited by hand before applying/);
  assert.doesNotMatch(renderCheckpoint(plain), /edited by hand/);
});

test('a run whose summaries were written newest first shows them oldest first, as in the conversation', () => {
  // One run (same time): the newer span's summary was written first.
  const newer = checkpoint('cpB', 5, ['e2', 'e3'], [item('summary', ['e2', 'e3'])], {
    summary: 'summary of the newer part',
  });
  const older = checkpoint('cpA', 5, ['e0', 'e1'], [item('summary', ['e0', 'e1'])], {
    summary: 'summary of the older part',
  });
  const records = [newer, older];
  const placed = placeCompactions(records, order, entries, lines, undefined);
  assert.equal(placed.compactions.length, 1, 'one divider for the run');
  const detail = compactionDetailOf(placed.compactions[0], records, entries, new Map(), 10);
  assert.ok(
    detail.summary.indexOf('summary of the older part') < detail.summary.indexOf('summary of the newer part'),
    detail.summary,
  );
  assert.deepEqual(
    detail.replaced.map((r) => r.preview),
    ['e0', 'e1', 'e2', 'e3'],
  );
});

/** The shown part and the note of a cut summary, split where the note starts. */
function cutParts(shown: string): { body: string; note: string } {
  const at = shown.lastIndexOf('\n\n[… ');
  assert.ok(at > 0, 'a cut summary ends with a note');
  return { body: shown.slice(0, at), note: shown.slice(at + 2) };
}

/** The note a cut summary ends with, counting what the summary holds after `body` (white space at the cut aside). */
function expectedNote(text: string, body: string): string {
  const left = text.slice(body.length).trimStart().length;
  return `[… ${formatInteger(left)} more characters of this summary are not shown here: Open shows the whole checkpoint.]`;
}

test('a summary longer than a divider shows is cut at a line and says how much is left and where', () => {
  // Each line ends with a space: the cut drops the white space there and counts from the next line.
  const line = (i: number) => `- line ${i}: ${'the settlement flow was checked '.repeat(3)}`;
  const long = Array.from({ length: 1200 }, (_, i) => line(i)).join('\n');
  assert.ok(long.length > DIVIDER_SUMMARY_CHARS);
  const shown = shownSummary(long);
  const { body, note } = cutParts(shown);
  assert.ok(long.startsWith(body), 'the shown part is the summary as written');
  assert.ok(body.length <= DIVIDER_SUMMARY_CHARS);
  assert.match(body, /the settlement flow was checked$/, 'cut where a line ends');
  assert.match(long.slice(body.length), /^\s*\n- line \d+:/, 'the next line starts the part left out');
  assert.equal(note, expectedNote(long, body));
  const short = 'Summary of 3 messages.';
  assert.equal(shownSummary(short), short, 'a short summary is shown whole, with no note');
  assert.equal(
    shownSummary('x'.repeat(DIVIDER_SUMMARY_CHARS)),
    'x'.repeat(DIVIDER_SUMMARY_CHARS),
    'exactly the limit: whole',
  );
});

test('a summary of one line longer than a divider shows is cut between words, with the note', () => {
  const long = 'the settlement flow was checked '.repeat(Math.ceil((DIVIDER_SUMMARY_CHARS * 1.5) / 32));
  const { body, note } = cutParts(shownSummary(long));
  assert.ok(long.startsWith(body) && body.length <= DIVIDER_SUMMARY_CHARS);
  assert.match(body, /[a-z]$/, 'cut after a whole word');
  assert.match(long.slice(body.length), /^ [a-z]/, 'before the next one');
  assert.equal(note, expectedNote(long, body));
});

test("a cut summary's note names the divider's button that opens that checkpoint, in a run of several too", () => {
  const long = Array.from({ length: 1200 }, (_, i) => `- line ${i}: the settlement flow was checked`).join('\n');
  assert.ok(long.length > DIVIDER_SUMMARY_CHARS);
  // One run: the older span's long summary first, then tool results collapsed; the last checkpoint is
  // not the one whose summary is cut.
  const summarized = checkpoint('cpA', 5, ['e0', 'e1'], [item('summary', ['e0', 'e1'])], { summary: long });
  const collapsed = checkpoint('cpB', 5, ['e2'], [item('collapsed', ['e2'])], {
    strategy: 'collapse',
    summary: 'collapsed 1 tool result',
  });
  const records = [summarized, collapsed];
  const placed = placeCompactions(records, order, entries, lines, undefined);
  assert.equal(placed.compactions.length, 1, 'one divider for the run');
  const detail = compactionDetailOf(placed.compactions[0], records, entries, new Map(), 10);
  assert.deepEqual(detail.opens, [
    { id: 'cpA', label: 'Open summary' },
    { id: 'cpB', label: 'Open collapse' },
  ]);
  const note = /not shown here: (.+) shows the whole checkpoint\.\]/.exec(detail.summary);
  assert.ok(note, detail.summary.slice(-300));
  const named = detail.opens.find((o) => o.label === note[1]);
  assert.equal(named?.id, 'cpA', 'the button the note names opens the checkpoint whose summary was cut');
  assert.ok(detail.summary.endsWith('collapsed 1 tool result'), 'the later step is shown after the cut one');

  // A run of one checkpoint: one button, "Open", which the note names.
  const alone = [summarized];
  const one = compactionDetailOf(
    placeCompactions(alone, order, entries, lines, undefined).compactions[0],
    alone,
    entries,
    new Map(),
    10,
  );
  assert.deepEqual(one.opens, [{ id: 'cpA', label: 'Open' }]);
  assert.match(one.summary, /not shown here: Open shows the whole checkpoint\.\]$/);
});
