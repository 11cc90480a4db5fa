/**
 * Small recordings written in each agent's own format, from one list of steps, and the summary the
 * product writes of them: the tests of what a summary keeps read the same work in every format.
 *
 * A step is a typed user message, or one tool call with its result (`ok` false: the recording marks
 * it failed where the format has a flag, and the output states exit status 1 where it has one;
 * `exit: 0` on a passing command: the output states exit status 0 where the format words one).
 * `result` gives a tool result's text verbatim instead (a denial, say), with `ok` false setting the
 * format's error flag where it has one.
 */
import { importTranscriptTextSync } from '../../src/transcripts';
import { itemsFromEntries } from '../../src/compaction/context';
import { TokenMeter } from '../../src/compaction/meter/meter';
import { ExtractiveSummarizer } from '../../src/compaction/summary/extractive';
import { compact } from '../../src/compaction/rewrite/compactor';
import { quarterCounter } from './generate';
import { textWithPlaceholders } from '../../src/compaction/content-text';
import { describeCompaction } from '../../src/compaction/outcome-text';
import { recallPointer } from '../../src/compaction/summary/recall-pointer';
import type { ContextItem } from '../../src/compaction/types';
import type { CompactionResult } from '../../src/compaction/outcome';

/** One step of a recording. */
export type Step =
  | { user: string; /** Claude Code only: the record is marked `isMeta` (written by the harness). */ meta?: boolean }
  | { say: string }
  /**
   * The agent's to-do list, items with whether each is done: Claude Code and OpenAI chat `TodoWrite`,
   * Codex `update_plan`, OpenHands `task_tracker` (`plan` command), Cline's `task_progress` checklist
   * on its next tool call; the formats with no to-do tool leave it out. An item `'in progress'` is
   * written with the tool's own in-progress status (Cline's checklist has none: an open box).
   */
  | { plan: ReadonlyArray<readonly [string, boolean | 'in progress']> }
  /**
   * The agent hands the turn over with its report: Cline `attempt_completion`, OpenHands `finish`,
   * SWE-agent `submit` (its observation is the patch); a plain final message in the other formats.
   */
  | {
      done: string;
      /**
       * Words the agent wrote in the same message before the hand-over call ("Let me sum up."): Cline's
       * text block, OpenHands' `thought`; the formats without a hand-over tool leave them out.
       */
      lead?: string;
    }
  | { tool: 'bash'; command: string; output: string; ok?: boolean; exit?: number; result?: string }
  | { tool: 'read'; path: string; output: string; result?: string; ok?: boolean }
  | { tool: 'write'; path: string; content: string; result?: string; ok?: boolean }
  | { tool: 'edit'; path: string; old: string; new: string; result?: string; ok?: boolean };

/** The fields every Claude Code session record carries (session, folder, version, time). */
export const CC_BASE = {
  sessionId: 's1',
  cwd: '/w',
  version: '2.1.0',
  isSidechain: false,
  timestamp: '2026-01-01T00:00:00.000Z',
};

/**
 * Claude Code's own compaction appended to a session's JSONL `text`: the `compact_boundary` record
 * (chained logically to the last record), the summary record (`isCompactSummary`) holding `summary`,
 * and the user's next message `next`. Returns the whole JSONL text.
 */
export function claudeCodeCompacted(text: string, summary: string, next: string): string {
  const lines = text.split('\n');
  const last = (JSON.parse(lines.at(-1)!) as { uuid: string }).uuid;
  lines.push(
    JSON.stringify({
      ...CC_BASE,
      type: 'system',
      subtype: 'compact_boundary',
      uuid: 'b1',
      parentUuid: null,
      logicalParentUuid: last,
      content: 'Conversation compacted',
      compactMetadata: { trigger: 'auto', preTokens: 100000 },
    }),
    JSON.stringify({
      ...CC_BASE,
      type: 'user',
      uuid: 's1',
      parentUuid: 'b1',
      isCompactSummary: true,
      isVisibleInTranscriptOnly: true,
      message: { role: 'user', content: `This session is being continued from a previous conversation. ${summary}` },
    }),
    JSON.stringify({
      ...CC_BASE,
      type: 'user',
      uuid: 'n1',
      parentUuid: 's1',
      message: { role: 'user', content: next },
    }),
  );
  return lines.join('\n');
}

/** A hand-over step as a plain final message, for formats whose agent has no hand-over tool. */
function plain(step: Step): Exclude<Step, { done: string }> {
  return 'done' in step ? { say: step.done } : step;
}

/** Claude Code session JSONL: Bash, Read, Write, Edit tool_use blocks; `is_error` on failed results. */
export function claudeCode(steps: readonly Step[]): string {
  const lines: string[] = [];
  let parent: string | null = null;
  let n = 0;
  const push = (o: Record<string, unknown>) => {
    const uuid = `u${n++}`;
    lines.push(JSON.stringify({ ...CC_BASE, uuid, parentUuid: parent, ...o }));
    parent = uuid;
  };
  steps.forEach((step, i) => {
    const s = plain(step);
    if ('user' in s)
      return push({ type: 'user', ...(s.meta ? { isMeta: true } : {}), message: { role: 'user', content: s.user } });
    if ('plan' in s) {
      const todos = s.plan.map(([content, done]) => ({
        content,
        status: done === 'in progress' ? 'in_progress' : done ? 'completed' : 'pending',
        activeForm: content,
      }));
      push({
        type: 'assistant',
        message: {
          role: 'assistant',
          id: `r${i}`,
          model: 'claude-x',
          content: [{ type: 'tool_use', id: `c${i}`, name: 'TodoWrite', input: { todos } }],
        },
      });
      return push({
        type: 'user',
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: `c${i}`, content: 'Todos have been modified successfully.' }],
        },
      });
    }
    if ('say' in s)
      return push({
        type: 'assistant',
        message: { role: 'assistant', id: `r${i}`, model: 'claude-x', content: [{ type: 'text', text: s.say }] },
      });
    const input =
      s.tool === 'bash'
        ? { command: s.command }
        : s.tool === 'read'
          ? { file_path: s.path }
          : s.tool === 'write'
            ? { file_path: s.path, content: s.content }
            : { file_path: s.path, old_string: s.old, new_string: s.new };
    const name = { bash: 'Bash', read: 'Read', write: 'Write', edit: 'Edit' }[s.tool];
    push({
      type: 'assistant',
      message: {
        role: 'assistant',
        id: `r${i}`,
        model: 'claude-x',
        content: [{ type: 'tool_use', id: `c${i}`, name, input }],
      },
    });
    const failed = s.ok === false && (s.tool === 'bash' || s.result !== undefined);
    const output =
      s.result !== undefined
        ? s.result
        : s.tool === 'bash'
          ? failed
            ? `Exit code ${s.exit ?? 1}\n${s.output}`
            : s.output
          : s.tool === 'read'
            ? s.output
            : `The file ${s.path} has been updated.`;
    push({
      type: 'user',
      message: {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: `c${i}`, content: output, ...(failed ? { is_error: true } : {}) },
        ],
      },
    });
  });
  return lines.join('\n');
}

/** Codex rollout JSONL: `shell` calls (argv), outputs with `metadata.exit_code`; edits by `apply_patch` through the shell. */
export function codex(steps: readonly Step[]): string {
  const rec = (type: string, payload: Record<string, unknown>) =>
    JSON.stringify({ timestamp: '2025-11-17T21:30:00.000Z', type, payload });
  const out = [rec('session_meta', { id: 's', cwd: '/w', cli_version: '0.58.0' })];
  steps.forEach((step, i) => {
    const s = plain(step);
    if ('user' in s)
      return out.push(
        rec('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: s.user }] }),
      );
    if ('say' in s)
      return out.push(
        rec('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: s.say }] }),
      );
    if ('plan' in s) {
      const plan = s.plan.map(([step, done]) => ({
        step,
        status: done === 'in progress' ? 'in_progress' : done ? 'completed' : 'pending',
      }));
      out.push(
        rec('response_item', {
          type: 'function_call',
          name: 'update_plan',
          arguments: JSON.stringify({ plan }),
          call_id: `c${i}`,
        }),
      );
      return out.push(rec('response_item', { type: 'function_call_output', call_id: `c${i}`, output: 'Plan updated' }));
    }
    let command: string;
    let output: string;
    let exit = 0;
    if (s.tool === 'bash') {
      command = s.command;
      output = s.output;
      exit = s.ok === false ? (s.exit ?? 1) : 0;
    } else if (s.tool === 'read') {
      command = `cat ${s.path}`;
      output = s.output;
    } else if (s.tool === 'write') {
      const body = s.content
        .split('\n')
        .map((l) => `+${l}`)
        .join('\n');
      command = `apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: ${s.path}\n${body}\n*** End Patch\nPATCH`;
      output = `Success. Updated the following files:\nA ${s.path}\n`;
    } else {
      const lines = (text: string, mark: string) =>
        text
          .split('\n')
          .map((l) => `${mark}${l}`)
          .join('\n');
      command = `apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: ${s.path}\n@@\n${lines(s.old, '-')}\n${lines(s.new, '+')}\n*** End Patch\nPATCH`;
      output = `Success. Updated the following files:\nM ${s.path}\n`;
    }
    out.push(
      rec('response_item', {
        type: 'function_call',
        name: 'shell',
        arguments: JSON.stringify({ command: ['bash', '-lc', command], workdir: '/w' }),
        call_id: `c${i}`,
      }),
    );
    out.push(
      rec('response_item', {
        type: 'function_call_output',
        call_id: `c${i}`,
        output: s.result ?? JSON.stringify({ output, metadata: { exit_code: exit, duration_seconds: 0.1 } }),
      }),
    );
  });
  return out.join('\n');
}

const CLINE_ENV =
  '<environment_details>\n# VSCode Visible Files\nsrc/a.ts\n\n# Current Time\n1/1/2026\n</environment_details>';

/** Cline `api_conversation_history.json`: native tool_use blocks, results as `[tool for 'x'] Result:` text, environment details on every user turn. */
export function cline(steps: readonly Step[]): string {
  const msgs: Array<Record<string, unknown>> = [];
  let first = true;
  // Cline writes its checklist as the `task_progress` parameter of its next tool call.
  let progress: string | undefined;
  const withProgress = (input: Record<string, unknown>) => {
    const out = progress === undefined ? input : { ...input, task_progress: progress };
    progress = undefined;
    return out;
  };
  steps.forEach((s, i) => {
    if ('plan' in s) {
      progress = s.plan.map(([item, done]) => `- [${done === true ? 'x' : ' '}] ${item}`).join('\n');
      return;
    }
    if ('user' in s) {
      msgs.push({
        role: 'user',
        content: [
          { type: 'text', text: first ? `<task>\n${s.user}\n</task>` : `<feedback>\n${s.user}\n</feedback>` },
          { type: 'text', text: CLINE_ENV },
        ],
      });
      first = false;
      return;
    }
    if ('say' in s) return msgs.push({ role: 'assistant', content: [{ type: 'text', text: s.say }] });
    if ('done' in s) {
      msgs.push({
        role: 'assistant',
        content: [
          ...(s.lead ? [{ type: 'text', text: s.lead }] : []),
          { type: 'tool_use', id: `t${i}`, name: 'attempt_completion', input: withProgress({ result: s.done }) },
        ],
      });
      return msgs.push({
        role: 'user',
        content: [
          { type: 'text', text: '[attempt_completion] Result:\nThe user has provided feedback on the results.' },
          { type: 'text', text: CLINE_ENV },
        ],
      });
    }
    const [name, input, label, result] =
      s.tool === 'bash'
        ? [
            'execute_command',
            { command: s.command, requires_approval: false },
            s.command,
            s.ok === false
              ? `Command failed with exit code ${s.exit ?? 1}.\nOutput:\n${s.output}`
              : s.exit === 0
                ? `Command executed successfully (exit code 0).\nOutput:\n${s.output}`
                : `Command executed.\nOutput:\n${s.output}`,
          ]
        : s.tool === 'read'
          ? ['read_file', { path: s.path }, s.path, s.output]
          : s.tool === 'write'
            ? [
                'write_to_file',
                { path: s.path, content: s.content },
                s.path,
                `The content was successfully saved to ${s.path}.`,
              ]
            : [
                'replace_in_file',
                { path: s.path, diff: `------- SEARCH\n${s.old}\n=======\n${s.new}\n+++++++ REPLACE` },
                s.path,
                `The content was successfully saved to ${s.path}.`,
              ];
    msgs.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name, input: withProgress(input) }] });
    msgs.push({
      role: 'user',
      content: [
        { type: 'text', text: `[${name} for '${label}'] Result:\n${s.result ?? result}` },
        { type: 'text', text: CLINE_ENV },
      ],
    });
  });
  return JSON.stringify(msgs);
}

/** OpenAI chat messages with `tool_calls` (no success flag: the output states its exit status). */
export function openaiChat(steps: readonly Step[]): string {
  const messages: Array<Record<string, unknown>> = [{ role: 'system', content: 'You are a coding agent.' }];
  steps.forEach((step, i) => {
    const s = plain(step);
    if ('user' in s) return messages.push({ role: 'user', content: s.user });
    if ('say' in s) return messages.push({ role: 'assistant', content: s.say });
    if ('plan' in s) {
      const todos = s.plan.map(([content, done]) => ({
        content,
        status: done === 'in progress' ? 'in_progress' : done ? 'completed' : 'pending',
      }));
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: `c${i}`, type: 'function', function: { name: 'TodoWrite', arguments: JSON.stringify({ todos }) } },
        ],
      });
      return messages.push({ role: 'tool', tool_call_id: `c${i}`, content: 'Todos have been modified successfully.' });
    }
    const [name, args, output] =
      s.tool === 'bash'
        ? ['Bash', { command: s.command }, s.ok === false ? `${s.output}\nExit code ${s.exit ?? 1}` : s.output]
        : s.tool === 'read'
          ? ['Read', { file_path: s.path }, s.output]
          : s.tool === 'write'
            ? ['Write', { file_path: s.path, content: s.content }, `File created successfully at: ${s.path}`]
            : [
                'Edit',
                { file_path: s.path, old_string: s.old, new_string: s.new },
                `The file ${s.path} has been updated.`,
              ];
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `c${i}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
    });
    messages.push({ role: 'tool', tool_call_id: `c${i}`, content: s.result ?? output });
  });
  return JSON.stringify({ messages });
}

/** SWE-agent trajectory: `<function=…>` actions in assistant text, `OBSERVATION:` user messages, the task as the first user message. */
export function sweAgent(steps: readonly Step[]): string {
  const history: Array<Record<string, unknown>> = [
    { role: 'system', content: 'You are a helpful assistant.', agent: 'main', message_type: 'system_prompt' },
  ];
  steps.forEach((s) => {
    if ('plan' in s) return;
    if ('user' in s)
      return history.push({
        role: 'user',
        content: `<uploaded_files>\n/testbed\n</uploaded_files>\nI've uploaded a python code repository in the directory /testbed. Consider the following PR description:\n\n<pr_description>\n${s.user}\n</pr_description>\n\nCan you help me implement the necessary changes?`,
        agent: 'main',
        message_type: 'observation',
      });
    if ('say' in s) return history.push({ role: 'assistant', content: s.say, agent: 'main', message_type: 'action' });
    if ('done' in s) {
      history.push({
        role: 'assistant',
        content: `${s.done}\n\n<function=submit>\n</function>`,
        agent: 'main',
        message_type: 'action',
      });
      return history.push({
        role: 'user',
        content:
          'OBSERVATION:\ndiff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2',
        agent: 'main',
        message_type: 'observation',
      });
    }
    const [fn, params, output] =
      s.tool === 'bash'
        ? ['bash', { command: s.command }, s.output]
        : s.tool === 'read'
          ? [
              'str_replace_editor',
              { command: 'view', path: s.path },
              `Here's the result of running \`cat -n\` on ${s.path}:\n${s.output}`,
            ]
          : s.tool === 'write'
            ? [
                'str_replace_editor',
                { command: 'create', path: s.path, file_text: s.content },
                `File created successfully at: ${s.path}`,
              ]
            : [
                'str_replace_editor',
                { command: 'str_replace', path: s.path, old_str: s.old, new_str: s.new },
                `The file ${s.path} has been edited. Here's the result of running \`cat -n\` on a snippet of ${s.path}:\n     1\t${s.new}\nReview the changes and make sure they are as expected.`,
              ];
    const body = Object.entries(params)
      .map(([k, v]) => `<parameter=${k}>${v}</parameter>`)
      .join('\n');
    history.push({
      role: 'assistant',
      content: `Next.\n\n<function=${fn}>\n${body}\n</function>`,
      agent: 'main',
      message_type: 'action',
    });
    history.push({
      role: 'user',
      content: `OBSERVATION:\n${s.result ?? output}`,
      agent: 'main',
      message_type: 'observation',
    });
  });
  return JSON.stringify({ trajectory: [], history, info: { exit_status: 'submitted' } }, null, 2);
}

/** OpenHands V1 event list: `str_replace_editor`, `terminal` and `task_tracker` actions, observations with `is_error`. */
export function openhands(steps: readonly Step[]): string {
  const events: Array<Record<string, unknown>> = [];
  steps.forEach((s, i) => {
    if ('plan' in s) {
      // The agent's to-do list: `task_tracker` with the `plan` command writes the whole list.
      const task_list = s.plan.map(([title, done]) => ({
        title,
        notes: '',
        status: done === 'in progress' ? 'in_progress' : done ? 'done' : 'todo',
      }));
      const args = { command: 'plan', task_list };
      events.push({
        id: `a${i}`,
        source: 'agent',
        kind: 'ActionEvent',
        thought: [],
        tool_name: 'task_tracker',
        tool_call_id: `t${i}`,
        tool_call: { id: `t${i}`, name: 'task_tracker', arguments: JSON.stringify(args) },
        llm_response_id: `r${i}`,
      });
      return events.push({
        id: `o${i}`,
        source: 'environment',
        kind: 'ObservationEvent',
        tool_name: 'task_tracker',
        tool_call_id: `t${i}`,
        action_id: `a${i}`,
        observation: {
          content: [{ type: 'text', text: `Task list has been updated with ${task_list.length} item(s).` }],
          is_error: false,
        },
      });
    }
    if ('user' in s)
      return events.push({
        id: `e${i}`,
        source: 'user',
        kind: 'MessageEvent',
        llm_message: { role: 'user', content: [{ type: 'text', text: s.user }] },
      });
    if ('say' in s)
      return events.push({
        id: `e${i}`,
        source: 'agent',
        kind: 'MessageEvent',
        llm_message: { role: 'assistant', content: [{ type: 'text', text: s.say }] },
      });
    if ('done' in s) {
      events.push({
        id: `a${i}`,
        source: 'agent',
        kind: 'ActionEvent',
        thought: s.lead ? [{ type: 'text', text: s.lead }] : [],
        tool_name: 'finish',
        tool_call_id: `t${i}`,
        tool_call: { id: `t${i}`, name: 'finish', arguments: JSON.stringify({ message: s.done }) },
        llm_response_id: `r${i}`,
      });
      return events.push({
        id: `o${i}`,
        source: 'environment',
        kind: 'ObservationEvent',
        tool_name: 'finish',
        tool_call_id: `t${i}`,
        action_id: `a${i}`,
        observation: { content: [{ type: 'text', text: s.done }], is_error: false },
      });
    }
    const [name, args, output, failed] =
      s.tool === 'bash'
        ? ['terminal', { command: s.command }, s.output, s.ok === false]
        : s.tool === 'read'
          ? ['str_replace_editor', { command: 'view', path: s.path }, s.output, false]
          : s.tool === 'write'
            ? [
                'str_replace_editor',
                { command: 'create', path: s.path, file_text: s.content },
                `File created successfully at: ${s.path}`,
                false,
              ]
            : [
                'str_replace_editor',
                { command: 'str_replace', path: s.path, old_str: s.old, new_str: s.new },
                `The file ${s.path} has been edited.`,
                false,
              ];
    events.push({
      id: `a${i}`,
      source: 'agent',
      kind: 'ActionEvent',
      thought: [],
      tool_name: name,
      tool_call_id: `t${i}`,
      tool_call: { id: `t${i}`, name, arguments: JSON.stringify(args) },
      llm_response_id: `r${i}`,
    });
    events.push({
      id: `o${i}`,
      source: 'environment',
      kind: 'ObservationEvent',
      tool_name: name,
      tool_call_id: `t${i}`,
      action_id: `a${i}`,
      observation: {
        content: [{ type: 'text', text: s.result ?? output }],
        is_error: failed || (s.ok === false && s.result !== undefined),
        // A terminal states its exit status as OpenHands does: `is_error` stays false, the status is
        // in `exit_code` and in a suffix the agent was shown.
        ...('exit' in s && s.exit !== undefined && s.tool === 'bash'
          ? {
              is_error: false,
              exit_code: s.exit,
              metadata: { exit_code: s.exit, suffix: `\n[The command completed with exit code ${s.exit}.]` },
            }
          : {}),
      },
    });
  });
  return JSON.stringify(events);
}

/**
 * Aider `.aider.chat.history.md`: `#### ` user lines; edits as SEARCH/REPLACE blocks (an empty
 * SEARCH creates the file) followed by "Applied edit to" (not for a step with `ok` false: a proposal
 * Aider did not apply); commands and reads have no tool calls in
 * Aider, so they become plain assistant text.
 */
export function aider(steps: readonly Step[]): string {
  const out = ['', '# aider chat started at 2026-02-24 16:53:06', '', '> Model: m with diff edit format  ', ''];
  for (const step of steps) {
    const s = plain(step);
    if ('plan' in s) continue;
    if ('user' in s) out.push(...s.user.split('\n').map((l) => `#### ${l}  `), '');
    else if ('say' in s) out.push(s.say, '');
    else if (s.tool === 'write' || s.tool === 'edit') {
      const [search, replace] = s.tool === 'write' ? ['', s.content] : [s.old, s.new];
      out.push(
        s.path,
        '```',
        '<<<<<<< SEARCH',
        ...(search ? [search] : []),
        '=======',
        replace,
        '>>>>>>> REPLACE',
        '```',
        '',
      );
      // Aider prints the notice only for an edit it applied (`ok` false: a proposal it did not apply).
      if (s.ok !== false) out.push(`> Applied edit to ${s.path}  `, '');
    } else if (s.tool === 'bash') out.push(`Run \`${s.command}\`.`, '', '```', s.output, '```', '');
    else out.push(`Looking at ${s.path}.`, '');
  }
  return out.join('\n');
}

/** The recording writers by format, with the file name each is detected by. */
export const WRITERS = {
  'claude-code': { write: claudeCode, file: 'session.jsonl' },
  codex: { write: codex, file: 'rollout-2025-11-17T15-30-28-x.jsonl' },
  cline: { write: cline, file: 'api_conversation_history.json' },
  'openai-chat': { write: openaiChat, file: 'trajectory.json' },
  'swe-agent': { write: sweAgent, file: 'x.traj' },
  openhands: { write: openhands, file: 'events.json' },
} as const;

/** Every writer, Aider's included (Aider records no tool calls: no commands, outcomes or reads). */
export const ALL_WRITERS = { ...WRITERS, aider: { write: aider, file: '.aider.chat.history.md' } } as const;

const meter = new TokenMeter({ counter: quarterCounter });

/**
 * Compacts `items` with the extractive summarizer the way the command line does (manual, forced), in
 * a window of `window` tokens (default: a little over the items' size, so that the target, half the
 * window, makes the summary replace most of them). Counts are characters / 4.
 */
export function compactExtractive(items: ContextItem[], window?: number): Promise<CompactionResult> {
  window ??= Math.ceil(1.25 * items.reduce((n, i) => n + meter.countMessage(i.message), 0));
  return compact({
    items,
    meter,
    summarizer: new ExtractiveSummarizer((s) => meter.countText(s)),
    options: {
      budget: { contextWindow: window, reservedOutput: 0, compactAt: 0.8, compactTo: 0.5 },
      trigger: 'manual',
      force: true,
    },
  });
}

/**
 * A window `factor` times the tokens of the recording `text` (named `file`), counted as
 * {@link compactExtractive} counts them: `compactExtractive`'s default is 1.25, where the summary's
 * room is small; a larger factor leaves room for what a test reads beside the sections.
 */
export function windowFor(text: string, file: string, factor: number): number {
  const items = itemsFromEntries(importTranscriptTextSync(text, file).entries);
  return Math.ceil(factor * items.reduce((n, i) => n + meter.countMessage(i.message), 0));
}

/**
 * Imports `text` (named `file`) and compacts it with {@link compactExtractive}. Returns the
 * summary's text, the imported format and the context's texts. Throws when no summary was written.
 */
export async function summaryOf(
  text: string,
  file: string,
  window?: number,
): Promise<{ summary: string; format: string; context: string[] }> {
  const t = importTranscriptTextSync(text, file);
  const r = await compactExtractive(itemsFromEntries(t.entries), window);
  const summary = r.context.find((i) => i.kind === 'summary');
  if (!summary) throw new Error(`${t.format}: no summary was written (${describeCompaction(r.status)})`);
  return {
    summary: textWithPlaceholders(summary.message.content),
    format: t.format,
    context: r.context.map((i) => textWithPlaceholders(i.message.content)),
  };
}

/** The lines under a summary's `## <heading>` line, up to the blank line that ends the section ('' when absent). */
export function sectionOf(summary: string, heading: string): string {
  const at = summary.indexOf(`## ${heading}`);
  if (at < 0) return '';
  const body = summary.indexOf('\n', at);
  if (body < 0) return '';
  const end = summary.indexOf('\n\n', body + 1);
  return summary.slice(body + 1, end < 0 ? undefined : end);
}

/**
 * A chained compaction: the recording of `first` (written by `write`, named `file`) is summarised by
 * the extractive notes in `firstTokens` tokens (default 8,000: room for every section), closed by
 * the pointer line the compactor ends a summary with (checkpoint `cp-first`), that summary stands for
 * those messages, the steps `then` follow it, and the whole is compacted with
 * {@link compactExtractive} in a window of `window` tokens. Returns the first summary's text and the
 * second's, which read the first. Throws when the second compaction wrote no summary.
 */
export async function chainedSummaries(
  write: (steps: readonly Step[]) => string,
  file: string,
  first: readonly Step[],
  then: readonly Step[],
  window?: number,
  firstTokens = 8000,
): Promise<{ first: string; second: string }> {
  const before = itemsFromEntries(importTranscriptTextSync(write(first), file).entries);
  const all = itemsFromEntries(importTranscriptTextSync(write([...first, ...then]), file).entries);
  const notes = new ExtractiveSummarizer((s) => meter.countText(s)).notes(before, firstTokens);
  const text = `${notes}\n\n${recallPointer('cp-first', before.length)}`;
  const earlier: ContextItem = {
    id: 'cp~s',
    kind: 'summary',
    message: { role: 'user', content: text },
    covers: before.map((i) => i.id),
    checkpointId: 'cp',
  };
  const r = await compactExtractive([earlier, ...all.slice(before.length)], window);
  const s = r.context.find((i) => i.kind === 'summary' && i !== earlier);
  if (!s) throw new Error(`no second summary (${describeCompaction(r.status)})`);
  return { first: text, second: textWithPlaceholders(s.message.content) };
}
