/**
 * Realistic text for the benchmarks: pieces cut from the messages of the recorded sessions in
 * `../shared/transcripts` (read in place, never copied) and from real source files (this
 * repository's `src/` and the `openai` package's TypeScript sources), never a small word list. A
 * word list gives the identifier scans, the secret masks and the tokenizer almost nothing to find;
 * real text has paths, names, stack traces and code.
 *
 * A piece is a run of whole lines from one text, starting at a random line, cut at the length asked
 * for (in characters); seeded, so every run cuts the same pieces.
 */
import fs from 'node:fs';
import path from 'node:path';
import { rng } from '../test/support/generate';
import { loadSession } from '../src/cli/load';
import { textWithPlaceholders } from '../src/compaction/content-text';
import type { ChatMessage } from '../src/compaction/types';
import { transcriptFiles } from './corpus';

/** The texts pieces are cut from, by the role they play in a conversation. */
export interface RealText {
  /** What users typed (user messages of the recordings). */
  requests: string[];
  /** What agents wrote (assistant text of the recordings). */
  prose: string[];
  /** Tool output of the recordings and whole source files. */
  output: string[];
  /** Paths of the source files read, relative to their root (tool-call arguments name them). */
  paths: string[];
  /** Where the text came from, for the report. */
  source: string;
}

/** Source files under `dir` with one of `exts`, sorted (deterministic). */
function sourceFiles(dir: string, exts: readonly string[]): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (exts.some((x) => e.name.endsWith(x))) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** Loads the texts (recordings when present, source files always). `root` is the repository. */
export async function loadRealText(root: string): Promise<RealText> {
  const text: RealText = { requests: [], prose: [], output: [], paths: [], source: '' };
  const { files } = transcriptFiles();
  for (const file of files) {
    const loaded = await loadSession(file);
    for (const { message } of loaded.entries) {
      const t = textWithPlaceholders(message.content);
      if (t.length < 20) continue;
      if (message.role === 'user') text.requests.push(t);
      else if (message.role === 'assistant') text.prose.push(t);
      else if (message.role === 'tool') text.output.push(t);
    }
  }
  const roots = [path.join(root, 'src'), path.join(root, 'node_modules/openai/src')];
  let sources = 0;
  for (const r of roots)
    for (const f of sourceFiles(r, ['.ts'])) {
      text.output.push(fs.readFileSync(f, 'utf8'));
      text.paths.push(path.relative(path.dirname(r), f));
      sources++;
    }
  // Without recordings, requests and prose come from the comments of the source files.
  if (text.requests.length === 0 || text.prose.length === 0) {
    const comments = text.output.flatMap((s) => s.split('\n').filter((l) => /^\s*(\*|\/\/)/.test(l)));
    const joined: string[] = [];
    for (let i = 0; i < comments.length; i += 8) joined.push(comments.slice(i, i + 8).join('\n'));
    if (text.requests.length === 0) text.requests = joined;
    if (text.prose.length === 0) text.prose = joined;
  }
  text.source =
    (files.length ? `text of ${files.length} recorded sessions and ` : 'no recorded sessions found; text of ') +
    `${sources} source files`;
  return text;
}

/** A seeded cutter of pieces of {@link RealText}. */
export class TextCutter {
  private readonly r: () => number;
  /** Line starts of each text, computed once per text. */
  private readonly starts = new Map<string, number[]>();

  constructor(
    readonly text: RealText,
    seed: number,
  ) {
    this.r = rng(seed);
  }

  /** A random integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.r() * (hi - lo + 1));
  }

  /** A random element of `xs`. */
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.r() * xs.length)];
  }

  /** About `chars` characters of whole lines from one text of `from`, from a random line (a short text gives less). */
  cut(from: readonly string[], chars: number): string {
    const t = this.pick(from);
    let starts = this.starts.get(t);
    if (!starts) {
      starts = [0];
      for (let i = t.indexOf('\n'); i >= 0; i = t.indexOf('\n', i + 1)) starts.push(i + 1);
      this.starts.set(t, starts);
    }
    const start = starts[Math.floor(this.r() * starts.length)];
    if (t.length - start <= chars) return t.slice(start);
    const end = t.indexOf('\n', start + chars);
    return t.slice(start, end < 0 || end - start > chars * 2 ? start + chars : end);
  }
}

/**
 * A recording of `n` chat messages of real text: a system prompt, then turns of a user request
 * (40-600 characters), agent steps (an assistant message with one `read_file` or `run_command` call,
 * half with text, and the tool result: 100-1,500 characters of tool output or source) and a closing
 * assistant message. About 380 characters a message on average (300k messages: about 115 MB of JSON).
 */
export function realisticRecording(n: number, cutter: TextCutter): ChatMessage[] {
  const { text } = cutter;
  const msgs: ChatMessage[] = [{ role: 'system', content: `You are a coding agent.\n${cutter.cut(text.prose, 1500)}` }];
  let call = 0;
  while (msgs.length < n) {
    msgs.push({ role: 'user', content: cutter.cut(text.requests, cutter.int(40, 600)) || 'Go on.' });
    const steps = cutter.int(1, 12);
    for (let s = 0; s < steps && msgs.length < n - 2; s++) {
      const id = `call_${call++}`;
      const read = cutter.int(0, 1) === 0;
      const args = read
        ? { path: cutter.pick(text.paths) }
        : { command: `npx tsc -p . --noEmit && node --test ${cutter.pick(text.paths)}` };
      msgs.push({
        role: 'assistant',
        content: cutter.int(0, 1) === 0 ? null : cutter.cut(text.prose, cutter.int(40, 300)),
        tool_calls: [
          {
            id,
            type: 'function',
            function: { name: read ? 'read_file' : 'run_command', arguments: JSON.stringify(args) },
          },
        ],
      });
      msgs.push({
        role: 'tool',
        tool_call_id: id,
        content: cutter.cut(text.output, cutter.int(100, 1500)) || '(no output)',
      });
    }
    msgs.push({ role: 'assistant', content: cutter.cut(text.prose, cutter.int(50, 500)) || 'Done.' });
  }
  return msgs.slice(0, n);
}
