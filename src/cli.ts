/**
 * ContextKeeper's command-line tool: the compaction core over recorded transcripts, no VS Code and
 * no API key needed (`meter`, `compact`, `replay`, `watch`, `sessions`, `recall`), and `mcp`, the same
 * recall offered to other agents as an MCP server over standard input and output.
 */
import path from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { compactCommand, meterCommand, replayCommand, type BudgetOptions } from './cli/commands';
import { heapPolicyFor } from './cli/heap';
import { parseCount, parseFraction, parseTokens } from './cli/options';
import { modelsCommand, type ModelsOptions } from './cli/models';
import { sessionsCommand, watchCommand } from './cli/watch';
import { parseRange, recallCommand, type RecallOptions } from './cli/recall';
import { version as VERSION } from '../package.json';

/** The smallest window the tool accepts, in tokens: below it no summary can fit beside a request. */
const MIN_WINDOW = 1000;

/** Hides credentials that an endpoint URL may carry (`https://user:secret@host`). */
export function redact(text: string): string {
  return text.replace(/(\/\/)[^/@\s:]+:[^/@\s]+@/g, '$1***@');
}

const out = (line: string) => process.stdout.write(redact(line) + '\n');
/** Warnings and notes beside the result: standard error, so standard output holds only the result. */
const note = (line: string) => process.stderr.write(redact(line) + '\n');

// `context-keeper … | head` closes the pipe early: stop quietly instead of a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

function budgetOptions(cmd: Command): Command {
  return cmd
    .requiredOption(
      '--window <tokens>',
      'the model context window, in tokens (e.g. 32000 or 32k; required)',
      parseTokens,
    )
    .option('--at <fraction>', 'compact when prompt tokens reach this fraction of the budget', parseFraction, 0.8)
    .option('--to <fraction>', 'compact down to this fraction of the budget', parseFraction, 0.5)
    .option(
      '--reserve <tokens>',
      'output tokens reserved for the reply; the budget is the window minus this (default: 0, since a recording already holds its replies)',
      parseTokens,
    )
    .option('--keep-steps <n>', 'newest agent steps never summarized', parseCount, 1)
    .option(
      '--user-budget <fraction>',
      "share of the compaction target for the user's typed requests kept verbatim, at most 20k tokens",
      parseFraction,
      0.25,
    )
    .option(
      '--summary-budget <fraction>',
      "share of the compaction target for a summary's notes and work-state ledger",
      parseFraction,
      0.25,
    )
    .addOption(
      new Option(
        '--summarizer <name>',
        'who writes summaries: extractive (no model) or openai (any OpenAI-compatible endpoint)',
      )
        .choices(['extractive', 'openai'])
        .default('extractive'),
    )
    .option(
      '--base-url <url>',
      'OpenAI-compatible endpoint for --summarizer openai (key from OPENAI_API_KEY or CONTEXT_KEEPER_API_KEY)',
    )
    .option('--summary-model <model>', 'model for --summarizer openai')
    .option('--summary-window <tokens>', "the summarizer model's own context window, in tokens", parseTokens)
    .option('--max-summary-calls <n>', 'model calls allowed per compaction (default: 4)', parseCount)
    .option(
      '--extractive-fallback',
      'when the --summarizer openai model fails, summarise without a model instead of leaving the conversation unchanged (the checkpoint says so, and why)',
    )
    .option('--model <model>', MODEL_HELP)
    .option('--json', 'print the report as JSON, with every repair and warning');
}

const MODEL_HELP =
  'model of the recorded session, which picks the tokenizer encoding (default: the recorded model, else gpt-4o; a name with no known encoding is counted with o200k_base, with a warning)';

/** What the exit codes mean, after each command's help. */
const EXIT_CODES = [
  '',
  'Exit codes: 0 done; 1 the result does not fit the budget, a compaction failed or',
  '(replay) an invariant check failed; 2 bad input or usage, said in one line that',
  'names the file, line and field.',
].join('\n');

/** Builds the program; exported for tests. */
export function program(): Command {
  const p = new Command('context-keeper')
    .description(
      "Meter, compact and replay recorded coding-agent sessions (Claude Code, Codex, Cline, OpenHands, SWE-agent, Aider, OpenAI chat messages, ContextKeeper's own transcripts), list an endpoint's models, and watch live Claude Code and Codex sessions.",
    )
    .exitOverride()
    .version(VERSION)
    .configureOutput({
      writeErr: (s) => process.stderr.write(s.startsWith('error: ') ? `context-keeper: ${s.slice(7)}` : s),
    });
  p.command('meter')
    .description('count the tokens of a recorded session by category')
    .argument('<file>', 'recorded transcript')
    .option('--model <model>', MODEL_HELP)
    .option('--json', 'print the report as JSON, with every repair and warning')
    .exitOverride()
    .action((file: string, o: { model?: string; json?: boolean }) => meterCommand(file, o, out, note));
  budgetOptions(
    p
      .command('compact')
      .summary('compact the conversation at the end of FILE now, down to --to of the budget')
      .description(
        'compact the conversation as it stands at the end of FILE now, whatever its level, down to --to of the budget: old tool results are collapsed first, then the oldest history is summarized, as an automatic compaction plans it. ' +
          'You asked for it, so its checkpoints are labelled "manual" and it also applies when the result stays above --at (an automatic compaction refuses then, as the next model call would compact again). ' +
          "The extension's Compact Conversation goes further: it summarizes everything eligible, even below the target.",
      )
      .argument('<file>', 'recorded transcript'),
  )
    .option('--out <file>', 'write the compacted conversation as JSON (messages, checkpoints, tokens)')
    .addHelpText('after', EXIT_CODES)
    .exitOverride()
    .action(
      (file: string, o: BudgetOptions & { out?: string }) => (
        checkBudgetOptions(o),
        compactCommand(file, o, out, note)
      ),
    );
  budgetOptions(
    p
      .command('replay')
      .description('play the recording message by message, compacting automatically as the agent would have')
      .argument('<file>', 'recorded transcript'),
  )
    .option(
      '--out <file>',
      'write the context as it stands after the whole replay as JSON (the shape of compact --out)',
    )
    .addHelpText('after', EXIT_CODES)
    .exitOverride()
    .action(
      (file: string, o: BudgetOptions & { out?: string }) => (checkBudgetOptions(o), replayCommand(file, o, out, note)),
    );
  p.command('recall')
    .summary('search or read what a recorded session holds, including what its own compactions replaced')
    .description(
      "search a recorded session's whole transcript for QUERY (a phrase, else all its words; case-insensitive), including the messages its agent's own compactions replaced (checkpoints import-1, import-2…), or read messages with --read. " +
        'Each result names the message number, id, who wrote it (user, assistant, tool result of a named tool) and the checkpoint that replaced it; credentials are masked; output is bounded. ' +
        'With neither QUERY nor --read: the recorded compactions and the messages each replaced.',
    )
    .argument('<file>', 'recorded transcript')
    .argument('[query]', 'text to find')
    .option('--checkpoint <id>', 'only the messages this checkpoint replaced (alone: read them)')
    .option('--read <from[-to]>', 'read messages FROM to TO (1-based, as search results number them)', parseRange)
    .option('--offset <chars>', 'characters of the first message to skip (to continue a long one)', parseCount)
    .option('--max-results <n>', 'at most this many results (at most 10)', parseCount)
    .option('--json', 'print the result as JSON')
    .exitOverride()
    .action((file: string, query: string | undefined, o: RecallOptions) => recallCommand(file, query, o, out));
  p.command('mcp')
    .summary(
      'MCP server over stdio: search and read the current Claude Code or Codex session, compacted parts included',
    )
    .description(
      'serve the tools search_history and read_history over standard input and output (the Model Context Protocol) on the newest Claude Code or Codex session file of a workspace, ' +
        "including what that agent's own compactions replaced. Read-only; output bounded and masked. Add it to Claude Code with `claude mcp add context-keeper -- context-keeper mcp --agent claude-code`; see docs/recall.md.",
    )
    .option('--workspace <dir>', 'the workspace folder whose sessions are read (default: the current folder)')
    .addOption(
      new Option('--agent <name>', "read only this agent's sessions (default: the newest of either)").choices([
        'claude-code',
        'codex',
      ]),
    )
    .option('--file <session>', 'read this session file instead of finding one')
    .exitOverride()
    .action(async (o: { workspace?: string; agent?: 'claude-code' | 'codex'; file?: string }) => {
      // The protocol library loads only for this command.
      const { serveRecall } = await import('./mcp/server.js');
      await serveRecall(
        { workspace: path.resolve(o.workspace ?? process.cwd()), agent: o.agent, file: o.file && path.resolve(o.file) },
        note,
      );
    });
  p.command('models')
    .description("list an endpoint's models with the context window each is served with")
    .requiredOption(
      '--base-url <url>',
      'the endpoint (required; for example http://127.0.0.1:11434/v1); key from CONTEXT_KEEPER_API_KEY or OPENAI_API_KEY',
    )
    .option('--model <model>', 'describe only this model')
    .option('--window <tokens>', 'use this window, in tokens, instead of the reported one (source "flag")', parseTokens)
    .option(
      '--json',
      'print JSON: an array of {id, window, trainedWindow, source, reason?}; notes go to standard error',
    )
    .exitOverride()
    .action((o: ModelsOptions) => modelsCommand(o, out, process.env, undefined, note));
  p.command('watch')
    .description('follow a Claude Code or Codex session file as it grows: one line per update')
    .argument('<file>', 'session JSONL file')
    .option('--json', 'print one JSON object per update')
    .option('--interval <ms>', 'polling interval in milliseconds, beside file events', parseCount, 250)
    .option(
      '--idle-exit <ms>',
      'stop after this many milliseconds without a change (default: run until interrupted)',
      parseCount,
    )
    .exitOverride()
    .action((file: string, o: { json?: boolean; interval: number; idleExit?: number }) =>
      watchCommand(file, { json: o.json, interval: o.interval, idleExitMs: o.idleExit }, out),
    );
  p.command('sessions')
    .description(
      'list the Claude Code and Codex sessions recorded for a workspace folder (default: the current folder)',
    )
    .argument('[dir]', 'workspace folder')
    .option('--folder <dir...>', 'more folders holding session files')
    .option('--json', 'print JSON: an array of {path, agent, size, lastActivity}')
    .exitOverride()
    .action((dir: string | undefined, o: { json?: boolean; folder?: string[] }) => sessionsCommand(dir, o, out));
  return p;
}

/** One line for an error: file-system errors name the file and say what went wrong. */
function describeError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e?.code && e.path) {
    const what =
      e.code === 'ENOENT'
        ? 'no such file'
        : e.code === 'EISDIR'
          ? 'it is a directory'
          : e.code === 'EACCES'
            ? 'permission denied'
            : e.code;
    return `cannot read ${e.path}: ${what}`;
  }
  return e?.message ?? String(err);
}

/** Checks options that depend on each other; throws Error naming them. */
function checkBudgetOptions(o: BudgetOptions): void {
  if (o.to >= o.at)
    throw new Error(`--to (${o.to}) must be below --at (${o.at}), or every model call would compact again`);
  if (o.window < MIN_WINDOW) throw new Error(`--window ${o.window} is too small: at least ${MIN_WINDOW} tokens`);
  if (o.reserve !== undefined && o.reserve >= o.window)
    throw new Error(`--reserve (${o.reserve}) must be below --window (${o.window})`);
}

async function main(argv: string[]): Promise<void> {
  try {
    await program().parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here with code 0; usage errors were already printed.
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    process.stderr.write(`context-keeper: ${redact(describeError(err)).split('\n')[0]}\n`);
    process.exitCode = 2;
  }
}

if (require.main === module) {
  heapPolicyFor(process.argv[2]);
  void main(process.argv);
}
