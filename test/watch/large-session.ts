/** Writes large generated Claude Code session files for the large-file follow tests (no recorded content). */
import fs from 'node:fs';

/** How a generated session is laid out. All sizes in bytes. */
export interface LargeSessionPlan {
  /** About how large the file gets. */
  bytes: number;
  /** The agent compacts after about this many bytes of records (0: never). */
  compactEvery: number;
  /** After the last compaction, about this many bytes of records follow. */
  tailBytes: number;
  /** Prompt tokens the newest response reports (input + cache read). */
  lastReported?: number;
}

/** What was written: the byte offset of the last compact boundary line, when there is one. */
export interface LargeSession {
  size: number;
  lastBoundary?: number;
  /** Lines from the last boundary to the end, and the newest model-naming line before it. */
  fromBoundary: string[];
  modelLineBefore?: string;
}

/**
 * Writes a Claude Code session of tool steps (a Read and its result, about 3 KB a step) with a compact
 * boundary and summary every `compactEvery` bytes, ending `tailBytes` after the last one.
 */
export function writeLargeSession(file: string, plan: LargeSessionPlan): LargeSession {
  let n = 0;
  let parent: string | null = null;
  const base = {
    sessionId: 'big',
    cwd: '/w',
    version: '2.1.0',
    isSidechain: false,
    timestamp: '2026-01-01T00:00:00.000Z',
  };
  const rec = (o: Record<string, unknown>) => {
    const uuid = `u${++n}`;
    const line = JSON.stringify({ ...base, uuid, parentUuid: parent, ...o });
    parent = uuid;
    return line;
  };
  const output = (k: number) =>
    `${k}: export function handler${k}(input: Options) { return compute(input); }\n`.repeat(36);
  const fd = fs.openSync(file, 'w');
  let size = 0;
  let batch: string[] = [];
  let batchBytes = 0;
  const flush = () => {
    if (batch.length) fs.writeSync(fd, batch.join(''));
    batch = [];
    batchBytes = 0;
  };
  let last: LargeSession = { size: 0, fromBoundary: [] };
  const put = (line: string) => {
    batch.push(line + '\n');
    const b = Buffer.byteLength(line) + 1;
    size += b;
    batchBytes += b;
    if (last.lastBoundary !== undefined) last.fromBoundary.push(line);
    if (batchBytes > 4_000_000) flush();
  };
  let k = 0;
  let since = 0;
  put(rec({ type: 'user', message: { role: 'user', content: 'Move every handler to the new Options object' } }));
  const compactAt = plan.compactEvery > 0 ? plan.compactEvery : Infinity;
  while (size < plan.bytes) {
    const lastStep = size + 4_000 >= plan.bytes;
    const usage = {
      input_tokens: 10,
      cache_read_input_tokens: lastStep && plan.lastReported ? plan.lastReported - 10 : 30_000 + (k % 1000),
      output_tokens: 20,
    };
    const call = rec({
      type: 'assistant',
      message: {
        role: 'assistant',
        id: `m${k}`,
        model: 'claude-sonnet-4-5',
        content: [{ type: 'tool_use', id: `t${k}`, name: 'Read', input: { file_path: `src/h${k}.ts` } }],
        usage,
      },
    });
    put(call);
    const result = rec({
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${k}`, content: output(k) }] },
    });
    put(result);
    since += Buffer.byteLength(call) + Buffer.byteLength(result) + 2;
    k++;
    if (since >= compactAt && size < plan.bytes - plan.tailBytes) {
      // Each compaction may be the last: remember where it starts and what follows it.
      last = { size: 0, lastBoundary: size, fromBoundary: [], modelLineBefore: call };
      put(
        JSON.stringify({
          ...base,
          type: 'system',
          subtype: 'compact_boundary',
          uuid: `b${++n}`,
          parentUuid: null,
          logicalParentUuid: parent,
          content: 'Conversation compacted',
          compactMetadata: { trigger: 'auto', preTokens: 160_000 },
        }),
      );
      parent = `b${n}`;
      put(
        rec({
          type: 'user',
          isCompactSummary: true,
          message: {
            role: 'user',
            content: `This session is being continued from a previous conversation. Summary: handlers 0 to ${k} moved to Options.`,
          },
        }),
      );
      since = 0;
    }
  }
  flush();
  fs.closeSync(fd);
  return { ...last, size };
}
