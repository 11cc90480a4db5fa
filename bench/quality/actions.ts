/**
 * What the agent did, read from a recording the benchmark's own way: commands run and files edited,
 * from native tool calls (Claude Code, Codex, OpenHands, Cline, OpenAI chat), from `<function=…>`
 * blocks in assistant text (SWE-agent) and from file-named code blocks (Aider). Independent of the
 * product's ledger on purpose: the benchmark checks the product, so it must not reuse its reading.
 */
import { messageText, toolCallTexts, type PlainMessage } from './text';

/** One action of the agent, in entry order. */
export interface Action {
  /** Index of the entry that holds the action. */
  index: number;
  kind: 'command' | 'edit' | 'other';
  /** The shell command, for `command`. */
  command?: string;
  /** The file, for `edit` (and for any call that names one). */
  path?: string;
  /** Code the action wrote (new file content, replacement text), for `edit`. */
  code?: string;
  /** Tool call id, to pair the action with its output. */
  callId?: string;
  /** Every string argument, for identifier extraction. */
  strings: string[];
}

const COMMAND_TOOLS = /^(bash|shell|terminal|execute_command|run_command|run_terminal_cmd|exec_command|local_shell)$/i;
const EDIT_TOOLS =
  /^(edit|write|multiedit|notebookedit|write_to_file|replace_in_file|apply_patch|edit_file|create_file|str_replace_based_edit_tool)$/i;
/** Editors with a `command` argument: viewing is not editing. */
const EDITOR_TOOLS = /^(str_replace_editor|file_editor)$/i;

/** Every string inside a parsed JSON value. */
function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) strings(x, out);
  return out;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/** An action from a tool name and its arguments (already parsed). */
export function actionOf(index: number, name: string, args: Record<string, unknown>, callId?: string): Action {
  const all = strings(args);
  const path =
    str(args.file_path) ??
    str(args.path) ??
    str(args.absolutePath) ??
    str(args.target_file) ??
    str(args.notebook_path) ??
    str(args.filename);
  const code = [
    args.content,
    args.new_string,
    args.new_str,
    args.file_text,
    args.diff,
    args.patch,
    ...(Array.isArray(args.edits) ? args.edits.map((e: { new_string?: unknown }) => e?.new_string) : []),
  ]
    .filter((x): x is string => typeof x === 'string')
    .join('\n');
  if (COMMAND_TOOLS.test(name)) {
    const c = args.command ?? args.cmd;
    // Codex: ["bash", "-lc", "…"] runs the last element.
    const command = Array.isArray(c)
      ? c.length === 3 && /sh$/.test(String(c[0])) && c[1] === '-lc'
        ? String(c[2])
        : c.map(String).join(' ')
      : str(c);
    const patched = command && /\*\*\* (Update|Add) File: (.+)/.exec(command);
    if (patched) return { index, kind: 'edit', path: patched[2].trim(), code: command, callId, strings: all };
    return { index, kind: 'command', command, callId, strings: all };
  }
  if (EDIT_TOOLS.test(name) && path) return { index, kind: 'edit', path, code, callId, strings: all };
  if (EDITOR_TOOLS.test(name) && path && args.command !== 'view')
    return { index, kind: 'edit', path, code, callId, strings: all };
  if (name === 'python' || name === 'execute_bash')
    return { index, kind: 'command', command: str(args.command) ?? str(args.code), callId, strings: all };
  return { index, kind: 'other', path, callId, strings: all };
}

const FUNCTION_BLOCK = /<function=([\w.-]+)>([\s\S]*?)(?:<\/function>|$)/g;
const PARAMETER = /<parameter=([\w.-]+)>\n?([\s\S]*?)\n?<\/parameter>/g;
/** Aider: a line that is only a file name, then a code fence (whole-file or SEARCH/REPLACE edit). */
const AIDER_EDIT = /^([\w@.~/-]+\.[\w]+)\n```[^\n]*\n([\s\S]*?)^```/gm;

/** The actions of one message at entry `index`. */
export function actionsOf(index: number, m: PlainMessage): Action[] {
  if (m.role !== 'assistant') return [];
  const out: Action[] = [];
  for (const [k, c] of toolCallTexts(m).entries()) {
    let args: Record<string, unknown> = {};
    try {
      const v: unknown = JSON.parse(c.args || '{}');
      if (v && typeof v === 'object' && !Array.isArray(v)) args = v as Record<string, unknown>;
    } catch {
      args = { input: c.args };
    }
    out.push(actionOf(index, c.name, args, m.tool_calls?.[k]?.id));
  }
  const text = messageText(m);
  for (const f of text.matchAll(FUNCTION_BLOCK)) {
    const args: Record<string, unknown> = {};
    for (const p of f[2].matchAll(PARAMETER)) args[p[1]] = p[2];
    out.push(actionOf(index, f[1], args));
  }
  for (const e of text.matchAll(AIDER_EDIT)) out.push({ index, kind: 'edit', path: e[1], code: e[2], strings: [e[1]] });
  return out;
}
