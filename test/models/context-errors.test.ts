/** Each provider's context-length error, as the `openai` client raises it from a loopback server. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { start } from '../../src/demo/modelserver/wire';
import type { Reply } from '../../src/demo/modelserver/wire';
import { contextLengthExceeded } from '../../src/demo/modelserver/replies';
import { contextOverflow } from '../../src/models/context-errors';

/** The error the client throws when the server answers `reply`. */
async function errorFor(reply: Reply): Promise<unknown> {
  const server = await start({ responder: () => reply });
  const client = new OpenAI({ baseURL: server.url, apiKey: 'k', maxRetries: 0, timeout: 5000 });
  try {
    await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await server.close();
  }
}

const shapes: Array<[string, Reply, { window?: number; promptTokens?: number }]> = [
  [
    'OpenAI context_length_exceeded',
    contextLengthExceeded(140_000, 128_000),
    { window: 128_000, promptTokens: 140_000 },
  ],
  [
    'vLLM BadRequestError',
    {
      type: 'status',
      status: 400,
      body: {
        error: {
          message:
            "This model's maximum context length is 16384 tokens. However, you requested 17001 tokens (16001 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
          type: 'BadRequestError',
          param: null,
          code: 400,
        },
      },
    },
    { window: 16384, promptTokens: 17001 },
  ],
  [
    'llama.cpp exceed_context_size_error',
    {
      type: 'status',
      status: 400,
      body: {
        error: {
          code: 400,
          message:
            'the request exceeds the available context size. try increasing the context size or enable context shift',
          type: 'exceed_context_size_error',
          n_prompt_tokens: 14429,
          n_ctx: 8192,
        },
      },
    },
    { window: 8192, promptTokens: 14429 },
  ],
  [
    'Ollama input exceeds context length',
    {
      type: 'status',
      status: 500,
      body: { error: { message: 'input exceeds context length', type: 'api_error', param: null, code: null } },
    },
    {},
  ],
  [
    'LM Studio overflow',
    {
      type: 'status',
      status: 400,
      body: {
        error:
          'Trying to keep the first 10136 tokens when context the overflows. However, the model is loaded with context length of only 7866 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input',
      },
    },
    { window: 7866, promptTokens: 10136 },
  ],
];

for (const [name, reply, expected] of shapes) {
  test(`recognized: ${name}`, async () => {
    const overflow = contextOverflow(await errorFor(reply));
    assert.ok(overflow, 'recognized as an overflow');
    assert.equal(overflow.window, expected.window);
    assert.equal(overflow.promptTokens, expected.promptTokens);
    assert.ok(overflow.message.length > 0);
  });
}

test('other errors are not overflows: rate limit by tokens per minute, server error, auth', async () => {
  const tpm = await errorFor({
    type: 'status',
    status: 429,
    message: 'Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Requested 40000.',
    code: 'rate_limit_exceeded',
  });
  assert.equal(contextOverflow(tpm), undefined);
  assert.equal(contextOverflow(await errorFor({ type: 'status', status: 500, message: 'internal error' })), undefined);
  assert.equal(
    contextOverflow(
      await errorFor({ type: 'status', status: 401, message: 'Incorrect API key provided', code: 'invalid_api_key' }),
    ),
    undefined,
  );
  assert.equal(contextOverflow(new Error('socket hang up')), undefined);
});

test("older vLLM's unwrapped error body (read from the HTTP body; the openai client drops it)", () => {
  const body = {
    object: 'error',
    message:
      "This model's maximum context length is 4096 tokens. However, you requested 4348 tokens (4332 in the messages, 16 in the completion).",
    type: 'invalid_request_error',
    param: null,
    code: null,
  };
  assert.deepEqual(contextOverflow(body), { message: body.message, window: 4096, promptTokens: 4348 });
});
