/** Shared fixtures of the agent and service tests: temp workspaces, a loopback client, checks. */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import OpenAI from 'openai';
import type { ChatMessage } from '../../src/compaction/types';
import { start, type ModelServer, type Responder } from '../../src/demo/modelserver/wire';

/** A temp folder with the given files (relative path → text); `cleanup` removes it. */
export function tempWorkspace(files: Record<string, string> = {}): { root: string; cleanup: () => void } {
  const root = mkdtempSync(path.join(tmpdir(), 'ck-ws-'));
  for (const [relative, text] of Object.entries(files)) {
    const file = path.join(root, relative);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** Starts a loopback model server and an `openai` client pointed at it (no retries, short timeout). */
export async function loopback(
  responder: Responder,
): Promise<{ server: ModelServer; client: OpenAI; close: () => Promise<void> }> {
  const server = await start({ responder });
  const client = new OpenAI({ baseURL: server.url, apiKey: 'test-key', maxRetries: 0, timeout: 10_000 });
  return { server, client, close: () => server.close() };
}

/**
 * Tool pairing (DESIGN.md invariant 1): each tool message answers a call of the assistant message
 * right before its run of tool messages, and every call is answered exactly once before the next
 * non-tool message. Returns the violations (empty when valid).
 */
export function pairingViolations(messages: readonly ChatMessage[]): string[] {
  const problems: string[] = [];
  let open: Set<string> | undefined;
  const seen = new Set<string>();
  messages.forEach((message, index) => {
    if (message.role === 'tool') {
      if (!open || !open.has(message.tool_call_id))
        problems.push(`#${index}: tool result ${message.tool_call_id} answers no open call`);
      else open.delete(message.tool_call_id);
      if (seen.has(message.tool_call_id)) problems.push(`#${index}: duplicate result for ${message.tool_call_id}`);
      seen.add(message.tool_call_id);
      return;
    }
    if (open && open.size > 0)
      problems.push(`#${index}: calls ${[...open].join(', ')} unanswered before a ${message.role} message`);
    open =
      message.role === 'assistant' && message.tool_calls?.length
        ? new Set(message.tool_calls.map((c) => c.id))
        : undefined;
    // Ids need to be unique within one step only (servers that number calls per reply reuse them).
    seen.clear();
  });
  if (open && open.size > 0) problems.push(`end: calls ${[...open].join(', ')} unanswered`);
  return problems;
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
