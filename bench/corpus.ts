/**
 * Inputs of the benchmarks: the recorded transcripts of real agents beside the repository (read in
 * place, never copied), or, when they are absent, generated conversations of controlled size.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sharedTranscriptsDir } from '../test/support/shared';
import { rng } from '../test/support/generate';
import { loadSession, type LoadedSession } from '../src/cli/load';
import { TokenMeter } from '../src/compaction/meter/meter';
import { itemsFromEntries } from '../src/compaction/context';
import { toolCallsOf } from '../src/compaction/text';
import { textWithPlaceholders } from '../src/compaction/content-text';
import type { ChatMessage, Entry, ToolSchema } from '../src/compaction/types';

/** One conversation to benchmark on. */
export interface Session {
  /** `claude-code/x.jsonl` for a transcript, `generated-N` otherwise. */
  name: string;
  entries: Entry[];
  tools?: readonly ToolSchema[];
  meter: TokenMeter;
  generated: boolean;
}

/** Paths of the recorded transcripts, sorted; empty when the shared directory is absent. */
export function transcriptFiles(): { dir: string | undefined; files: string[] } {
  const dir = sharedTranscriptsDir();
  if (!dir || !fs.existsSync(dir)) return { dir: undefined, files: [] };
  const files = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => fs.readdirSync(path.join(dir, d.name)).map((f) => path.join(dir, d.name, f)))
    .sort();
  return { dir, files };
}

/** Loads every transcript (or generated sessions when there are none). */
export async function loadSessions(): Promise<{ sessions: Session[]; source: string }> {
  const { dir, files } = transcriptFiles();
  if (files.length > 0) {
    const sessions: Session[] = [];
    for (const file of files) {
      const s: LoadedSession = await loadSession(file);
      sessions.push({
        name: path.relative(dir!, file),
        entries: s.entries,
        tools: s.transcript.tools,
        meter: s.meter,
        generated: false,
      });
    }
    return { sessions, source: `${files.length} recorded transcripts in ${dir}` };
  }
  const sizes = [60_000, 250_000, 600_000];
  return {
    sessions: sizes.map((n, k) => {
      const entries = generateSession(1000 + k, n);
      return {
        name: `generated-${Math.round(n / 1000)}k`,
        entries,
        meter: new TokenMeter({ model: 'gpt-4o' }),
        generated: true,
      };
    }),
    source: 'generated conversations (no recorded transcripts found; set CONTEXT_KEEPER_SHARED to use them)',
  };
}

/** Text of a message as the meter counts it: content, then each tool call's name and arguments. */
export function messageTexts(message: ChatMessage): string[] {
  const out = [textWithPlaceholders(message.content)];
  for (const c of toolCallsOf(message)) out.push(c.name, c.arguments);
  return out.filter((t) => t.length > 0);
}

const WORDS =
  'the a to of and in is that for it with as was on be by this are not or from at we an but which can if will file function test error value return const import export build config path src module class type interface string number async await promise result fixed update npm run lint parser token meter window'.split(
    ' ',
  );
const CODE = [
  'export function parse(input: string): Result {',
  '  const tokens = input.split(/\\s+/).filter(Boolean);',
  '  if (tokens.length === 0) throw new Error(`empty input at ${path}`);',
  '  return { ok: true, value: tokens.map((t) => t.trim()) };',
  '}',
  "import { readFile } from 'node:fs/promises';",
  'FAIL src/parser.test.ts > parses nested groups',
  '    at Object.<anonymous> (src/parser.ts:42:13)',
  'def handle(self, request):\n        return self.app(request)',
];

/**
 * A seeded conversation of about `tokens` tokens (counted at ~4 characters each): a system prompt,
 * then turns of a user request and agent steps (assistant tool call + tool result of prose and code).
 */
export function generateSession(seed: number, tokens: number): Entry[] {
  const r = rng(seed);
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ');
  const code = (n: number) => Array.from({ length: n }, () => CODE[Math.floor(r() * CODE.length)]).join('\n');
  const msgs: ChatMessage[] = [{ role: 'system', content: `You are a coding agent. ${words(200)}` }];
  let chars = 0;
  let call = 0;
  while (chars < tokens * 4) {
    const user = `${words(10 + Math.floor(r() * 60))}. Never change the public API of src/api/v${Math.floor(r() * 9)}.ts.`;
    msgs.push({ role: 'user', content: user });
    chars += user.length;
    const steps = 1 + Math.floor(r() * 8);
    for (let s = 0; s < steps; s++) {
      const id = `call_${seed}_${call++}`;
      const args = JSON.stringify({
        path: `src/mod${Math.floor(r() * 50)}/file${call}.ts`,
        command: 'npm test -- --run',
      });
      msgs.push({
        role: 'assistant',
        content: r() < 0.5 ? null : words(20),
        tool_calls: [
          { id, type: 'function', function: { name: r() < 0.5 ? 'read_file' : 'run_command', arguments: args } },
        ],
      });
      const result = r() < 0.5 ? code(5 + Math.floor(r() * 120)) : words(30 + Math.floor(r() * 600));
      msgs.push({ role: 'tool', tool_call_id: id, content: result });
      chars += args.length + result.length;
    }
    const reply = words(10 + Math.floor(r() * 80));
    msgs.push({ role: 'assistant', content: reply });
    chars += reply.length;
  }
  return msgs.map((message, i) => ({ id: `g${seed}-${i}`, message }));
}

/** Items of `entries` as a fresh active context. */
export const itemsOf = itemsFromEntries;
