/**
 * Plain-text views of messages, for summarizers and collapsed records: tool calls, key arguments,
 * error lines. The content's own text comes from `content-text.ts`.
 */
import type { ChatMessage } from './types';
import { parseJsonObject } from '../format/json';
import { whatFailed } from './stack-trace';

/** Terminal escape sequences: colour and cursor codes (CSI) and window-title strings (OSC). */
const ANSI_ESCAPE = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

/**
 * `text` without terminal escape sequences (the colour codes terraform, jest or cargo print when
 * they think they write to a terminal): a quoted error line reads as the person saw it. Text with
 * no escape character is returned as it is (no copy).
 */
export function withoutAnsi(text: string): string {
  return text.includes('\u001b') ? text.replace(ANSI_ESCAPE, '') : text;
}

/**
 * The paths an Aider reply's `> Applied edit to <path>` notices name (kept by the importer at the end
 * of the reply), or undefined when `message` does not list its applied edits
 * (`listsAppliedEdits`): then every edit block of it counts.
 */
export function appliedEditPaths(text: string, listed: boolean): Set<string> | undefined {
  if (!listed) return undefined;
  return new Set([...text.matchAll(/^> Applied edit to (\S.*?)\s*$/gm)].map((m) => m[1]));
}

/** Tool calls of an assistant message as `{id, name, arguments}` (empty for other roles). */
export function toolCallsOf(message: ChatMessage): Array<{ id: string; name: string; arguments: string }> {
  if (message.role !== 'assistant') return [];
  const calls = (
    message as {
      tool_calls?: Array<{
        id: string;
        function?: { name?: string; arguments?: string };
        custom?: { name?: string; input?: string };
      }>;
    }
  ).tool_calls;
  if (!Array.isArray(calls)) return [];
  return calls.map((c) => ({
    id: c.id,
    name: c.function?.name ?? c.custom?.name ?? 'tool',
    arguments: c.function?.arguments ?? c.custom?.input ?? '',
  }));
}

/** A line that reports an error (not merely mentions the word, as source code and docs do). */
const ERROR_LINE =
  /^\s*(\w*(error|exception)\b|traceback|fatal|panic|failed|failure|FAIL\b|npm ERR!|E\d{3,}:)|\b(\w*Error|\w*Exception|error TS\d+|ERROR)\s*[:\[]|\b(command not found|permission denied|no such file or directory|exit(ed)? (with )?code [1-9]|exit_code"?:\s*[1-9])/i;

/**
 * True when a tool result reads as a failure: its first or last lines report an error or a non-zero
 * exit code (`exit code 2`, `"exit_code": 1`, `returncode=1`, `is_error`). Both ends are read because
 * build and test tools print their failure last, after long clean output.
 */
export function looksLikeError(text: string): boolean {
  const head = text.slice(0, 400);
  const tail = text.length > 400 ? text.slice(-400) : '';
  if (HEAD_ERROR.test(head) || EXIT_OR_FLAG.test(head) || EXIT_OR_FLAG.test(tail) || TAIL_ERROR.test(tail)) return true;
  const ends = text.length > 8000 ? `${text.slice(0, 4000)}\n${text.slice(-4000)}` : text;
  // A plain search first: copying every result to remove a phrase that is rarely there cost more
  // than the patterns themselves.
  return FAILURE_MARKER.test(ends.includes('0 failed') ? ends.replace(/\b0 failed\b/g, '') : ends);
}

/**
 * The reference reading of {@link looksLikeError}: the same patterns without its shortcuts
 * (exported for the test that the shortcuts never change a decision).
 */
export function matchesErrorPatterns(text: string): boolean {
  const head = text.slice(0, 400);
  const tail = text.length > 400 ? text.slice(-400) : '';
  const ends = text.length > 8000 ? `${text.slice(0, 4000)}\n${text.slice(-4000)}` : text;
  return (
    HEAD_ERROR.test(head) ||
    EXIT_OR_FLAG.test(head) ||
    EXIT_OR_FLAG.test(tail) ||
    TAIL_ERROR.test(tail) ||
    FAILURE_MARKER.test(ends.replace(/\b0 failed\b/g, ''))
  );
}

const HEAD_ERROR = /^\s*(error|failed|fatal|traceback)/i;
const TAIL_ERROR = /^\s*(error|fatal)\b[:!]/im;
/** Failure markers anywhere in the ends of a result (case matters). */
const FAILURE_MARKER =
  /error TS\d+|npm ERR!|npm error code|^ERROR:|Traceback \(most recent call last\)|\bFAILED\b|\d+ failed\b(?!, 0)|panicked at/m;
/** A non-zero exit code or an error flag, as shells, agents and tool formats record them. */
const EXIT_OR_FLAG =
  /exit(ed)? (with )?(status |code:? )?[1-9]|exit code:? [1-9]|"?exit_?code"?\s*[:=]\s*[1-9]|"?return_?code"?\s*[:=]\s*[1-9]|"is_error"\s*:\s*true|\bis_error\b(?!"?\s*[:=]\s*(false|0)\b)|"error"\s*:\s*\{|Process exited with code [1-9]/i;

/**
 * Lines of `text` that report errors, deduplicated, at most `max`, each at most 240 characters. A
 * stack trace is quoted by the line that says what failed (`stack-trace.ts`): a Python traceback's
 * head by the exception that ends it (`KeyError: 'a'`), a Node or Java `at …` frame by the error line
 * before the frames.
 */
export function errorLines(text: string, max = 5): string[] {
  const out: string[] = [];
  // A traceback cut before its exception (or frames with nothing before them) is quoted as it is
  // when no other line says more.
  let bare: string | undefined;
  /** Lines found that are no warning: the scan stops at `max` of them. */
  let errors = 0;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i].trim();
    if (t.length === 0 || !ERROR_LINE.test(t)) continue;
    const said = whatFailed(lines, i);
    if (!said) {
      bare ??= t.slice(0, 240);
      continue;
    }
    const line = said.slice(0, 240);
    if (!out.includes(line)) {
      out.push(line);
      if (!WARNING_LINE.test(line) && ++errors >= max) break;
    }
  }
  if (!out.length && bare !== undefined) out.push(bare);
  // A warning printed before the error ("npm warn ERESOLVE …" before "npm error code ERESOLVE") is
  // not what failed: error lines come first.
  if (!errors || errors === out.length) return out.slice(0, max);
  return [...out.filter((l) => !WARNING_LINE.test(l)), ...out.filter((l) => WARNING_LINE.test(l))].slice(0, max);
}

/**
 * What a logger prints before a line's level: times and dates (`[12:00:01]`, `2024-01-01T10:00:00Z`,
 * `12:00:01.123`), bracketed fields (`[main]`, `[2024-01-01 12:00:01]`), a process tag (`(node:42)`)
 * and the separators between them (`-`, `|`, `:`), in any order.
 */
const LOG_PREFIX = String.raw`(?:(?:\[[^\]\n]{1,60}\]|\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?|\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?|\(\w+:\d+\)|[-|:])\s*)*`;
/**
 * A line a tool prints as a warning, in the shapes tools and loggers print one: at the line's start
 * (`npm warn …`, `WARNING: …`, `warning: …`, `[WARN] …`), after a logger's times and fields
 * ({@link LOG_PREFIX}: `[12:00:01] WARN …`, `2024-01-01T10:00:00Z WARNING …`, `12:00:01.123 [main]
 * WARN …`, `(node:42) Warning: …`), as a logfmt level (`level=warn`, `"level":"warning"`), or as a
 * Python warning category (`app.py:3: DeprecationWarning: …`).
 */
const WARNING_LINE = new RegExp(
  String.raw`^${LOG_PREFIX}(?:(?:npm|yarn|pnpm)\s+)?(?:\[\s*)?warn(?:ing)?\b|\blevel["']?\s*[=:]\s*["']?warn(?:ing)?\b|^(?:\S+:\d+:\s*)?[A-Z]\w*Warning:`,
  'i',
);

/** True when `line` (trimmed) is a warning a tool printed ({@link WARNING_LINE}), not an error. */
export function isWarningLine(line: string): boolean {
  return WARNING_LINE.test(line);
}

const WHOLE_KEYS = /path|file|dir|folder|command|cmd|url|uri|pattern|glob|query/i;

/**
 * The command line an argv array runs: the script of a wrapper shell (`["bash", "-lc", "npm test"]`
 * → `npm test`, as Codex records its shell calls), else the words joined by spaces.
 */
export function argvCommand(parts: readonly string[]): string {
  if (parts.length >= 3 && /^(\/bin\/)?(ba|z)?sh$|^pwsh$|^powershell$/.test(parts[0]) && /^-\w*c$/.test(parts[1]))
    return parts.slice(2).join(' ');
  return parts.join(' ');
}

/**
 * A short form of tool-call arguments: the JSON's scalar values as `key=value`, paths and commands
 * whole (up to 240 characters each), other values cut to 60; at most `max` characters in all. A
 * command given as an argv array of strings (Codex `command: ["bash", "-lc", "…"]`) is its command
 * line ({@link argvCommand}); other arrays and objects are left out.
 */
export function keyArguments(args: string, max = 320): string {
  let s = args;
  // Not a JSON object (free-form tool input): used as text.
  const obj = parseJsonObject(args);
  if (obj) {
    const pairs: string[] = [];
    for (const [k, v] of Object.entries(obj)) {
      if (Array.isArray(v) && v.length > 0 && /command|cmd|argv/i.test(k) && v.every((x) => typeof x === 'string'))
        pairs.push(`${k}=${cutAtBoundary(argvCommand(v).replace(/\s+/g, ' '), 240)}`);
      else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
        const sv = String(v).replace(/\s+/g, ' ');
        // Paths and commands stay whole (an agent must know which file it touched); other values are cut.
        const limit = WHOLE_KEYS.test(k) ? 240 : 60;
        pairs.push(`${k}=${cutAtBoundary(sv, limit)}`);
      }
    }
    s = pairs.join(' ');
  }
  return cutAtBoundary(s.replace(/\s+/g, ' ').trim(), max);
}

/**
 * `s` cut to at most `max` characters with `…` at the end, where a word, a path segment or a
 * clause ends (a space, `/`, `\`, `,`, `;`, `&`, `|`) within its last two fifths, so a reader never
 * sees half a word; mid-word only when one word fills them.
 */
export function cutAtBoundary(s: string, max: number): string {
  if (s.length <= max) return s;
  const room = s.slice(0, max - 1);
  let at = -1;
  for (let i = room.length - 1; i >= Math.floor(max * 0.6); i--) {
    if (/[\s/\\,;&|]/.test(room[i])) {
      at = i;
      break;
    }
  }
  if (at < 0) return room + '…';
  // A separator that belongs to what it ends (a folder's slash) stays; a space or a comma goes.
  return (/[/\\]/.test(room[at]) ? room.slice(0, at + 1) : room.slice(0, at).trimEnd()) + '…';
}

/**
 * True when a user message carries tool or environment output rather than a request: SWE-agent
 * observations, Cline's `[tool] Result:` blocks, terminal output.
 */
export function isToolOutputText(text: string): boolean {
  const head = text.trimStart().slice(0, 200);
  // The last three: tool results that import or loading kept as user text (no matching call, a call
  // already answered, images returned by a tool), which are output, never a request.
  return (
    /^(OBSERVATION:|Observation:|Command failed with exit code|\[[^\]\n]{1,200}\] Result:|Here is the output|Exit code:|Command output:|\$ |\[Tool result for |\[tool result [^\]\n]{0,200} without a matching call\]|\[Images returned by tool call )/.test(
      head,
    ) || /\u001b\[/.test(head)
  );
}
