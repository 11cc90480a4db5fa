/** Generated Claude Code and Codex session records for the watcher tests (no recorded content). */
import { loadSession } from '../../src/cli/load';
import { ANSWERS_HEADING, REQUESTS_BEFORE_HEADING } from '../../src/compaction/summary/quoted-summary';

const claudeBase = {
  sessionId: 's1',
  cwd: '/w',
  version: '2.1.0',
  isSidechain: false,
  timestamp: '2026-01-01T00:00:00.000Z',
};

/** A Claude Code session writer: each call returns one JSONL line, chained by parentUuid. */
export class ClaudeLines {
  private n = 0;
  private parent: string | null = null;

  private next(o: Record<string, unknown>): string {
    const uuid = `u${++this.n}`;
    const line = JSON.stringify({ ...claudeBase, uuid, parentUuid: this.parent, ...o });
    this.parent = uuid;
    return line;
  }

  user(text: string): string {
    return this.next({ type: 'user', message: { role: 'user', content: text } });
  }

  assistantText(text: string, inputTokens = 1000): string {
    return this.next({
      type: 'assistant',
      message: {
        role: 'assistant',
        id: `msg_${this.n}`,
        model: 'claude-sonnet-4-5',
        content: [{ type: 'text', text }],
        usage: { input_tokens: inputTokens, cache_read_input_tokens: 100, output_tokens: 5 },
      },
    });
  }

  toolCall(id: string, command: string, inputTokens = 1000): string {
    return this.next({
      type: 'assistant',
      message: {
        role: 'assistant',
        id: `msg_${this.n}`,
        model: 'claude-sonnet-4-5',
        content: [{ type: 'tool_use', id, name: 'Bash', input: { command } }],
        usage: { input_tokens: inputTokens, output_tokens: 5 },
      },
    });
  }

  toolResult(id: string, output: string): string {
    return this.next({
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output }] },
    });
  }

  /** An assistant record whose usage is all zero, as Claude Code writes for its own notes. */
  zeroUsage(text: string): string {
    return this.next({
      type: 'assistant',
      message: {
        role: 'assistant',
        id: `msg_${this.n}`,
        model: '<synthetic>',
        content: [{ type: 'text', text }],
        usage: { input_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 0 },
      },
    });
  }

  /**
   * The compact boundary and the summary record Claude Code writes when it compacts; `metadata` is
   * its `compactMetadata` (trigger, preTokens, postTokens), absent in older versions.
   */
  compaction(summary: string, metadata?: Record<string, unknown>): string[] {
    const boundary = JSON.stringify({
      ...claudeBase,
      type: 'system',
      subtype: 'compact_boundary',
      uuid: `b${++this.n}`,
      parentUuid: null,
      logicalParentUuid: this.parent,
      content: 'Conversation compacted',
      ...(metadata ? { compactMetadata: metadata } : {}),
    });
    this.parent = `b${this.n}`;
    const summaryLine = this.next({
      type: 'user',
      isCompactSummary: true,
      message: {
        role: 'user',
        content: `This session is being continued from a previous conversation. Summary: ${summary}`,
      },
    });
    return [boundary, summaryLine];
  }
}

/** A Codex rollout writer. */
export class CodexLines {
  private t = 0;

  private rec(type: string, payload: Record<string, unknown>): string {
    return JSON.stringify({
      timestamp: `2026-01-01T00:00:${String(this.t++ % 60).padStart(2, '0')}.000Z`,
      type,
      payload,
    });
  }

  meta(cwd: string): string {
    return this.rec('session_meta', {
      id: 'sess-1',
      cwd,
      instructions: 'You are a coding agent. Follow the repository rules.',
      originator: 'codex_cli_rs',
      cli_version: '0.58.0',
    });
  }

  turnContext(model = 'gpt-5.1-codex'): string {
    return this.rec('turn_context', { cwd: '/w', model });
  }

  user(text: string): string {
    return this.rec('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
  }

  assistant(text: string): string {
    return this.rec('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
  }

  call(id: string, command: string): string {
    return this.rec('response_item', {
      type: 'function_call',
      name: 'shell',
      arguments: JSON.stringify({ command: ['bash', '-lc', command] }),
      call_id: id,
    });
  }

  output(id: string, text: string): string {
    return this.rec('response_item', { type: 'function_call_output', call_id: id, output: text });
  }

  tokenCount(input: number, window = 258_400): string {
    return this.rec('event_msg', {
      type: 'token_count',
      info: {
        last_token_usage: { input_tokens: input, output_tokens: 10, total_tokens: input + 10 },
        total_token_usage: { input_tokens: input, total_tokens: input + 10 },
        model_context_window: window,
      },
    });
  }

  compacted(summary: string): string {
    return this.rec('compacted', { message: summary });
  }
}

/**
 * Prompt tokens of what the recording agent itself sends for `file` as it is now: the full import
 * (`meter FILE --json`'s figure) with each of the agent's own summaries as the agent wrote it, without
 * the part holding the requests typed before it, which the import adds and the agent no longer sends.
 */
export async function agentSentTokens(
  file: string,
): Promise<{ tokens: number; imported: number; checkpoints: number }> {
  const s = await loadSession(file);
  // What the import adds after the agent's own summary: the answers, then the requests it replaced.
  const cuts = [`\n\n${ANSWERS_HEADING}`, `\n\n${REQUESTS_BEFORE_HEADING}`];
  const items = s.items.map((i) => {
    const text = i.kind === 'summary' && typeof i.message.content === 'string' ? i.message.content : undefined;
    const at = cuts.map((c) => text?.indexOf(c) ?? -1).find((n) => n >= 0) ?? -1;
    return at < 0 ? i : { ...i, message: { ...i.message, content: text!.slice(0, at) } };
  });
  return {
    tokens: s.meter.measure(items, s.transcript.tools).total,
    imported: s.meter.measure(s.items, s.transcript.tools).total,
    checkpoints: s.importCheckpoints.length,
  };
}
