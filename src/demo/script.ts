/**
 * The scripted model of the demo: a fixed, plausible coding task over this repository's own files,
 * played by a responder for the loopback model server. It is not a language model: each request gets
 * the next scripted reply, whatever the conversation says. Two user turns:
 *
 * 1. "Find where the compaction thresholds are computed and propose a doc comment for the target
 *    fraction" — the agent looks around (list, find, search, read several files, run `ls` and `wc`)
 *    and proposes an edit (which the demo declines, so the repository is never changed).
 * 2. "Check how the context service uses them" — more reads, then a short answer.
 *
 * Reported usage (`usage.prompt_tokens`) is counted with the same tokenizer the meter uses, as a real
 * provider would report it for its own tokenizer.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ChatMessage, ContextItem, ToolSchema } from '../compaction/types';
import type { TokenMeter } from '../compaction/meter/meter';
import type { ChatRequestBody, Reply, ReplyToolCall, Responder } from './modelserver/wire';

/** The two user requests of the demo, in order. */
export const DEMO_TASKS = [
  'Find where the compaction thresholds (compactAt / compactTo) are computed, check how they are used, and propose a short doc comment that explains why compactTo sits well below compactAt.',
  'Now check how the context service and the budget gauge use those thresholds, and tell me if anything looks inconsistent.',
  'Last one: how does the extractive summarizer decide what to keep? Skim the relevant files and summarize.',
];

/** Focus instructions of the manual compaction the demo runs between tasks 2 and 3. */
export const DEMO_FOCUS = 'keep the file paths and the threshold defaults';

type Step = { say?: string; calls?: Array<[name: string, args: Record<string, unknown>]>; answer?: string };

/** Picks a line of `file` that contains `needle` (so a proposed edit matches the file as it is). */
function lineContaining(root: string, file: string, needle: string): string | undefined {
  try {
    return readFileSync(path.join(root, file), 'utf8')
      .split('\n')
      .find((l) => l.includes(needle));
  } catch {
    return undefined;
  }
}

/** The scripted steps of both tasks; the edit is built against the file on disk. */
function steps(root: string): Step[][] {
  const target = 'src/compaction/plan/budget.ts';
  const anchor =
    lineContaining(root, target, 'DEFAULT_COMPACT_TO') ?? lineContaining(root, target, 'compactTo') ?? 'export';
  return [
    [
      {
        say: "I'll start by getting my bearings in the repository.",
        calls: [
          ['list_directory', { path: '.' }],
          ['find_files', { pattern: 'src/compaction/*.ts' }],
        ],
      },
      {
        say: 'Let me find where compactAt and compactTo are used.',
        calls: [['search_text', { pattern: 'compactAt|compactTo', glob: 'src/**/*.ts', max_results: 40 }]],
      },
      {
        say: 'The thresholds are computed in budget.ts; reading it and the types.',
        calls: [
          ['read_file', { path: target }],
          ['read_file', { path: 'src/compaction/types.ts' }],
        ],
      },
      {
        say: 'Now the compactor, which consumes the thresholds.',
        calls: [['read_file', { path: 'src/compaction/rewrite/compactor.ts' }]],
      },
      {
        say: 'And the planner that picks what to summarize.',
        calls: [['read_file', { path: 'src/compaction/plan/planner.ts' }]],
      },
      {
        say: 'Checking the folder and file sizes.',
        calls: [['run_command', { command: 'ls src/compaction && wc -l src/compaction/*.ts' }]],
      },
      {
        say: 'Let me look at the meter, since the trigger compares against its reading.',
        calls: [['read_file', { path: 'src/compaction/meter/meter.ts' }]],
      },
      {
        say: 'I have enough context. Proposing the doc comment.',
        calls: [
          [
            'edit_file',
            {
              path: target,
              old_text: anchor,
              new_text: `/** Far below compactAt on purpose: one compaction then buys many turns, and the provider's prompt cache is invalidated seldom. */\n${anchor}`,
            },
          ],
        ],
      },
      {
        answer:
          'The thresholds are computed in `src/compaction/plan/budget.ts` (`thresholds()`), as fractions of the input budget (window minus reserved output). `compactTo` defaults to 0.5 against `compactAt` 0.8 so that one compaction buys many turns. I proposed a doc comment on the default; it was not applied.',
      },
    ],
    [
      {
        say: 'Looking at the service side.',
        calls: [['search_text', { pattern: 'thresholds\\(', glob: 'src/**/*.ts' }]],
      },
      {
        say: 'Reading the compaction coordinator.',
        calls: [['read_file', { path: 'src/service/compaction/compactions.ts' }]],
      },
      {
        say: 'And the gauge.',
        calls: [
          ['read_file', { path: 'src/service/meter/budget-view.ts' }],
          ['read_file', { path: 'src/service/api.ts', start_line: 1, end_line: 120 }],
        ],
      },
      {
        say: 'One more: the agent loop, to see when the check runs.',
        calls: [['read_file', { path: 'src/agent/session.ts' }]],
      },
      {
        answer:
          'The service reads the meter before every model call (the agent calls it at each safe point), fires at `triggerTokens` and aims at `targetTokens`; the gauge shows the same two numbers from the same `thresholds()` call, so they agree. Nothing inconsistent found.',
      },
    ],
    [
      {
        say: 'Finding the summarizer code.',
        calls: [
          ['find_files', { pattern: 'src/compaction/*.ts' }],
          ['search_text', { pattern: 'class ExtractiveSummarizer|export function analyze', glob: 'src/**/*.ts' }],
        ],
      },
      {
        say: 'Reading the extractive summarizer.',
        calls: [['read_file', { path: 'src/compaction/summary/extractive.ts' }]],
      },
      {
        say: 'It relies on the structure analysis; reading that too.',
        calls: [['read_file', { path: 'src/compaction/plan/structure.ts' }]],
      },
      {
        say: 'And the collapse tier and the post-summary checks.',
        calls: [
          ['read_file', { path: 'src/compaction/rewrite/collapse.ts' }],
          ['read_file', { path: 'src/compaction/summary/summary-checks.ts' }],
        ],
      },
      {
        say: 'Finally the identifier back-fill.',
        calls: [['read_file', { path: 'src/compaction/summary/identifiers/identifiers.ts' }]],
      },
      {
        answer:
          'The extractive summarizer needs no model: it walks the replaced span, keeps the user requests and constraints verbatim, records each tool call with its outcome, carries the latest task list and verification result, and cuts the least important lines first to fit its token budget; identifiers missing from the notes are appended verbatim afterwards.',
      },
    ],
  ];
}

/** Counts the prompt tokens of a request body with `meter` (what the demo server reports as usage). */
export function promptTokens(meter: TokenMeter, body: ChatRequestBody): number {
  const items: ContextItem[] = ((body.messages ?? []) as ChatMessage[]).map((message, i) => ({
    id: `q${i}`,
    kind: 'raw',
    message,
    covers: [`q${i}`],
  }));
  return meter.measure(items, (body.tools ?? []) as ToolSchema[]).total;
}

/**
 * A responder that plays the script. The task is recognised from the latest user request in the
 * request; the step is the number of requests made since that task began (counting requests rather
 * than messages keeps the script on track when compaction rewrites earlier steps).
 */
export function demoResponder(root: string, meter: TokenMeter): Responder {
  const script = steps(root);
  let callCounter = 0;
  let currentTask = -1;
  let stepIndex = 0;
  return (body) => {
    const messages = (body.messages ?? []) as ChatMessage[];
    const request = [...messages]
      .reverse()
      .find((m) => m.role === 'user' && typeof m.content === 'string' && DEMO_TASKS.includes(m.content));
    const task = request ? DEMO_TASKS.indexOf(request.content as string) : 0;
    if (task !== currentTask) {
      currentTask = task;
      stepIndex = 0;
    }
    const taskSteps = script[task];
    const step = taskSteps[Math.min(stepIndex++, taskSteps.length - 1)];
    const usage = { prompt_tokens: promptTokens(meter, body), completion_tokens: 60 };
    if (step.answer !== undefined) return { content: step.answer, usage, chunkDelayMs: 2 } satisfies Reply;
    const toolCalls: ReplyToolCall[] = (step.calls ?? []).map(([name, args]) => ({
      id: `call_${++callCounter}`,
      name,
      arguments: JSON.stringify(args),
    }));
    return { content: step.say ?? null, toolCalls, usage, chunkDelayMs: 2 } satisfies Reply;
  };
}
