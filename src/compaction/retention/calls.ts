/**
 * One reading of every agent's tool calls, whatever the recording format: native tool calls (Claude
 * Code, Codex, Cline, OpenHands, OpenAI chat, the product's own agent), `<function=…>` actions written
 * in assistant text (SWE-agent) and file-named code blocks (Aider's whole-file and SEARCH/REPLACE
 * edits). Each call is paired with its result and the result's success flag where one is recorded.
 *
 * Written for measurement: it shares no code with the summary writer (src/compaction/summary), so a
 * defect in the writer's reading cannot hide itself in the scores computed from this one. Pure.
 */
import type { ChatMessage } from '../types';
import { appliedEditPaths, toolCallsOf } from '../text';
import { listsAppliedEdits } from '../tool-outcomes';
import { textWithPlaceholders } from '../content-text';
import { MessageMemo } from '../message-memo';
import { collapsedVerdict, commandVerdict, isDenial } from './outcome';

/**
 * The data the retention rules read: a message and, for a tool result, its recorded success flag;
 * for a user message, whether the recording marks it as the harness's (`harnessText`, Claude Code
 * `isMeta`).
 */
export interface RetentionEntry {
  message: ChatMessage;
  meta?: { toolOk?: boolean; harnessText?: boolean };
}

/** One tool call of the agent, in message order. */
export interface AgentCall {
  /** Index of the message holding the call (assistant message). */
  index: number;
  /** Tool name as recorded (`Bash`, `shell`, `str_replace_editor`, `aider_edit` for an Aider block). */
  name: string;
  /** Parsed arguments (JSON object arguments; `{ input }` for free-form text; parameters for text actions). */
  args: Record<string, unknown>;
  /** Tool-call id, for native calls. */
  callId?: string;
  /** Index of the message holding the result, when there is one. */
  resultIndex?: number;
  /** Text of the result. */
  result?: string;
  /**
   * Whether the call failed: for a command by the verdict of `outcome.ts` (the rule the summary's
   * ledger reads too); for another tool a recorded exit code in the result (Codex
   * `metadata.exit_code`, `Exit code: N`, OpenHands `[Command finished with exit code N]`), else the
   * recorded flag (`toolOk`), else undefined (nothing recorded says). False for a denied call.
   */
  failed?: boolean;
  /** The person refused the call (`outcome.ts`, `isDenial`): it did not run; `failed` is false. */
  denied?: boolean;
}

const FUNCTION_BLOCK = /<function=([\w.-]+)>([\s\S]*?)(?:<\/function>|$)/g;
const PARAMETER = /<parameter=([\w.-]+)>\n?([\s\S]*?)\n?<\/parameter>/g;
/** Aider: a line holding only a file name, then a fenced block (whole file, or SEARCH/REPLACE inside). */
const AIDER_BLOCK = /^([\w@.~/\\-]+\.[\w]+)\n(`{3,})[^\n]*\n([\s\S]*?)^\2/gm;

/**
 * Exit status written in a result text, when one is: Codex 0.5x JSON output (`metadata.exit_code`),
 * `Exit code: N` lines (Claude Code errors), OpenHands' `[Command finished with exit code N]`,
 * Cline's `Command executed successfully (exit code N)` / `Command failed with exit code N`,
 * `[Process exited with code N]`.
 * Undefined when the text states none.
 */
export function recordedExitCode(result: string): number | undefined {
  const head = result.trimStart();
  if (head.startsWith('{') && head.includes('"exit_code"')) {
    try {
      const v = JSON.parse(head) as { metadata?: { exit_code?: unknown } };
      if (typeof v?.metadata?.exit_code === 'number') return v.metadata.exit_code;
    } catch {
      // not JSON after all: fall through to the line patterns
    }
  }
  const m =
    /\[Command finished with exit code (-?\d+)\]|^Exit code:? (-?\d+)\s*$|\bexited with code (-?\d+)|\[Process exited with code (-?\d+)\]|"exit_code":\s*(-?\d+)|^Command executed successfully \(exit code (-?\d+)\)|^Command failed with exit code (-?\d+)/m.exec(
      result,
    );
  if (!m) return undefined;
  return Number(m.slice(1).find((g) => g !== undefined));
}

function parseArgs(raw: string): Record<string, unknown> {
  if (!raw.trim()) return {};
  try {
    const v: unknown = JSON.parse(raw);
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    return { input: raw };
  } catch {
    // Codex custom tools (apply_patch) and some servers send free-form text.
    return { input: raw };
  }
}

/**
 * Whether the call failed, by the rule the summary's ledger reads too (`outcome.ts`): for a command
 * its verdict (a denial, a probe's "no", a stated exit status, the tool's own flag, the output's
 * wording); for another tool the recorded exit status, else the flag, else undefined. A denied call
 * is marked `denied` and did not fail.
 */
function failedOf(
  ok: boolean | undefined,
  raw: string,
  call: AgentCall,
  code: number | undefined,
): boolean | undefined {
  // A collapsed result's record states a refusal as it states a command's verdict (read by `commandVerdict`).
  const stated = collapsedVerdict(raw);
  if (stated?.denied || (!stated && isDenial(raw))) {
    call.denied = true;
    return false;
  }
  const command = commandOf(call);
  if (command !== undefined) return commandVerdict(command, raw, code, code === undefined ? ok : undefined).failed;
  if (code !== undefined) return code !== 0;
  return ok === undefined ? undefined : !ok;
}

/** Codex 0.5x wraps a command's output as JSON text (`{"output": …, "metadata": …}`): the output itself. */
export function unwrapOutput(raw: string): string {
  if (!raw.startsWith('{"output"')) return raw;
  try {
    const v = JSON.parse(raw) as { output?: unknown };
    return typeof v.output === 'string' ? v.output : raw;
  } catch {
    return raw;
  }
}

/** What one call of an assistant message is, whatever its position: read once per message. */
interface CallBase {
  name: string;
  args: Record<string, unknown>;
  callId?: string;
  /** True for a call written in the message's text (a SWE-agent action): its result is the next user message. */
  text?: boolean;
}

/** A tool result message read once: its text, its output unwrapped, and the exit status it states. */
interface ResultFacts {
  raw: string;
  result: string;
  code: number | undefined;
  /** The first failure line of the output's first 40 lines, once asked for (see `failureHead`). */
  failureHead?: string;
  /** The verdict on the call it answers, by that call's arguments object and flag (see `failedOf`). */
  verdict?: { args: object; ok: boolean | undefined; failed: boolean | undefined; denied: boolean };
}

/**
 * Per message object (messages are never mutated once appended): the calls of an assistant message
 * and what a tool result says, so a compaction that replaces a grown span reads each message once.
 */
const callsOfMessage = new MessageMemo<object, readonly CallBase[]>();
const resultOfMessage = new MessageMemo<object, ResultFacts>();
/** The result facts behind a call's `result`, for the readers that derive more from it (errors.ts). */
const resultOfCall = new MessageMemo<AgentCall, ResultFacts>();

function callBases(m: ChatMessage): readonly CallBase[] {
  let bases = callsOfMessage.get(m);
  if (bases) return bases;
  const out: CallBase[] = [];
  for (const c of toolCallsOf(m)) out.push({ name: c.name, args: parseArgs(c.arguments), callId: c.id });
  const text = textWithPlaceholders(m.content);
  if (text.includes('<function=')) {
    for (const f of text.matchAll(FUNCTION_BLOCK)) {
      const args: Record<string, unknown> = {};
      for (const p of f[2].matchAll(PARAMETER)) args[p[1]] = p[2];
      out.push({ name: f[1], args, text: true });
    }
  }
  if (text.includes('```')) {
    // An Aider reply lists the edits Aider applied; a block without its notice was never applied.
    const applied = appliedEditPaths(text, listsAppliedEdits(m));
    for (const b of text.matchAll(AIDER_BLOCK)) {
      if (applied && !applied.has(b[1])) continue;
      const body = b[3];
      const search = /^<{5,9} SEARCH\s*$/m.test(body);
      out.push({ name: 'aider_edit', args: { path: b[1], [search ? 'diff' : 'content']: body } });
    }
  }
  bases = out;
  callsOfMessage.set(m, bases);
  return bases;
}

function resultFacts(m: ChatMessage): ResultFacts {
  let facts = resultOfMessage.get(m);
  if (!facts) {
    const raw = textWithPlaceholders(m.content);
    facts = { raw, result: unwrapOutput(raw), code: recordedExitCode(raw) };
    resultOfMessage.set(m, facts);
  }
  return facts;
}

/**
 * `read(head)` of the output's first 40 lines of `call`'s result (a failure line, see errors.ts),
 * kept with the result message when the call has one: a result is read for it once.
 */
export function resultHead(call: AgentCall, read: (head: string) => string): string {
  const facts = resultOfCall.get(call);
  const head = () => (call.result ?? '').split('\n').slice(0, 40).join('\n');
  if (!facts || facts.result !== call.result) return read(head());
  return (facts.failureHead ??= read(head()));
}

/**
 * The agent's tool calls in `entries`, in order, each with its result. Native calls pair with the
 * `tool` message answering their id; a SWE-agent text action pairs with the next user message (its
 * observation); Aider blocks have no result (Aider reports edits in its own lines, which are ignored).
 * What each message says is read once per message object and kept (see {@link callsOfMessage}).
 *
 * A span that grew at its end (the next compaction of a growing conversation: the same message
 * objects with the same success flags first) continues the last reading: the calls of the messages
 * read before are the same objects as last time, so what is kept per call (files, failures) is read
 * once in its life. A call returned is never changed afterwards: one whose result is among the new
 * messages is given as a new object with its result. Any other span is read from its start. The
 * returned array is the caller's; its calls must not be changed.
 */
export function agentCalls(entries: readonly RetentionEntry[]): AgentCall[] {
  if (entries.length < KEEP_FROM) return new CallsReading().read(entries, 0).out;
  const k = keptReading;
  let from = k ? k.messages.length : -1;
  if (!k || from > entries.length) from = -1;
  else
    for (let i = 0; i < from; i++) {
      const e = entries[i];
      if (k.messages[i] !== e.message || k.oks[i] !== e.meta?.toolOk) {
        from = -1;
        break;
      }
    }
  keptReading = from < 0 ? new CallsReading().read(entries, 0) : k!.read(entries, from);
  return keptReading.out.slice();
}

/** Spans shorter than this are read whole (cheap), so they do not push a long span's reading out. */
const KEEP_FROM = 256;

/** The reading of a span's calls that the next, grown span continues (see {@link agentCalls}). */
let keptReading: CallsReading | undefined;

/** The state of one forward reading of a span's calls. */
class CallsReading {
  /** The messages read and their success flags, by entry index. */
  readonly messages: ChatMessage[] = [];
  readonly oks: Array<boolean | undefined> = [];
  readonly out: AgentCall[] = [];
  /** Native calls waiting for their result, by call id. */
  private open = new Map<string, AgentCall>();
  /** Text actions of the last assistant message, waiting for the next user message. */
  private pendingText: AgentCall[] = [];

  /** Position in `out` of each call that waited for its result (a few: most are answered at once). */
  private readonly waitingAt = new Map<AgentCall, number>();
  /** Calls before this position in `out` were returned by an earlier reading. */
  private returned = 0;

  /**
   * `call`, to be given its result: a copy in its place when an earlier reading returned it (what
   * was read of it then, such as its files or that it had not failed, stays with the object read).
   */
  private answering(call: AgentCall): AgentCall {
    const at = this.waitingAt.get(call);
    this.waitingAt.delete(call);
    if (at === undefined || at >= this.returned) return call;
    const copy = { ...call };
    this.out[at] = copy;
    return copy;
  }

  read(entries: readonly RetentionEntry[], from: number): this {
    const { out, open, messages, oks } = this;
    for (let index = from; index < entries.length; index++) {
      const e = entries[index];
      const m = e.message;
      messages.push(m);
      oks.push(e.meta?.toolOk);
      if (m.role === 'tool') {
        const id = (m as { tool_call_id?: string }).tool_call_id ?? '';
        const waiting = open.get(id);
        if (waiting) {
          const c = this.answering(waiting);
          const facts = resultFacts(m);
          c.resultIndex = index;
          c.result = facts.result;
          // A result is judged once for its call (the calls of a message share their arguments object).
          const known = facts.verdict;
          if (known && known.args === c.args && known.ok === e.meta?.toolOk) {
            c.failed = known.failed;
            if (known.denied) c.denied = true;
          } else {
            c.failed = failedOf(e.meta?.toolOk, facts.raw, c, facts.code);
            facts.verdict = { args: c.args, ok: e.meta?.toolOk, failed: c.failed, denied: c.denied === true };
          }
          resultOfCall.set(c, facts);
          open.delete(id);
        }
        continue;
      }
      if (m.role === 'user') {
        if (this.pendingText.length) {
          const text = textWithPlaceholders(m.content);
          for (const waiting of this.pendingText) {
            const c = this.answering(waiting);
            c.resultIndex = index;
            c.result = text;
            c.failed = failedOf(e.meta?.toolOk, text, c, recordedExitCode(text));
          }
        }
        this.pendingText = [];
        continue;
      }
      if (m.role !== 'assistant') continue;
      this.pendingText = [];
      for (const b of callBases(m)) {
        const call: AgentCall =
          b.callId !== undefined
            ? { index, name: b.name, args: b.args, callId: b.callId }
            : { index, name: b.name, args: b.args };
        if (b.callId !== undefined) {
          this.waitingAt.set(call, out.length);
          open.set(b.callId, call);
        } else if (b.text) {
          this.waitingAt.set(call, out.length);
          this.pendingText.push(call);
        }
        out.push(call);
      }
    }
    this.returned = out.length;
    return this;
  }
}

/** Every string inside a parsed JSON value, depth first. */
export function argStrings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) argStrings(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) argStrings(x, out);
  return out;
}

/**
 * The shell command a call runs, when it is a command: `command`/`cmd` of shell tools (Claude Code
 * Bash, Codex `shell`/`exec_command`/`exec`, Cline `execute_command`, OpenHands `terminal`/`execute_bash`,
 * SWE-agent `bash`, the product's `run_command`). Codex's `["bash", "-lc", script]` runs the script.
 */
export function commandOf(call: AgentCall): string | undefined {
  if (!COMMAND_TOOLS.test(call.name)) return undefined;
  const c = call.args.command ?? call.args.cmd ?? call.args.script ?? call.args.code ?? call.args.input;
  if (Array.isArray(c)) {
    const parts = c.map(String);
    const dash = parts.findIndex((p) => /^-\w*c$/.test(p));
    if (dash >= 0 && dash === parts.length - 2 && /(?:^|\/)(?:ba|z|da)?sh$/.test(parts[0])) return parts[dash + 1];
    return parts.join(' ');
  }
  return typeof c === 'string' && c.trim() !== '' ? c : undefined;
}

const COMMAND_TOOLS =
  /^(bash|shell|terminal|execute_bash|execute_command|run_command|run_terminal_cmd|exec_command|exec|local_shell|container\.exec|python)$/i;
