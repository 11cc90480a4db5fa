/**
 * `compactionBlocker`: why a manual compaction could do nothing at all, said before it is asked for
 * (an empty conversation, everything left anchored, a lone summary, parts too small to shrink), and
 * nothing when some part would be summarized. It follows the compaction's own rule: wherever it says
 * blocked, a manual compaction refuses with the same words; wherever it says not blocked, one applies.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatMessage, ContextItem } from '../../src/compaction/types';
import { compactionBlocker, LEFT_OUT_REASONS, MANUAL_PLAN_OPTIONS } from '../../src/compaction/plan/planner';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { compact } from '../../src/compaction/rewrite/compactor';
import { describeCompaction } from '../../src/compaction/outcome-text';
import { itemsFromEntries } from '../../src/compaction/context';
import { applyRecordedCompactions } from '../../src/compaction/rewrite/imported';
import { importTranscriptTextSync } from '../../src/transcripts';
import { claudeCode, claudeCodeCompacted, codex, type Step } from '../support/recordings';
import { quarterCounter } from '../support/generate';
import { sharedTranscriptsDir } from '../support/shared';
import { loadSession } from '../../src/cli/load';
import fs from 'node:fs';
import path from 'node:path';

const meter = new TokenMeter({ counter: quarterCounter });
const blocker = (items: readonly ContextItem[]) => compactionBlocker(items, meter.measure(items).perItem);

let n = 0;
const item = (message: ChatMessage): ContextItem => {
  const id = `e${++n}`;
  return { id, kind: 'raw', message, covers: [id] };
};
const system = item({ role: 'system', content: 'You are a coding agent.' });
const long = (tag: string) => Array.from({ length: 40 }, (_, i) => `${tag} line ${i}: the parser reads it`).join('\n');

/** What a manual compaction (Compact Conversation) of `items` says, in the words the user reads. */
async function manualOutcome(items: ContextItem[]): Promise<{ kind: string; words: string }> {
  const total = meter.measure(items).total;
  const result = await compact({
    items,
    meter,
    summarizer: new ExtractiveSummarizer((s) => meter.countText(s)),
    options: {
      budget: { contextWindow: total * 4, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 },
      trigger: 'manual',
      force: true,
      ...MANUAL_PLAN_OPTIONS,
    },
  });
  return { kind: result.status.kind, words: describeCompaction(result.status) };
}

test('an empty conversation (the system prompt alone) is blocked as empty', () => {
  assert.equal(blocker([]), 'the conversation is empty');
  assert.equal(blocker([system]), 'the conversation is empty');
});

test('the current task alone is anchored: blocked with the anchors named, as the compaction refuses', async () => {
  const items = [
    system,
    item({ role: 'user', content: 'Fix the parser' }),
    item({ role: 'assistant', content: 'Fixed.' }),
  ];
  const reason = blocker(items);
  assert.equal(
    reason,
    'all that is left is the leading system messages, the latest user message and the recent agent steps kept verbatim',
  );
  assert.deepEqual(await manualOutcome(items), { kind: 'nothing-eligible', words: `nothing to compact: ${reason}` });
});

test('an earlier turn large enough to shrink is not blocked, and a manual compaction applies', async () => {
  const items = [
    system,
    item({ role: 'user', content: 'Read the parser' }),
    item({ role: 'assistant', content: long('read') }),
    item({ role: 'user', content: 'Now fix it' }),
    item({ role: 'assistant', content: 'Fixed.' }),
  ];
  assert.equal(blocker(items), undefined);
  assert.equal((await manualOutcome(items)).kind, 'applied');
});

test('an earlier turn too small to shrink is blocked, saying so, as the compaction refuses', async () => {
  const items = [
    system,
    item({ role: 'user', content: 'Read the parser' }),
    item({ role: 'assistant', content: 'Read it.' }),
    item({ role: 'user', content: 'Now fix it' }),
    item({ role: 'assistant', content: 'Fixed.' }),
  ];
  const reason = blocker(items);
  assert.ok(reason?.includes(LEFT_OUT_REASONS.small), reason);
  assert.deepEqual(await manualOutcome(items), { kind: 'nothing-eligible', words: `nothing to compact: ${reason}` });
});

// An imported recording whose own compaction summarized everything before the latest request: the
// summary is eligible, but a summary alone would be rewritten into itself, so nothing can be done.
const before: Step[] = [
  { user: 'Why is the timeline empty?' },
  { tool: 'read', path: '/w/src/parse.ts', output: long('parse') },
  { say: 'parseEvents drops events without a timezone.' },
];
const RECORDED = 'Summary: the timeline investigation found the parser bug.';
const RECORDINGS = {
  'claude-code': {
    file: 'session.jsonl',
    text: () => claudeCodeCompacted(claudeCode(before), RECORDED, 'Now fix it.'),
  },
  codex: {
    file: 'rollout-2025-11-17T15-30-28-x.jsonl',
    text: () => {
      const compacted = JSON.stringify({
        timestamp: '2025-11-17T21:31:00.000Z',
        type: 'compacted',
        payload: { message: RECORDED },
      });
      const after = codex([{ user: 'Now fix it.' }, { say: 'On it.' }])
        .split('\n')
        .slice(1);
      return [codex(before), compacted, ...after].join('\n');
    },
  },
};

for (const [format, { file, text }] of Object.entries(RECORDINGS)) {
  test(`${format}: an import whose only earlier part is its own summary is blocked, as the compaction refuses`, async () => {
    const imported = importTranscriptTextSync(text(), file);
    assert.equal(imported.compactions.length, 1);
    const { items } = applyRecordedCompactions(itemsFromEntries(imported.entries), imported.compactions, meter);
    assert.ok(
      items.some((i) => i.kind === 'summary'),
      'the recorded compaction became a summary',
    );
    const reason = blocker(items);
    assert.ok(reason?.includes(LEFT_OUT_REASONS.summaries(1)), reason);
    assert.deepEqual(await manualOutcome(items), { kind: 'nothing-eligible', words: `nothing to compact: ${reason}` });
  });
}

/**
 * The first prefix length from which every longer prefix of `items` is unblocked, checking that no
 * longer prefix is blocked again (the rule the service's cached answer relies on: appends never block
 * a compaction that could apply). Returns the lengths where that failed.
 */
function blockedAgain(items: readonly ContextItem[], lengths: readonly number[]): number[] {
  const failures: number[] = [];
  let open = false;
  for (const n of lengths) {
    const reason = blocker(items.slice(0, n));
    if (reason === undefined) open = true;
    else if (open) failures.push(n);
  }
  return failures;
}

/** Every length up to 300, then about 60 more spread to the end. */
function prefixLengths(count: number): number[] {
  const lengths: number[] = [];
  for (let n = 1; n <= Math.min(count, 300); n++) lengths.push(n);
  const step = Math.max(1, Math.floor((count - 300) / 60));
  for (let n = 301; n <= count; n += step) lengths.push(n);
  if (lengths.at(-1) !== count && count > 300) lengths.push(count);
  return lengths;
}

test('appending messages never blocks a compaction that could apply (built recordings)', () => {
  for (const [format, { file, text }] of Object.entries(RECORDINGS)) {
    const imported = importTranscriptTextSync(text(), file);
    const { items } = applyRecordedCompactions(itemsFromEntries(imported.entries), imported.compactions, meter);
    const more = [
      ...items,
      item({ role: 'user', content: `Next: ${long('task')}` }),
      item({ role: 'assistant', content: long('reply') }),
      item({ role: 'user', content: 'And then?' }),
    ];
    assert.deepEqual(blockedAgain(more, prefixLengths(more.length)), [], format);
    assert.equal(blocker(more), undefined, `${format}: the appended turns unblock the compaction`);
  }
});

const transcripts = sharedTranscriptsDir();
test('appending messages never blocks a compaction that could apply (recorded transcripts)', async (t) => {
  if (!transcripts)
    return t.skip('../shared/transcripts not found beside the repository; set CONTEXT_KEEPER_SHARED to run this');
  const files = fs
    .readdirSync(transcripts, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => fs.readdirSync(path.join(transcripts, d.name)).map((f) => path.join(transcripts, d.name, f)));
  let checked = 0;
  for (const file of files) {
    const { items } = await loadSession(file);
    assert.deepEqual(blockedAgain(items, prefixLengths(items.length)), [], path.relative(transcripts, file));
    checked++;
  }
  assert.ok(checked > 0, 'no recorded transcript was read');
});

/** A summary an earlier compaction wrote, standing for `covers` (ids of raw entries it replaced). */
const summaryItem = (tag: string): ContextItem => {
  const id = `s${++n}`;
  return {
    id,
    kind: 'summary',
    message: { role: 'user', content: `Summary of the earlier ${tag}: the parser drops events without a timezone.` },
    covers: [`${id}-a`, `${id}-b`],
    checkpointId: `cp-${id}`,
  };
};

test('two summaries held apart by the latest request are counted as two, as the compaction refuses', async () => {
  // One summary of the history before the request, one of the request's earlier steps: each alone
  // would be rewritten into itself, and the request between them may not be summarized.
  const items = [
    system,
    summaryItem('turns'),
    item({ role: 'user', content: 'Now fix it' }),
    summaryItem('steps'),
    item({ role: 'assistant', content: 'Fixed.' }),
  ];
  const reason = blocker(items);
  assert.ok(reason?.endsWith(`and ${LEFT_OUT_REASONS.summaries(2)}`), reason);
  assert.doesNotMatch(reason ?? '', /one summary/);
  assert.deepEqual(await manualOutcome(items), { kind: 'nothing-eligible', words: `nothing to compact: ${reason}` });
});
