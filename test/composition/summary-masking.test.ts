/**
 * Which summarizers are sent the transcript masked: every one that is not the session's own model at
 * the session's own endpoint. Driven through the real service factory (typed `vscode` fake, loopback
 * summary endpoint, editor models from the Language Model API fake), and through the CLI's flags.
 */
import '../support/vscode-fake/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { chatModels, host, resetVscodeFake, workspace } from '../support/vscode-fake';
import { fakeExtensionContext } from '../support/vscode-fake/context';
import { FakeLogChannel } from '../support/vscode-fake/window-parts';
import { FakeChat, TextPart } from '../models/lm-fake';
import { createServiceFactory } from '../../src/composition/service-factory';
import { readSettings } from '../../src/settings/settings';
import { importTranscriptTextSync } from '../../src/transcripts';
import { summarizerFromFlags } from '../../src/summarizers/from-options';
import type { ChatMessage } from '../../src/compaction/types';

const TOKEN = 'ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
const SUMMARY = '## Objective\nDeploy.\n';

/** A loopback OpenAI-compatible endpoint that streams one summary and keeps every request body. */
async function summaryEndpoint(): Promise<{ url: string; bodies: string[]; server: Server }> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let b = '';
    req.on('data', (c: Buffer) => (b += c.toString()));
    req.on('end', () => {
      bodies.push(b);
      const chunk = (delta: object, finish: string | null) =>
        `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: SUMMARY }, null));
      res.write(chunk({}, 'stop'));
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, bodies, server };
}

/** A conversation whose tool output holds a GitHub token, long enough to compact. */
function conversation(): ChatMessage[] {
  const m: ChatMessage[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Deploy the service.' },
  ];
  for (let i = 0; i < 6; i++) {
    m.push({
      role: 'assistant',
      content: 'Checking the environment file before deploying. '.repeat(20),
      tool_calls: [
        { id: `c${i}`, type: 'function', function: { name: 'run_command', arguments: `{"command":"cat env${i}"}` } },
      ],
    });
    m.push({ role: 'tool', tool_call_id: `c${i}`, content: `GITHUB_TOKEN=${TOKEN}\n${'lorem ipsum '.repeat(100)}` });
  }
  m.push({ role: 'assistant', content: 'Done.' }, { role: 'user', content: 'Now check the logs.' });
  return m;
}

type Setup = {
  name: string;
  modelSource: 'vscode' | 'endpoint';
  /** The session's endpoint setting: 'summary' = the summary endpoint's URL. */
  baseUrl: 'summary' | 'elsewhere';
  summaryBaseUrl: 'summary' | '';
  summaryModel: string;
  masked: boolean;
};

const setups: Setup[] = [
  {
    name: 'an editor-model session whose summary URL equals a leftover endpoint setting',
    modelSource: 'vscode',
    baseUrl: 'summary',
    summaryBaseUrl: 'summary',
    summaryModel: 'gpt-4o-mini',
    masked: true,
  },
  {
    name: "an editor-model session whose summary model is another vendor's editor model",
    modelSource: 'vscode',
    baseUrl: 'elsewhere',
    summaryBaseUrl: '',
    summaryModel: 'othervendor/claude-sonnet-4',
    masked: true,
  },
  {
    name: 'an endpoint session summarizing at another endpoint',
    modelSource: 'endpoint',
    baseUrl: 'elsewhere',
    summaryBaseUrl: 'summary',
    summaryModel: 'gpt-4o-mini',
    masked: true,
  },
  {
    name: 'an endpoint session whose summary model is another model at its own endpoint',
    modelSource: 'endpoint',
    baseUrl: 'summary',
    summaryBaseUrl: '',
    summaryModel: 'gpt-4o-mini',
    masked: true,
  },
  {
    name: 'an endpoint session summarizing with its own model at its own endpoint',
    modelSource: 'endpoint',
    baseUrl: 'summary',
    summaryBaseUrl: 'summary',
    summaryModel: 'gpt-4o',
    masked: false,
  },
];

for (const setup of setups) {
  test(`${setup.name}: the summarizer is sent the credentials ${setup.masked ? 'masked' : 'as they are (it has seen them)'}`, async (t) => {
    const endpoint = await summaryEndpoint();
    t.after(() => endpoint.server.close());
    resetVscodeFake();
    const other = new FakeChat(
      'other-claude',
      'claude-sonnet-4',
      90_000,
      [{ parts: [new TextPart(SUMMARY)] }],
      'othervendor',
    );
    chatModels.push(new FakeChat('copilot-gpt-4o', 'gpt-4o', 63_000, [{ parts: [] }]), other);
    const url = (which: string) =>
      which === 'summary' ? endpoint.url : which === 'elsewhere' ? 'http://127.0.0.1:9/v1' : '';
    host.setSetting('contextKeeper.modelSource', setup.modelSource);
    host.setSetting('contextKeeper.model', 'gpt-4o');
    host.setSetting('contextKeeper.baseUrl', url(setup.baseUrl));
    host.setSetting('contextKeeper.contextWindow', 63_000);
    host.setSetting('contextKeeper.summary.baseUrl', url(setup.summaryBaseUrl));
    host.setSetting('contextKeeper.summary.model', setup.summaryModel);
    host.setSetting('contextKeeper.summary.contextWindow', 128_000);
    const context = fakeExtensionContext(mkdtempSync(path.join(tmpdir(), 'ck-mask-')));
    const factory = createServiceFactory(context, new FakeLogChannel('ck'));
    const service = await factory({
      settings: readSettings(workspace.getConfiguration('contextKeeper')),
      apiKey: 'sk-test-key-1234567890',
      sessionId: undefined,
    });
    t.after(() => service.dispose());
    await service.importTranscript(importTranscriptTextSync(JSON.stringify(conversation()), 'session.json') as never);
    const outcome = await service.compactNow();
    assert.equal(outcome.status.kind, 'applied');
    const sent = endpoint.bodies.join('\n') + JSON.stringify(other.requests.map((r) => r.messages));
    assert.ok(endpoint.bodies.length + other.requests.length > 0, 'the model summarizer was asked');
    assert.equal(sent.includes(TOKEN), !setup.masked, 'the token in clear');
    if (setup.masked) assert.match(sent, /\[masked GitHub token\]/);
  });
}

test("the CLI's model summarizer masks credentials from tool output in what it sends", async (t) => {
  const endpoint = await summaryEndpoint();
  t.after(() => endpoint.server.close());
  const summarizer = summarizerFromFlags(
    { summarizer: 'openai', baseUrl: endpoint.url, summaryModel: 'gpt-4o-mini', summaryWindow: 128_000 },
    (text) => Math.ceil(text.length / 4),
    {},
  );
  const items = conversation().map((message, i) => ({ id: `e${i}`, kind: 'raw' as const, message, covers: [`e${i}`] }));
  // Only what was sent matters here (the scripted reply is too short to pass the summary checks).
  await summarizer
    .summarize({
      items,
      userRequests: ['Deploy the service.'],
      approximateSummaryTokens: 500,
      maxCalls: 1,
    })
    .catch(() => undefined);
  assert.ok(endpoint.bodies.length > 0);
  const sent = endpoint.bodies.join('\n');
  assert.ok(!sent.includes(TOKEN), 'the token reached the summary endpoint');
  assert.match(sent, /\[masked GitHub token\]/);
});
