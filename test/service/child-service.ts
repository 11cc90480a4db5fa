/**
 * A context service in a child process, for the crash tests: opens the session named by the
 * environment, runs one task against the loopback model at CK_CHILD_BASE_URL and prints
 * `ack <entry id> <role>` once each entry is on disk. Does nothing unless CK_CHILD_SERVICE is set
 * (the test runner loads every file under test/).
 */
import OpenAI from 'openai';
import { ContextService } from '../../src/service/service';
import { NodeToolHost } from '../../src/agent/node-host';

async function main(): Promise<void> {
  const env = process.env;
  const service = await ContextService.open({
    client: new OpenAI({ baseURL: env.CK_CHILD_BASE_URL!, apiKey: 'test-key', maxRetries: 0, timeout: 30_000 }),
    model: 'gpt-4o',
    budget: { contextWindow: 64_000, reservedOutput: 1_000, compactAt: 0.8, compactTo: 0.5 },
    host: new NodeToolHost(env.CK_CHILD_ROOT!),
    storageDir: env.CK_CHILD_STORAGE!,
    sessionId: env.CK_CHILD_SESSION!,
    systemPrompt: 'You are a test agent.',
    autoApprove: { edits: true, commands: true },
    prepareAheadMargin: 0,
    tokenCounter: { encoding: 'o200k_base', countText: (t) => Math.ceil(t.length / 4) },
    log: () => {},
  });
  service.onDidAppendEntry(({ entry }) => process.stdout.write(`ack ${entry.id} ${entry.message.role}\n`));
  process.stdout.write('open\n');
  await service.runTask(env.CK_CHILD_TASK ?? 'go');
  process.stdout.write('done\n');
}

if (process.env.CK_CHILD_SERVICE) void main();
