import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { start } from '../../src/demo/modelserver/wire';
import {
  chunked,
  malformedSse,
  reset,
  scripted,
  stall,
  status,
  text,
  toolCalls,
} from '../../src/demo/modelserver/replies';

function client(url: string, extra: Partial<ConstructorParameters<typeof OpenAI>[0]> = {}): OpenAI {
  return new OpenAI({ baseURL: url, apiKey: 'test-key', maxRetries: 0, timeout: 2000, logLevel: 'off', ...extra });
}

test('model server answers JSON and streamed completions with usage', async () => {
  const server = await start({ responder: scripted([text('hello there'), chunked(['a', 'b', 'c'])]) });
  try {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const c = client(server.url);
    const r1 = await c.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r1.choices[0]?.message.content, 'hello there');
    assert.equal(r1.choices[0]?.finish_reason, 'stop');
    assert.ok((r1.usage?.prompt_tokens ?? 0) > 0);

    const stream = await c.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const deltas: string[] = [];
    let finish: string | null | undefined;
    let usage: unknown;
    for await (const part of stream) {
      const choice = part.choices[0];
      if (choice?.delta.content) deltas.push(choice.delta.content);
      if (choice?.finish_reason) finish = choice.finish_reason;
      if (part.usage) usage = part.usage;
    }
    assert.deepEqual(deltas, ['a', 'b', 'c']);
    assert.equal(finish, 'stop');
    assert.ok(usage);
    assert.equal(server.requests.length, 2);
    assert.equal(server.log[0]?.headers['authorization'], 'Bearer test-key');
  } finally {
    await server.close();
  }
});

test('model server sends tool calls, statuses with headers, and faults', async () => {
  const server = await start({
    responder: scripted([
      toolCalls([{ id: 'x', name: 'read_file', arguments: '{}' }]),
      status(429, 'slow down', 0),
      reset(['par']),
      malformedSse(['ok']),
      stall(),
    ]),
  });
  try {
    const c = client(server.url);
    const r = await c.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(r.choices[0]?.finish_reason, 'tool_calls');
    assert.equal(r.choices[0]?.message.tool_calls?.[0]?.id, 'x');

    await assert.rejects(
      c.chat.completions.create({ model: 'm', messages: [] }),
      (e: unknown) => e instanceof OpenAI.APIError && e.status === 429,
    );

    const broken = async (): Promise<void> => {
      const s = await c.chat.completions.create({ model: 'm', messages: [], stream: true });
      for await (const _ of s) void _;
    };
    await assert.rejects(broken());
    await assert.rejects(broken());
    await assert.rejects(
      client(server.url, { timeout: 200 }).chat.completions.create({ model: 'm', messages: [] }),
      (e: unknown) => e instanceof OpenAI.APIConnectionTimeoutError,
    );
    assert.equal(server.requests.length, 5);
  } finally {
    await server.close();
  }
});
