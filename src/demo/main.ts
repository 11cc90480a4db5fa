/**
 * `npm run demo`: a real agent task end to end without an API key.
 *
 * The real context service, agent session, workspace tools and `openai` client run against a
 * scripted OpenAI-compatible server on 127.0.0.1 (see `script.ts`) with a small context window, so
 * automatic compaction fires during the task. Prints the gauge before every model call, each
 * checkpoint, and the totals; leaves the session folder for inspection.
 *
 * Options: --window N (tokens, default 16000), --storage DIR (default: the OS temp folder),
 * --root DIR (workspace, default: this repository), --export FILE (writes the raw transcript as an
 * OpenAI chat file, the input of `npm run demo:replay`).
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import OpenAI from 'openai';
import { TokenMeter } from '../compaction/meter/meter';
import { NodeToolHost } from '../agent/node-host';
import { start } from './modelserver/wire';
import { ContextService } from '../service/service';
import type { ApprovalRequest } from '../agent/types';
import { DEMO_FOCUS, DEMO_TASKS, demoResponder } from './script';
import { checkpointLine, checkReached, compactionsLine, DemoError, firstLine, gaugeLine } from './print';
import { formatTokensFull, plural } from '../format/tokens';
import { GAUGE_LEGEND } from '../cli/format';
import { describeOutcome } from '../service/compaction/outcome';

const MODEL = 'scripted-coder';

interface DemoArgs {
  window: number;
  storage: string;
  root: string;
  export?: string;
}

function parseArgs(argv: string[]): DemoArgs {
  const args: DemoArgs = {
    window: 16_000,
    storage: path.join(tmpdir(), 'context-keeper-demo'),
    root: path.resolve(__dirname, '..'),
  };
  for (let i = 0; i < argv.length; i++) {
    const value = argv[i + 1];
    if (argv[i] === '--window' && value) args.window = Number(value);
    else if (argv[i] === '--storage' && value) args.storage = path.resolve(value);
    else if (argv[i] === '--root' && value) args.root = path.resolve(value);
    else if (argv[i] === '--export' && value) args.export = path.resolve(value);
    else continue;
    i++;
  }
  if (!Number.isInteger(args.window) || args.window < 4_000)
    throw new Error(`--window must be a whole number of tokens of at least 4000, got ${args.window}`);
  return args;
}

/** Commands the demo lets the scripted agent run: read-only listings only. */
const READ_ONLY_COMMAND = /^(ls|wc|cat|head|tail|grep)(\s|$)[^;|&`$<>]*(&&\s*(ls|wc)\s[^;|&`$<>]*)?$/;

async function approve(request: ApprovalRequest): Promise<boolean> {
  if (request.kind === 'command') {
    const ok = READ_ONLY_COMMAND.test(request.command ?? '');
    console.log(`    ${ok ? 'approved' : 'declined'} (demo policy: read-only commands only): ${request.command}`);
    return ok;
  }
  console.log(`    proposed edit of ${request.path} — declined by the demo so the repository stays unchanged:`);
  for (const line of request.detail.split('\n').slice(0, 8)) console.log(`      ${line}`);
  return false;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  console.log('ContextKeeper demo. The model is SCRIPTED: a loopback server on 127.0.0.1 plays a fixed coding');
  console.log('task; no API key, no network. Everything else is real: context service, agent loop, workspace');
  console.log(`tools over ${args.root}, the openai client, the token meter and compaction.`);
  console.log(
    `Context window ${formatTokensFull(args.window)} tokens; compaction at 80% of the input budget, down to 50%.`,
  );
  console.log(`${GAUGE_LEGEND}.\n`);

  const meter = new TokenMeter({ model: MODEL });
  const server = await start({ responder: demoResponder(args.root, meter) });
  const client = new OpenAI({ baseURL: server.url, apiKey: 'not-needed-scripted-model', maxRetries: 0 });
  const service = await ContextService.open({
    client,
    model: MODEL,
    budget: { contextWindow: args.window, reservedOutput: 2_000, compactAt: 0.8, compactTo: 0.5 },
    host: new NodeToolHost(args.root),
    storageDir: args.storage,
    approve: (request) => approve(request),
    log: (level, message) => {
      if (level === 'warn' || level === 'error') console.log(`    [${level}] ${message}`);
    },
  });

  let call = 0;
  service.onDidChangeState((s) => {
    // One line per model call: the service also shows "streaming" between the calls of a task.
    if (s.state === 'streaming' && s.detail !== 'between model calls')
      console.log(gaugeLine(`call ${String(++call).padStart(2)}`, service.getBudget()));
  });
  service.onDidAddCheckpoint((cp) => console.log(checkpointLine(cp)));
  service.onDidAppendEntry(({ entry }) => {
    const m = entry.message;
    if (m.role === 'assistant') {
      if (typeof m.content === 'string' && m.content) console.log(`    assistant: ${firstLine(m.content)}`);
      for (const c of m.tool_calls ?? [])
        if (c.type === 'function') console.log(`    -> ${c.function.name} ${firstLine(c.function.arguments, 80)}`);
    }
  });
  service.onDidFinishToolCall((r) =>
    console.log(`    <- ${r.name} ${r.ok ? 'ok' : 'not ok'}, ${formatTokensFull(r.size)} characters`),
  );

  try {
    for (const [k, task] of DEMO_TASKS.entries()) {
      console.log(`\nuser (task ${k + 1}): ${task}\n`);
      const outcome = await service.runTask(task);
      checkReached(outcome, k + 1, server.url);
      console.log(
        `\n  task ${k + 1} ${outcome.status}: ${plural(outcome.modelCalls, 'model call', 'model calls')}, ${plural(outcome.toolCalls, 'tool call', 'tool calls')}, ${plural(outcome.compactions, 'automatic checkpoint', 'automatic checkpoints')}`,
      );
      if (outcome.error) console.log(`  error: ${outcome.error}`);
      console.log(`  answer: ${outcome.finalText}`);
      if (k === 1) {
        // What the "Compact Conversation" command does: a manual compaction with focus instructions.
        console.log(`\nmanual compaction (focus: "${DEMO_FOCUS}")`);
        const compacted = await service.compactNow({ focus: DEMO_FOCUS });
        console.log(
          `  ${compacted.status.kind === 'applied' ? 'applied' : 'not applied'}: ${describeOutcome(compacted.status)}`,
        );
        console.log(gaugeLine('after  ', service.getBudget()));
      }
    }
    await service.whenIdle();
    printTotals(service, args.window);
    if (args.export) {
      const raw = {
        format: 'openai-chat',
        model: MODEL,
        tools: service.getToolSchemas(),
        messages: service.getTranscript().entries.map((e) => e.message),
      };
      writeFileSync(args.export, `${JSON.stringify(raw, null, 1)}\n`);
      console.log(`Raw transcript written to ${args.export}`);
    }
  } finally {
    service.dispose();
    await server.close();
  }
}

function printTotals(service: ContextService, window: number): void {
  const stats = service.getStats();
  const sent = stats.modelCalls.reduce((s, c) => s + c.reportedPromptTokens, 0);
  const without = stats.modelCalls.reduce((s, c) => s + c.withoutCompactionTokens, 0);
  const largest = stats.modelCalls.reduce((m, c) => Math.max(m, c.reportedPromptTokens), 0);
  const largestWithout = stats.modelCalls.reduce((m, c) => Math.max(m, c.withoutCompactionTokens), 0);
  const checkpoints = service.getCheckpoints();
  console.log('\nTotals');
  console.log(`  model calls:              ${stats.modelCalls.length}`);
  console.log(`  compactions:              ${compactionsLine(stats.compaction, checkpoints)}`);
  for (const cp of checkpoints)
    console.log(
      `    ${cp.id}: ${formatTokensFull(cp.tokensBefore)} -> ${formatTokensFull(cp.tokensAfter)} tokens (${cp.trigger}, ${cp.strategy})`,
    );
  console.log(
    `  prepared ahead:           ${stats.compaction.preparedUsed} used at the trigger, ${stats.compaction.preparedDiscarded} discarded`,
  );
  console.log(`  prompt tokens sent:       ${formatTokensFull(sent)} (as reported by the server)`);
  console.log(
    `  without compaction:       ${formatTokensFull(without)} (the same requests with nothing compacted, counted by the meter)`,
  );
  console.log(
    `  saved:                    ${formatTokensFull(without - sent)} tokens (${Math.round(((without - sent) / Math.max(1, without)) * 100)}%)`,
  );
  console.log(
    `  largest request:          ${formatTokensFull(largest)} tokens; without compaction ${formatTokensFull(largestWithout)}${largestWithout > window ? ` — over the ${formatTokensFull(window)}-token window` : ''}`,
  );
  console.log(`\nSession folder (transcript.jsonl, state.json): ${service.sessionDir}`);
}

main().catch((error: unknown) => {
  const text =
    error instanceof DemoError
      ? error.message
      : error instanceof Error
        ? (error.stack ?? error.message)
        : String(error);
  console.error(`demo failed: ${text}`);
  process.exitCode = 1;
});
