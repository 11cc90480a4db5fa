/**
 * Checks shared by the transcript tests: tool pairing, id uniqueness, no image stored as text.
 */
import * as assert from 'node:assert/strict';
import type { Entry } from '../../src/compaction/types';
import type { ImportedTranscript } from '../../src/transcripts';

/**
 * Invariant 1 on raw entries: every tool message answers a call of the assistant message right before
 * its run of tool messages, and no call id is answered twice within one step.
 */
export function assertPairing(entries: readonly Entry[]): void {
  let open: Set<string> | undefined;
  const answered = new Set<string>();
  entries.forEach((entry, index) => {
    const m = entry.message;
    if (m.role === 'tool') {
      assert.ok(open, `entry ${index} (${entry.id}) is a tool message with no assistant message before its run`);
      assert.ok(
        open.has(m.tool_call_id),
        `entry ${index} (${entry.id}) answers ${m.tool_call_id}, not a call of the preceding assistant message`,
      );
      assert.ok(!answered.has(m.tool_call_id), `tool call ${m.tool_call_id} answered twice`);
      answered.add(m.tool_call_id);
      return;
    }
    open = m.role === 'assistant' ? new Set((m.tool_calls ?? []).map((c) => c.id)) : undefined;
    // Ids need to be unique within one step only (servers that number calls per reply reuse them).
    answered.clear();
  });
}

export function assertUniqueIds(entries: readonly Entry[]): void {
  const seen = new Set<string>();
  for (const e of entries) {
    assert.ok(!seen.has(e.id), `duplicate id ${e.id}`);
    seen.add(e.id);
  }
}

/** Image bytes must be image parts, never text a model would read as characters. */
export function assertNoImageAsText(entries: readonly Entry[]): void {
  const looksLikeImage = /data:image\/[a-z+]+;base64,|"type"\s*:\s*"image"\s*,\s*"source"/;
  for (const e of entries) {
    const content = e.message.content;
    const texts: string[] = typeof content === 'string' ? [content] : [];
    if (Array.isArray(content)) {
      for (const part of content) if (part.type === 'text') texts.push(part.text);
    }
    for (const text of texts) assert.ok(!looksLikeImage.test(text), `entry ${e.id} holds image data as text`);
  }
}

/** Structure checks every import must pass. */
export function assertWellFormed(t: ImportedTranscript): void {
  assertUniqueIds(t.entries);
  assertPairing(t.entries);
  assertNoImageAsText(t.entries);
  const ids = new Set(t.entries.map((e) => e.id));
  for (const c of t.compactions) {
    for (const id of c.replacedIds) assert.ok(ids.has(id), `compaction replaces unknown entry ${id}`);
    if (c.summaryEntryId)
      assert.ok(ids.has(c.summaryEntryId), `compaction summary entry ${c.summaryEntryId} is not an entry`);
  }
  let toolCalls = 0;
  let toolResults = 0;
  let images = 0;
  for (const e of t.entries) {
    const m = e.message;
    if (m.role === 'assistant') {
      for (const call of m.tool_calls ?? []) {
        assert.equal(call.type, 'function');
        assert.equal(typeof call.function.arguments, 'string');
        toolCalls++;
      }
    }
    if (m.role === 'tool') toolResults++;
    if (Array.isArray(m.content)) for (const part of m.content) if (part.type === 'image_url') images++;
  }
  assert.deepEqual(t.stats, { messages: t.entries.length, toolCalls, toolResults, images });
}

/** Count of entries by role. */
export function roles(t: ImportedTranscript): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of t.entries) out[e.message.role] = (out[e.message.role] ?? 0) + 1;
  return out;
}

/** A PNG header of the given size (enough for size sniffing), as base64. */
export function pngBase64(width: number, height: number): string {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'ascii');
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  b[24] = 8;
  b[25] = 6;
  return b.toString('base64');
}

/** A JPEG header (SOI, APP0, SOF0) of the given size, as bytes. */
export function jpegBytes(width: number, height: number): Buffer {
  const app0 = [
    0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,
  ];
  const sof = [
    0xff,
    0xc0,
    0x00,
    0x11,
    0x08,
    height >> 8,
    height & 0xff,
    width >> 8,
    width & 0xff,
    0x03,
    1,
    0x22,
    0,
    2,
    0x11,
    1,
    3,
    0x11,
    1,
  ];
  return Buffer.from([0xff, 0xd8, ...app0, ...sof, 0xff, 0xd9]);
}

/** Runs `fn` and returns the TranscriptError it throws (fails when it does not throw one). */
export async function transcriptError(
  fn: () => Promise<unknown>,
): Promise<{ file: string; line: number; field: string; message: string }> {
  try {
    await fn();
  } catch (error) {
    assert.equal((error as Error).name, 'TranscriptError', `expected a TranscriptError, got ${String(error)}`);
    return error as { file: string; line: number; field: string; message: string };
  }
  assert.fail('expected a TranscriptError');
}

/** `[id, name, arguments]` of each function tool call of a message. */
export function calls(message: Entry['message']): Array<[string, string, string]> {
  if (message.role !== 'assistant') return [];
  return (message.tool_calls ?? []).map((c) =>
    c.type === 'function' ? [c.id, c.function.name, c.function.arguments] : [c.id, '', ''],
  );
}

/**
 * `text` (one JSON document, or JSON lines) with `change` applied to every object in it, depth first
 * (children before their parent), written back in the same shape: a test breaks a recording written
 * by `test/support/recordings.ts` in the same way in every format.
 */
export function rewriteRecords(text: string, change: (o: Record<string, unknown>) => void): string {
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v && typeof v === 'object') {
      for (const x of Object.values(v)) walk(x);
      change(v as Record<string, unknown>);
    }
  };
  try {
    const doc = JSON.parse(text) as unknown;
    walk(doc);
    return JSON.stringify(doc);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
  }
  return text
    .split('\n')
    .map((line) => {
      if (line.trim() === '') return line;
      const record = JSON.parse(line) as unknown;
      walk(record);
      return JSON.stringify(record);
    })
    .join('\n');
}
