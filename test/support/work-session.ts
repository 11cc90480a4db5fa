/**
 * A seeded coding session with the shapes summaries read: typed requests with standing rules, edits
 * that define symbols, moves and deletions, commands that fail and pass (tests, builds), Python
 * tracebacks, URLs, hashes, UUIDs, Windows paths, JSON command strings and arrays (some cut off at
 * the end of a message), SWE-agent text actions and Aider edit blocks, and tool results in the user
 * role. For checking that faster paths of the compaction core give the same output as plain ones.
 */
import type { ChatMessage, Entry } from '../../src/compaction/types';
import { rng } from './generate';

const WORDS =
  'the parser reads each token because the build failed so we switch to a new config instead of the old one and keep tests green'.split(
    ' ',
  );
const FILES = [
  'src/parser.ts',
  'src/lexer.ts',
  'lib/util.py',
  'app/main.go',
  'README.md',
  'C:\\Users\\ana\\app\\index.js',
  './scripts/build.sh',
  'tests/test_api.py',
];
const COMMANDS = [
  'npm test',
  'npm run build',
  'pytest -q',
  'go test ./...',
  'git mv src/old.ts src/new.ts',
  'rm -rf dist',
  'make lint',
  'cargo check',
];

/** Entries of a session with about `steps` agent steps. */
export function workSession(seed: number, steps: number): Entry[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
  const hex = () =>
    Array.from({ length: 7 + Math.floor(r() * 33) }, () => '0123456789abcdef'[Math.floor(r() * 16)]).join('');
  const msgs: ChatMessage[] = [{ role: 'system', content: `You are a coding agent. ${words(30)}` }];
  let call = 0;
  for (let s = 0; s < steps; s++) {
    const roll = r();
    if (s === 0 || roll < 0.12) {
      const rule =
        r() < 0.5 ? ` Never change ${pick(FILES)} without asking.` : r() < 0.5 ? ' Always run the tests first.' : '';
      const long = r() < 0.1 ? ` ${words(400)}` : '';
      msgs.push({
        role: 'user',
        content: `${words(8 + Math.floor(r() * 20))}.${rule}${long} See https://example.com/issues/${Math.floor(r() * 999)} and commit ${hex()}.`,
      });
      continue;
    }
    if (roll < 0.16) {
      // Tool output in the user role (SWE-agent observation), sometimes with a traceback.
      msgs.push({
        role: 'assistant',
        content: `${words(6)}\n<function=bash>\n<parameter=command>${pick(COMMANDS)}</parameter>\n</function>`,
      });
      msgs.push({
        role: 'user',
        content: `OBSERVATION:\n${r() < 0.5 ? `Traceback (most recent call last):\n  File "lib/util.py", line 3\n${r() < 0.7 ? 'ValueError: bad value' : ''}` : words(20)}`,
      });
      continue;
    }
    if (roll < 0.19) {
      msgs.push({
        role: 'assistant',
        content: `${pick(FILES)}\n\`\`\`ts\n<<<<<<< SEARCH\nold\n=======\nexport function f${s}() {}\n>>>>>>> REPLACE\n\`\`\``,
      });
      continue;
    }
    const id = r() < 0.2 ? 'call_0' : `call_${seed}_${call++}`;
    const kind = r();
    let name: string;
    let args: string;
    if (kind < 0.35) {
      name = 'run_command';
      args =
        r() < 0.8
          ? JSON.stringify({ command: pick(COMMANDS) })
          : JSON.stringify({ cmd: ['bash', '-lc', pick(COMMANDS)] });
    } else if (kind < 0.6) {
      name = 'edit_file';
      args = JSON.stringify({
        path: pick(FILES),
        old_string: 'x',
        new_string: `export function handler${Math.floor(r() * 50)}(a: string) {\n  return a;\n}\nclass Store${s} {}`,
      });
    } else if (kind < 0.65) {
      name = 'delete_file';
      args = JSON.stringify({ path: pick(FILES) });
    } else {
      name = 'read_file';
      args = JSON.stringify({ path: pick(FILES) });
    }
    msgs.push({
      role: 'assistant',
      content: r() < 0.5 ? null : `${words(10)}${r() < 0.3 ? ' because the old way was slow.' : ''}`,
      tool_calls: [{ id, type: 'function', function: { name, arguments: args } }],
    });
    const out = r();
    let result: string;
    if (out < 0.15) result = `Error: ${words(5)}\nexit code 1`;
    else if (out < 0.25)
      result = `FAILED tests/test_api.py::test_${s} - AssertionError\n1 failed, 3 passed\nexit code 1`;
    else if (out < 0.3)
      result = `Traceback (most recent call last):\n  File "${pick(FILES)}", line ${s}\n    raise KeyError\n${r() < 0.6 ? 'KeyError: name' : '  more frames'}`;
    else if (out < 0.35) result = `{"command": "echo ${words(3)}\n${words(2)}`;
    else if (out < 0.38) result = `"cmd": ["bash", "-lc", "${words(2)}`;
    else if (out < 0.42)
      result = `id ${crypto(r)} at ${pick(FILES)} see http://localhost:${3000 + s}/x\n$ ${pick(COMMANDS)}\nok`;
    else result = `${words(10 + Math.floor(r() * 120))}\n42 passed, 0 failed`;
    msgs.push({ role: 'tool', tool_call_id: id, content: result });
    if (r() < 0.1)
      msgs.push({
        role: 'assistant',
        content: `- [x] ${words(3)}\n- [ ] ${words(3)}\nI decided to keep ${pick(FILES)} because it works.`,
      });
  }
  msgs.push({ role: 'user', content: `${words(12)}. Keep the public API.` });
  return msgs.map((message, i) => ({ id: `w${seed}-${i}`, message }));
}

function crypto(r: () => number): string {
  const h = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(r() * 16)]).join('');
  return `${h(8)}-${h(4)}-${h(4)}-${h(4)}-${h(12)}`;
}
