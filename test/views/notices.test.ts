/**
 * Notification texts after compaction and restore (each figure once, in the gauge's formatting).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ContextItem } from '../../src/compaction/types';
import {
  compactionNotice,
  compactionParts,
  connectionVerdict,
  editsNotInContext,
  endpointChosenNotice,
  modelErrorFixes,
  ERROR_NOTICE_MAX_CHARS,
  NOTICE_MAX_CHARS,
  restoreNotice,
  splitNotice,
} from '../../src/views/notices';
import { formatTokens, formatTokensFull } from '../../src/format/tokens';

const item = (kind: ContextItem['kind']): ContextItem => ({
  id: `i-${kind}`,
  kind,
  message: { role: 'user', content: 'x' },
  covers: ['e1'],
});

test('token figures read as on the gauge', () => {
  assert.equal(formatTokens(950), '950');
  assert.equal(formatTokens(5_123), '5.1k');
  assert.equal(formatTokens(11_900), '12k');
  assert.equal(formatTokens(1_050_000), '1.05M');
});

test('full token figures group thousands and round to whole tokens', () => {
  assert.equal(formatTokensFull(365_316), '365,316');
  assert.equal(formatTokensFull(999.6), '1,000');
  assert.equal(formatTokensFull(12), '12');
});

test('an applied compaction is announced with each figure once', () => {
  const text = compactionNotice({
    status: { kind: 'applied', tokensBefore: 11_900, tokensAfter: 3_800 } as never,
    tokensBefore: 11_900,
    tokensAfter: 3_800,
    checkpoints: [
      { inserted: [item('collapsed'), item('collapsed')], strategy: 'collapse' },
      { inserted: [item('summary')], strategy: 'summary' },
    ] as never,
  });
  assert.equal(text, 'ContextKeeper: compacted 12k → 3.8k tokens (2 tool results collapsed, 1 summary).');
  assert.equal(text.match(/→/g)?.length, 1);
});

test('a compaction the summary model failed says so and why, not just which summarizer wrote it', () => {
  const text = compactionNotice({
    status: { kind: 'applied', tokensBefore: 26_000, tokensAfter: 3_300 } as never,
    tokensBefore: 26_000,
    tokensAfter: 3_300,
    checkpoints: [
      {
        inserted: [item('summary')],
        strategy: 'extractive',
        coverage: {
          messages: 79,
          parts: [
            { first: 1, last: 3, writer: 'model', calls: 1 },
            {
              first: 4,
              last: 79,
              writer: 'extractive',
              calls: 0,
              reason: 'model-failed',
              failure: 'the summarizer answered with a tool call',
            },
          ],
        },
      },
    ] as never,
  });
  assert.equal(
    text,
    'ContextKeeper: compacted 26k → 3.3k tokens (1 summary); the summary model failed (the summarizer answered with a tool call), so 76 messages were summarised without a model.',
  );
});

test('a compaction not applied gives the sentence of its status, with the size only when the sentence lacks it', () => {
  assert.equal(
    compactionNotice({
      status: { kind: 'nothing-eligible', heldBy: ['latest user message'] } as never,
      tokensBefore: 5_100,
      tokensAfter: 5_100,
      checkpoints: [],
    }),
    'ContextKeeper: nothing to compact: all that is left is the latest user message (context 5.1k tokens).',
  );
  const withFigures = compactionNotice({
    status: { kind: 'not-needed', why: 'below-trigger', tokens: 1_200, limitTokens: 8_000 } as never,
    tokensBefore: 1_200,
    tokensAfter: 1_200,
    checkpoints: [],
  });
  assert.equal(withFigures, 'ContextKeeper: below the trigger: 1,200 of 8,000 tokens.');
  assert.equal(withFigures.match(/1,200|1\.2k/g)?.length, 1, withFigures);
});

test('compaction parts count collapsed results, summaries and clipped messages', () => {
  assert.equal(compactionParts([{ inserted: [item('clipped')], strategy: 'clip' }] as never), '1 message clipped');
  assert.equal(compactionParts([]), '');
});

test('the restore notice uses the gauge formatting', () => {
  assert.equal(
    restoreNotice(1, 2, 3_800, 11_900),
    'ContextKeeper: restored 1 compaction (2 steps); context 3.8k → 12k tokens.',
  );
  assert.equal(restoreNotice(2, 2, 3_800, 11_900), 'ContextKeeper: restored 2 compactions; context 3.8k → 12k tokens.');
  assert.doesNotMatch(restoreNotice(1, 1, 3_812, 11_934), /\d{4}/);
});

test('a failed Test Connection with no endpoint chosen names the default it tried and offers the fixes', () => {
  const verdict = connectionVerdict({ ok: false, lines: ['The test stopped: fetch failed'] }, 'endpoint', '', false);
  assert.match(
    verdict.text,
    /https:\/\/api\.openai\.com\/v1 \(OpenAI, the default: no endpoint chosen yet\): The test stopped: fetch failed/,
  );
  assert.deepEqual(verdict.actions, ['Choose Endpoint', 'Set API Key', 'Show Details']);
  const chosen = connectionVerdict(
    {
      ok: false,
      lines: ['Endpoint http://127.0.0.1:1234/v1: unknown', 'HTTP 401'],
      failure: { kind: 'auth', status: 401 },
    },
    'endpoint',
    'http://127.0.0.1:1234/v1',
    true,
  );
  assert.equal(
    chosen.text,
    'ContextKeeper: http://127.0.0.1:1234/v1 rejected the API key: HTTP 401',
    'what went wrong comes first',
  );
  const unreachable = connectionVerdict(
    { ok: false, lines: ['A test request to m failed: fetch failed'], failure: { kind: 'network' } },
    'endpoint',
    'http://127.0.0.1:19/v1',
    false,
  );
  assert.match(splitNotice(unreachable.text).short, /^ContextKeeper: nothing answers at http:\/\/127\.0\.0\.1:19\/v1/);
  assert.deepEqual(chosen.actions, ['Choose Endpoint', 'Set API Key', 'Show Details']);
});

test('Test Connection offers Set API Key from the typed failure, never from the words of the report', () => {
  const local = 'http://127.0.0.1:8000/v1';
  // A server error whose text mentions a key and 401: not a key problem.
  const server = connectionVerdict(
    {
      ok: false,
      lines: ['failed: cache key lookup failed (401 auth backend)'],
      failure: { kind: 'server', status: 500 },
    },
    'endpoint',
    local,
    true,
  );
  assert.deepEqual(server.actions, ['Choose Endpoint', 'Show Details']);
  // A rejected key whose text says nothing about keys: still Set API Key.
  const auth = connectionVerdict(
    { ok: false, lines: ['failed: forbidden'], failure: { kind: 'auth', status: 403 } },
    'endpoint',
    local,
    true,
  );
  assert.deepEqual(auth.actions, ['Choose Endpoint', 'Set API Key', 'Show Details']);
  // The model line is the one the test gave, not a line that happens to start with "Model ".
  const ok = connectionVerdict(
    { ok: true, lines: ['Model list: 3 entries', 'Model m: 32k tokens.'], modelLine: 'Model m: 32k tokens.' },
    'endpoint',
    local,
    true,
  );
  assert.equal(ok.text, `ContextKeeper: connection to ${local} works. Model m: 32k tokens.`);
});

test('model error fixes: Set API Key for a rejected key or a missing one, decided from the failure kind', () => {
  assert.deepEqual(modelErrorFixes({ kind: 'auth', status: 401 }, false), ['setApiKey', 'openSettings', 'showLog']);
  assert.deepEqual(modelErrorFixes({ kind: 'server', status: 500 }, false), ['openSettings', 'showLog']);
  assert.deepEqual(modelErrorFixes({ kind: 'network' }, true), ['setApiKey', 'openSettings', 'showLog']);
  assert.deepEqual(modelErrorFixes(undefined, false), ['openSettings', 'showLog']);
});

test('a working connection names the endpoint and the model line', () => {
  const verdict = connectionVerdict(
    {
      ok: true,
      lines: ['Endpoint http://h/v1: vLLM, 1 model.', 'Model m: 32k tokens.'],
      modelLine: 'Model m: 32k tokens.',
    },
    'endpoint',
    'http://h/v1',
    true,
  );
  assert.equal(verdict.text, 'ContextKeeper: connection to http://h/v1 works. Model m: 32k tokens.');
  assert.deepEqual(verdict.actions, ['Show Details']);
});

test('Choose Endpoint confirms where requests go', () => {
  assert.equal(
    endpointChosenNotice('http://127.0.0.1:11434/v1', 'qwen3'),
    'ContextKeeper: the agent now sends its requests to http://127.0.0.1:11434/v1, model qwen3.',
  );
  assert.equal(
    endpointChosenNotice('', undefined),
    'ContextKeeper: the agent now sends its requests to OpenAI (https://api.openai.com/v1).',
  );
});

test('long notifications are split into a short message and the whole text as detail, never cut mid-word', () => {
  const long =
    'ContextKeeper: nothing to compact: all that is left is the leading system messages, the latest user message, pinned messages and the recent agent steps kept verbatim (context 41k tokens).';
  const split = splitNotice(long);
  // A colon introduces the reason: the short message goes on past it.
  assert.equal(split.short, 'ContextKeeper: nothing to compact: all that is left is the leading system messages, the…');
  assert.equal(split.detail, long);
  // Every sentence the product writes fits once split: short, ends at a boundary, nothing lost.
  for (const text of [
    long,
    `ContextKeeper: ${'a'.repeat(40)} ${'b'.repeat(70)} c`,
    'ContextKeeper: cannot get below 99,200 tokens: at best 120,000; it is held by 80,000 tokens of pinned messages; a larger window would help',
  ]) {
    const { short, detail } = splitNotice(text);
    assert.ok(short.length <= NOTICE_MAX_CHARS + 1, `${short.length} characters: ${short}`);
    assert.equal(detail, text);
    const lastWord = short.replace(/[.…]$/, '').split(' ').at(-1)!;
    assert.ok(
      text.split(/[\s(]+/).some((w) => w.replace(/[.,;:]$/, '') === lastWord.replace(/[.,;:]$/, '')),
      `"${lastWord}" is a whole word of the text`,
    );
  }
  assert.deepEqual(splitNotice('ContextKeeper: compacted 12k → 3.8k tokens.'), {
    short: 'ContextKeeper: compacted 12k → 3.8k tokens.',
  });
});

test('a shortened notification never ends inside a parenthesis or quote', () => {
  const verdict = connectionVerdict(
    { ok: false, lines: ['fetch failed: getaddrinfo ENOTFOUND api.openai.com'] },
    'endpoint',
    '',
    false,
  );
  const { short, detail } = splitNotice(verdict.text);
  assert.equal(detail, verdict.text);
  // The bracket does not fit the toast whole, so the short message ends before it.
  assert.equal(short, 'ContextKeeper: connection problem with https://api.openai.com/v1…');
  for (const text of [
    `ContextKeeper: the summary (${'word '.repeat(30)}) was too long`,
    `ContextKeeper: quoted "${'x '.repeat(50)}" end`,
    `ContextKeeper: nothing left (context 41k tokens; ${'pinned '.repeat(20)}) and more text after it here.`,
  ]) {
    const cut = splitNotice(text).short;
    const depth = [...cut].reduce((d, ch) => d + (ch === '(' ? 1 : ch === ')' ? -1 : 0), 0);
    assert.equal(depth, 0, `brackets balanced in: ${cut}`);
    assert.equal((cut.match(/"/g) ?? []).length % 2, 0, `quotes closed in: ${cut}`);
    assert.ok(cut.length <= NOTICE_MAX_CHARS + 1, cut);
  }
});

test('a shortened notification never cuts inside an identifier, path, URL or model id', () => {
  const model = 'qwen2.5-coder:7b';
  const url = 'http://127.0.0.1:11434/v1/chat/completions';
  const path = '/home/user/projects/context-keeper/src/views/commands/session-commands.ts';
  const texts = [
    `ContextKeeper: ${model}: the model's window is not known to the server at ${url}, so 8,192 tokens are assumed.`,
    `ContextKeeper: could not read ${path} because the file was removed while the agent was working on it.`,
    `ContextKeeper: ${'x'.repeat(30)} ${url}${url} trailing words`,
    `ContextKeeper: ${url}${url}${url}`,
  ];
  for (const text of texts) {
    const { short } = splitNotice(text);
    const shown = short.replace(/[.…]$/, '').split(/\s+/);
    const all = text.split(/\s+/);
    // Every word shown is a whole word of the text, in order (the last may lose its trailing punctuation).
    shown.forEach((word, i) => assert.equal(all[i].replace(/[.,;:]$/, ''), word.replace(/[.,;:]$/, ''), short));
  }
  // The model id that opens a sentence is never the whole toast.
  const first = splitNotice(texts[0]).short;
  assert.notEqual(first, `ContextKeeper: ${model}.`);
  assert.ok(first.includes(model) && first.includes('window'), first);
  // A single word longer than the toast is kept whole.
  assert.equal(splitNotice(texts[3]).short, texts[3]);
});

test('an error notification keeps its reason', () => {
  const reason = `HTTP 404: model "qwen2.5-coder:7b" not found, try pulling it first`;
  const text = `ContextKeeper: the agent stopped: ${reason} (endpoint http://127.0.0.1:11434/v1)`;
  assert.ok(text.length > NOTICE_MAX_CHARS && text.length <= ERROR_NOTICE_MAX_CHARS);
  assert.equal(splitNotice(text, ERROR_NOTICE_MAX_CHARS).short, text);
  const long = `ContextKeeper: the agent stopped: ${reason}. ${'The server said more. '.repeat(10)}`;
  const short = splitNotice(long, ERROR_NOTICE_MAX_CHARS).short;
  assert.ok(short.includes(reason), short);
});

test('a summary edited by hand that is no longer in the context as written is named, and the notice says the edits were not carried', () => {
  const summary = (id: string) =>
    ({ id, kind: 'summary', covers: [id], message: { role: 'user', content: id } }) as ContextItem;
  const checkpoints = [
    { id: 'cp1', editedByHand: true, inserted: [summary('s1')] },
    { id: 'cp2', editedByHand: true, inserted: [summary('s2')] },
    { id: 'cp3', inserted: [summary('s3')] },
    { id: 'cp4', editedByHand: true, restored: true, inserted: [summary('s4')] },
  ];
  // s1 stands in the context as written; s2 was summarized again; s3 was never edited; cp4 was restored.
  assert.deepEqual(editsNotInContext(checkpoints, new Set(['s1', 'x'])), ['cp2']);
  assert.deepEqual(editsNotInContext(checkpoints, new Set(['s1', 's2'])), []);
});
