/**
 * Turns compactions that a recorded agent made itself (Claude Code's compact boundary, OpenHands'
 * condensation, Codex's compacted record) into checkpoints with trigger `import`, so the imported
 * active context matches what that agent was sending and the step can be inspected and undone.
 */
import type { Checkpoint, ContextItem, ToolSchema } from '../types';
import type { TokenMeter } from '../meter/meter';
import { applyCheckpoint } from '../context';
import { analyze } from '../plan/structure';
import { collectRequests, typedRequestOf } from '../summary/requests';
import { maskSecrets } from '../secrets';
import { ANSWERS_HEADING, REQUESTS_BEFORE_HEADING } from '../summary/quoted-summary';
import { spanAnswers } from '../summary/span-scan';

/**
 * The recording agent's summary followed by the typed `requests` of the span it replaced, each a list
 * item (continuation lines indented two spaces), secrets masked as in every summary. Returns `summary`
 * unchanged when there are no requests. Text in, text out; the meter counts the result as the item's.
 */
export function withRequestsBefore(summary: string, requests: readonly string[]): string {
  if (requests.length === 0) return summary;
  const list = requests.map((r) =>
    r
      .split('\n')
      .map((line, i) => (i === 0 ? `- ${line}` : `  ${line}`))
      .join('\n'),
  );
  return `${summary}\n\n${maskSecrets([REQUESTS_BEFORE_HEADING, ...list].join('\n'))}`;
}

/**
 * The recording agent's summary followed by the agent's answers and findings of the span it replaced
 * (note lines of `span-scan.ts` spanAnswers) under the notes' answers heading, secrets masked as in
 * every summary: its summary paraphrases what the agent told the person, a native compaction quotes
 * it. Returns `summary` unchanged when there are none.
 */
export function withAnswersBefore(summary: string, answers: readonly string[]): string {
  if (answers.length === 0) return summary;
  return `${summary}\n\n${maskSecrets([ANSWERS_HEADING, ...answers].join('\n'))}`;
}

/** An agent's own compaction found in a recorded file. */
export interface RecordedCompaction {
  /** Raw entry ids the agent's compaction removed from its context. */
  replacedIds: string[];
  /** The agent's summary text. */
  summary: string;
  /** The raw entry that holds the summary, when the summary is itself a recorded message. */
  summaryEntryId?: string;
  /**
   * `context-keeper`: a summary ContextKeeper wrote, read back from a file it wrote: its text stays
   * as it is (it holds the requests and answers of what it replaced itself), and a later compaction
   * reads it as the product's own earlier summary (see `isImportedSummary`).
   */
  writer?: 'context-keeper';
}

/**
 * Applies each recorded compaction, in order. The replaced ids are widened to whole units (a step
 * never loses its tool results) and split into contiguous runs; the first run becomes the summary,
 * later runs a short note pointing at it. Compactions whose ids are not in the context are skipped
 * with a warning.
 */
export function applyRecordedCompactions(
  items: readonly ContextItem[],
  compactions: readonly RecordedCompaction[],
  meter: TokenMeter,
  tools?: readonly ToolSchema[],
  time = new Date(0).toISOString(),
): { items: ContextItem[]; checkpoints: Checkpoint[]; warnings: string[] } {
  let current = [...items];
  const checkpoints: Checkpoint[] = [];
  const warnings: string[] = [];
  compactions.forEach((rc, n) => {
    const wanted = new Set(rc.replacedIds);
    if (rc.summaryEntryId) wanted.add(rc.summaryEntryId);
    // Any item covering a forgotten id goes, including an earlier summary (nested compaction).
    const marks = current.map((it) => it.covers.some((id) => wanted.has(id)));
    if (!marks.some(Boolean)) {
      warnings.push(
        `recorded compaction ${n + 1}: none of its ${rc.replacedIds.length} messages are in the context; skipped`,
      );
      return;
    }
    // Widen to whole units so no agent step is split, and never touch the leading system messages.
    const shape = analyze(current, 0);
    for (const u of shape.units) {
      if (u.region === 'lead') {
        for (let k = u.start; k < u.end; k++) marks[k] = false;
        continue;
      }
      if (u.kind !== 'turn' && u.kind !== 'step') continue;
      for (let k = u.start; k < u.end; k++) {
        const m = current[k].message;
        // An assistant message with calls, or one of its results, drags the whole step along.
        if (
          marks[k] &&
          (m.role === 'tool' || (m.role === 'assistant' && (m as { tool_calls?: unknown[] }).tool_calls?.length))
        ) {
          let s = k;
          while (s > u.start && current[s].message.role === 'tool') s--;
          let e = s + 1;
          while (e < u.end && current[e].message.role === 'tool') e++;
          for (let j = s; j < e; j++) marks[j] = true;
        }
      }
    }
    const runs: Array<[number, number]> = [];
    for (let k = 0; k < current.length; k++) {
      if (!marks[k]) continue;
      let e = k;
      while (e + 1 < current.length && marks[e + 1]) e++;
      runs.push([k, e + 1]);
      k = e;
    }
    const keptTyped = new Set(
      current.flatMap((it, k) => {
        const q = marks[k] ? undefined : typedRequestOf(it);
        return q ? [q] : [];
      }),
    );
    const cps: Checkpoint[] = runs.map(([s, e], r) => {
      const replaced = current.slice(s, e);
      const id = `import-${n + 1}${runs.length > 1 ? `-${r + 1}` : ''}`;
      // The summary entry alone after messages the agent kept (Claude Code's preserved segment): the
      // summary itself stands before them, where the oldest replaced message was.
      const onlySummary =
        replaced.length === 1 &&
        rc.summaryEntryId !== undefined &&
        replaced[0].covers.length === 1 &&
        replaced[0].covers[0] === rc.summaryEntryId;
      const text =
        r === 0
          ? rc.summary
          : onlySummary
            ? `[The recording agent's summary was here; it now stands before the messages that agent kept (checkpoint import-${n + 1}).]`
            : `[Earlier messages removed by the recording agent's own compaction; see its summary (checkpoint import-${n + 1}).]`;
      const covers = replaced.flatMap((i) => i.covers);
      // The agent's summary paraphrases what the user typed: the typed requests it stands for are
      // kept beside it, so a later compaction carries them forward verbatim.
      const own = replaced.filter((i) => !rc.summaryEntryId || !i.covers.includes(rc.summaryEntryId));
      const requests = collectRequests(own);
      // What the agent told the person in the span is kept beside the summary, as a native
      // compaction keeps it (only with the span's summary: later runs are pointers to it).
      // The typed request before the span (the agent kept it) names what the first answer answered.
      let asked = s - 1;
      while (asked >= 0 && typedRequestOf(current[asked]) === undefined) asked--;
      const answers = r === 0 ? spanAnswers(asked >= 0 ? [current[asked], ...own] : own) : [];
      // ...and in its text, so the context the import builds holds them (and the meter counts them),
      // except those the agent kept as messages (Codex's replacement history keeps typed requests).
      const content =
        rc.writer === 'context-keeper'
          ? text
          : withRequestsBefore(
              withAnswersBefore(text, answers),
              requests.filter((q) => !keptTyped.has(q)),
            );
      return {
        id,
        time,
        trigger: 'import',
        strategy: 'summary',
        replacedIds: covers,
        replaced,
        inserted: [
          {
            id: `${id}~s`,
            kind: 'summary',
            message: { role: 'user', content },
            covers,
            checkpointId: id,
            ...(requests.length ? { requests } : {}),
          },
        ],
        summary: content,
        tokensBefore: 0,
        tokensAfter: 0,
        summarizerModel: rc.writer === 'context-keeper' ? 'ContextKeeper' : 'recorded agent',
      } satisfies Checkpoint;
    });
    for (const cp of cps) {
      const before = meter.measure(current, tools).total;
      current = applyCheckpoint(current, cp);
      cp.tokensBefore = before;
      cp.tokensAfter = meter.measure(current, tools).total;
      checkpoints.push(cp);
    }
  });
  return { items: current, checkpoints, warnings };
}
