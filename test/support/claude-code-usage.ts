/**
 * A small Claude Code session (JSONL text) whose newest response reports 1 + 135,291 + 236 =
 * 135,528 prompt tokens, far more than the few messages it holds (as a recording without its
 * system prompt and tool schemas does).
 */
const base = {
  sessionId: 's1',
  cwd: '/w',
  version: '2.1.0',
  isSidechain: false,
  timestamp: '2026-01-01T00:00:00.000Z',
};
const line = (o: Record<string, unknown>) => JSON.stringify({ ...base, ...o });
const usage = (input: number, read: number, write: number) => ({
  input_tokens: input,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: write,
  output_tokens: 5,
});

export const claudeCodeWithUsage = [
  line({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'list the files' } }),
  line({
    type: 'assistant',
    uuid: 'a1',
    parentUuid: 'u1',
    message: {
      role: 'assistant',
      id: 'm1',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'tool_use', id: 'c1', name: 'Bash', input: { command: 'ls' } }],
      usage: usage(6, 15_907, 12_043),
    },
  }),
  line({
    type: 'user',
    uuid: 'r1',
    parentUuid: 'a1',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'a.txt' }] },
  }),
  line({
    type: 'assistant',
    uuid: 'a2',
    parentUuid: 'r1',
    message: {
      role: 'assistant',
      id: 'm2',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'One file.' }],
      usage: usage(1, 135_291, 236),
    },
  }),
].join('\n');
