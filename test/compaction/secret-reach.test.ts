/**
 * The assignment and URL-password rules of secret masking find a credential wherever their pattern
 * allows it to start, and nowhere else: after `export` and any blanks, with a name of up to 40
 * characters before its credential word, credential words that overlap (`secretoken`), several on one
 * line, a scheme of up to 31 characters before `://`; a longer name prefix or scheme is no match.
 * Texts as they appear in a shell command, an `.env` file and a tool's output.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findSecrets, maskSecrets } from '../../src/compaction/secrets';

const CASES: Array<[string, string]> = [
  ['export   API_KEY=abc123def456ghi', 'export   API_KEY=[masked secret]'],
  ['export\tGITHUB_TOKEN="x y z 12345678"', 'export\tGITHUB_TOKEN="[masked secret]"'],
  [
    'run: export DEPLOY_TOKEN=abc123def456ghi && ./deploy.sh',
    'run: export DEPLOY_TOKEN=[masked secret] && ./deploy.sh',
  ],
  ['secretoken=abcd1234efgh', 'secretoken=[masked secret]'],
  // 40 characters before the credential word: a name; 41 or more: none of the rule's names.
  [
    'a_prefix_of_exactly_forty_characters_xxapi_key=abcdef123456',
    'a_prefix_of_exactly_forty_characters_xxapi_key=[masked secret]',
  ],
  [
    'my_very_long_prefix_name_that_is_over_forty_chars_api_key=abcdef123456',
    'my_very_long_prefix_name_that_is_over_forty_chars_api_key=abcdef123456',
  ],
  [
    'DB_PASSWORD=s3cr3t-one; REDIS_PASSWORD=s3cr3t-two; SESSION_SECRET=s3cr3t-three',
    'DB_PASSWORD=[masked secret]; REDIS_PASSWORD=[masked secret]; SESSION_SECRET=[masked secret]',
  ],
  ['postgres://app:pa55word-x@db.internal:5432/app', 'postgres://app:[masked password]@db.internal:5432/app'],
  // A scheme of 31 characters, then one of 32.
  ['abcdefghijklmnopqrstuvwxyz01234://u:pa55word@h', 'abcdefghijklmnopqrstuvwxyz01234://u:[masked password]@h'],
  ['abcdefghijklmnopqrstuvwxyz012345://u:pa55word@h', 'abcdefghijklmnopqrstuvwxyz012345://u:pa55word@h'],
  [
    'see https://a.example/path then redis://default:r3d1s-pass@cache:6379',
    'see https://a.example/path then redis://default:[masked password]@cache:6379',
  ],
];

test('assignments and URL passwords are masked wherever the rules let them start', () => {
  for (const [text, masked] of CASES) assert.equal(maskSecrets(text), masked, text);
});

test('the same credentials are found inside long text, at any offset', () => {
  // Each case after filler that holds credential words and URLs with nothing to mask, so the rules'
  // search runs through many places that do not match before the one that does.
  const filler = 'the token count of auth.ts and https://example.com/x; '.repeat(40);
  for (const [text, masked] of CASES)
    for (const pad of [0, 1, 7, 39, 40, 41]) {
      const before = `${filler}${' '.repeat(pad)}\n`;
      assert.equal(maskSecrets(`${before}${text}\n${filler}`), `${before}${masked}\n${filler}`, `${pad}: ${text}`);
    }
  const spans = findSecrets(`${filler}\n${CASES.map((c) => c[0]).join('\n')}`);
  assert.equal(spans.length, 11);
});
