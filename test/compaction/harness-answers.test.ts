/**
 * The agent's answers are the model's words: neither a multi-line notice Aider printed (its Playwright
 * install hint, whose lines after the first carry no `> `) nor the model's inline reasoning
 * (`<think>`, Aider's `<thinking-content-…>`) is ever quoted as what the agent told the person.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_WRITERS, summaryOf } from '../support/recordings';

const ASK = 'Restyle the status page of the dashboard with larger cards and clearer badges please.';
const NEXT = `Now add a refresh button to the page header. ${'It should reload every card of the status page. '.repeat(10)}`;
const LAST = 'The page header, next to the title.';
const ANSWER = `I restyled the status page: cards are larger and badges show green or red. ${'Each card now has more padding and a clearer title. '.repeat(10)}`;
const THOUGHT = 'The user wants changes to the status page, I will start with the cards.';

/** An Aider history whose reply follows Aider's Playwright hint (one notice over several lines). */
function aiderWithNotice(thinkingTag: string): string {
  return [
    '',
    '# aider chat started at 2026-02-24 16:53:06',
    '',
    '> Model: m with whole edit format  ',
    '',
    `#### ${ASK} See https://example.com/status  `,
    '> https://example.com/status  ',
    "> Add URL to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y  ",
    '> Scraping https://example.com/status...  ',
    '> For the best web scraping, install Playwright:',
    '',
    '/usr/bin/python -m pip install --upgrade --upgrade-strategy only-if-needed aider-chat[playwright]',
    '/usr/bin/python -m playwright install --with-deps chromium',
    '',
    'See https://aider.chat/docs/install/optional.html#enable-playwright for more info.  ',
    '> Install playwright? (Y)es/(N)o [Yes]: n  ',
    '',
    `<${thinkingTag}>`,
    '',
    THOUGHT,
    '',
    `</${thinkingTag}>`,
    '',
    ANSWER,
    '',
    '> Tokens: 3.1k sent, 1.5k received.  ',
    '',
    `#### ${NEXT}  `,
    '',
    `#### ${LAST}  `,
    '',
  ].join('\n');
}

test("Aider: a multi-line notice of Aider's and the model's thinking block are not the agent's answer", async () => {
  const { summary, format } = await summaryOf(
    aiderWithNotice('thinking-content-7bbeb8e1441453ad'),
    ALL_WRITERS.aider.file,
  );
  assert.equal(format, 'aider');
  assert.match(summary, /I restyled the status page/);
  assert.doesNotMatch(summary, /pip install|playwright install|enable-playwright/);
  assert.doesNotMatch(summary, /thinking-content|The user wants changes/);
});

for (const format of ['openai-chat', 'claude-code', 'codex'] as const) {
  test(`${format}: inline reasoning (<think>) in the agent's reply is not quoted as its answer`, async () => {
    const w = ALL_WRITERS[format];
    const { summary } = await summaryOf(
      w.write([{ user: ASK }, { say: `<think>\n${THOUGHT}\n</think>\n\n${ANSWER}` }, { user: NEXT }, { user: LAST }]),
      w.file,
    );
    assert.match(summary, /I restyled the status page/);
    assert.doesNotMatch(summary, /<think>|The user wants changes/);
  });
}
