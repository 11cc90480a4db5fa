/**
 * A recording whose agent compacted its own context, then went on working with no new request: the
 * agent's summary is the newest user-role message, but nobody typed it. Replayed message by message,
 * the latest-request anchor stays the request the user typed before it, kept verbatim in every
 * context sent, and the invariant check agrees. Recordings in Claude Code's and OpenAI chat format.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTranscriptTextSync } from '../../src/transcripts';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { replay } from '../../src/replay/replay';
import { quarterCounter } from '../support/generate';
import { claudeCode, claudeCodeCompacted, openaiChat, type Step } from '../support/recordings';

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);
const REQUEST = 'move the retry budget into src/net/budget.ts and use it in every client';

const before: Step[] = [
  { user: 'add a retry budget to the fetch client in src/net/client.ts' },
  { tool: 'read', path: 'src/net/client.ts', output: filler(150) },
  { say: `The client retries forever. ${filler(100)}` },
  { user: REQUEST },
  { tool: 'read', path: 'src/net/upload.ts', output: filler(150) },
];
// After the agent's compaction: the work goes on, no new request.
const after: Step[] = [1, 2, 3, 4, 5, 6, 7, 8].flatMap((n): Step[] => [
  { tool: 'read', path: `src/net/part${n}.ts`, output: filler(150) },
  { tool: 'edit', path: `src/net/part${n}.ts`, old: 'retries = 0', new: 'retries = budget.left' },
  { say: `Part ${n} uses the budget. ${filler(80)}` },
]);
const SUMMARY = `Summary: 1. Primary Request and Intent: the user wants a retry budget. ${filler(200)}`;

/** Claude Code: the session, its compact boundary and summary record, then the records after it. */
function claudeCodeRecording(): string {
  const head = claudeCodeCompacted(claudeCode(before), SUMMARY, 'unused').split('\n').slice(0, -1);
  const tail = claudeCode(after)
    .split('\n')
    .map((line) => {
      const r = JSON.parse(line) as { uuid: string; parentUuid: string | null };
      return JSON.stringify({
        ...r,
        uuid: `t${r.uuid}`,
        parentUuid: r.parentUuid === null ? 's1' : `t${r.parentUuid}`,
      });
    });
  return [...head, ...tail].join('\n');
}

/** OpenAI chat: the boundary as a system message, the summary as the user message after it. */
function openaiChatRecording(): string {
  const head = (JSON.parse(openaiChat(before)) as { messages: unknown[] }).messages;
  const tail = (JSON.parse(openaiChat(after)) as { messages: Array<{ role: string }> }).messages.filter(
    (m) => m.role !== 'system',
  );
  return JSON.stringify({
    messages: [
      ...head,
      { role: 'system', content: '[compact_boundary] Conversation compacted' },
      { role: 'user', content: `This session is being continued from a previous conversation. ${SUMMARY}` },
      ...tail,
    ],
  });
}

for (const [format, text, file] of [
  ['claude-code', claudeCodeRecording(), 'session.jsonl'],
  ['openai-chat', openaiChatRecording(), 'trajectory.json'],
] as const) {
  test(`${format}: replayed, the agent's own summary is no latest request: the request typed before it stays verbatim`, async () => {
    const t = importTranscriptTextSync(text, file);
    assert.equal(t.format, format);
    const summaryAt = t.entries.findIndex((e) => e.meta?.importedSummary);
    assert.ok(summaryAt > 0, 'the importer marks the agent summary');
    const typed = t.entries.findIndex((e) => e.message.content === REQUEST);
    assert.ok(typed >= 0 && typed < summaryAt);
    assert.ok(
      t.entries.slice(summaryAt + 1).every((e) => e.message.role !== 'user'),
      'no user message after the summary',
    );
    const meter = new TokenMeter({ counter: quarterCounter });
    let callsAfterSummary = 0;
    const report = await replay(t.entries, meter, new ExtractiveSummarizer((s) => meter.countText(s)), {
      budget: { contextWindow: 3000, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 },
      tools: t.tools,
      onCall: (_call, items) => {
        if (!items.some((it) => it.covers.includes(t.entries[summaryAt].id))) return;
        callsAfterSummary++;
        assert.ok(
          items.some((it) => it.kind === 'raw' && it.message === t.entries[typed].message),
          'the request typed last is sent verbatim',
        );
      },
    });
    assert.ok(report.compactions > 0, 'the replay compacted');
    assert.ok(callsAfterSummary > 3, `${callsAfterSummary} model calls after the summary`);
    assert.deepEqual(report.violations, []);
  });
}
