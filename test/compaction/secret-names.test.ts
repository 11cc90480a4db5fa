/**
 * Only credential values are masked: a name that says something about a credential (`NEXTAUTH_URL`,
 * `secret_id`, `authDomain`) holds no credential, and a value that is code, another variable's name, a
 * URL without a password or token, or a version range is not one. Such values stay readable wherever
 * they appear again in a summary (an answer quoting the URL, a request naming the variable, the
 * identifier lists); real values next to them are still masked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findSecrets, maskSecrets } from '../../src/compaction/secrets';
import { secretValuesIn } from '../../src/compaction/secret-values';
import { summaryOf, WRITERS, type Step } from '../support/recordings';

const REAL = 'x9Kq-2mWp-7vLr-4tZn';

test('a name about a credential, or a reference as the value, is not masked; credential values are', () => {
  const text = [
    'NEXTAUTH_URL=http://localhost:9002',
    `NEXTAUTH_SECRET="${REAL}"`,
    'resource "google_secret_manager_secret" "db_url" {',
    '  secret_id = "DATABASE_URL"',
    '  secret = google_secret_manager_secret.db_url.id',
    '}',
    '  authDomain: "demo-app.firebaseapp.com",',
    'const auth = getAuth(app);',
    'const password = credentials.password as string;',
    '    apiKey: options?.apiKey,',
    '    apiKey: apiKeyFromConfig,',
    '  setFirstTokenReceived: React.Dispatch<React.SetStateAction<boolean>>,',
    '    "next-auth": "^5.0.0-beta.31",',
    '    "class-variance-authority": "^0.7.1",',
    '-- Author: Platform Team',
    '- New secrets: `AUTH_SECRET` for the sessions',
    '      + secret_data = (sensitive value)',
    '    inputTokens: usageMetadata?.promptTokenCount,',
    `DB_PASSWORD=${REAL}`,
    `SECRET_KEY_BASE=${REAL}`,
    `WEBHOOK_SECRET=https://hooks.example.com/services/T0A1B2C3D/abcdEFGH1234ijklMNOP5678`,
  ].join('\n');
  const masked = maskSecrets(text);
  for (const kept of [
    'NEXTAUTH_URL=http://localhost:9002',
    'secret_id = "DATABASE_URL"',
    'secret = google_secret_manager_secret.db_url.id',
    'authDomain: "demo-app.firebaseapp.com"',
    'const auth = getAuth(app);',
    'const password = credentials.password as',
    'apiKey: options?.apiKey,',
    'apiKey: apiKeyFromConfig,',
    'React.Dispatch<React.SetStateAction<boolean>>',
    '"next-auth": "^5.0.0-beta.31"',
    '"^0.7.1"',
    'Author: Platform Team',
    '`AUTH_SECRET` for',
    'secret_data = (sensitive value)',
    'inputTokens: usageMetadata?.promptTokenCount',
  ])
    assert.ok(masked.includes(kept), `${kept} was masked:\n${masked}`);
  assert.ok(!masked.includes(REAL), masked);
  assert.match(masked, /^NEXTAUTH_SECRET="\[masked secret\]"$/m);
  assert.match(masked, /^DB_PASSWORD=\[masked secret\]$/m);
  assert.match(masked, /^SECRET_KEY_BASE=\[masked secret\]$/m);
  assert.match(masked, /^WEBHOOK_SECRET=\[masked secret\]$/m, 'a URL with a token in its path is a credential');
  // Only the real values are looked for elsewhere in a summary.
  assert.deepEqual(
    [...new Set(secretValuesIn(text))].sort(),
    [REAL, 'https://hooks.example.com/services/T0A1B2C3D/abcdEFGH1234ijklMNOP5678'].sort(),
  );
  assert.equal(maskSecrets(masked), masked, 'idempotent');
  assert.deepEqual(findSecrets('NEXTAUTH_URL="http://localhost:3000"'), []);
});

const STEPS: Step[] = [
  {
    user: 'Create .env.local with DATABASE_URL="postgresql://app_user:Str0ng-Pa55@127.0.0.1:5432/app_db" and start the app.',
  },
  {
    tool: 'read',
    path: '/w/infra/main.tf',
    output: [
      'resource "google_secret_manager_secret" "db_url" {',
      '  secret_id = "DATABASE_URL"',
      '}',
      'resource "google_secret_manager_secret_version" "db_url_val" {',
      '  secret = google_secret_manager_secret.db_url.id',
      '}',
    ].join('\n'),
  },
  {
    tool: 'write',
    path: '/w/.env.local',
    content: `NEXT_PUBLIC_BASE_URL=http://localhost:9002\nNEXTAUTH_URL=http://localhost:9002\nNEXTAUTH_SECRET=${REAL}\n`,
  },
  { tool: 'bash', command: 'npm run dev', output: 'ready - started server on http://localhost:9002' },
  { say: `Available at http://localhost:9002. ${'The server logs each request. '.repeat(60)}` },
  { user: 'Now add the login page.' },
  { say: 'Adding it.' },
];

for (const format of ['claude-code', 'cline', 'openhands'] as const) {
  test(`${format}: a URL without credentials and a variable name stay in the summary; the credentials are masked`, async () => {
    const w = WRITERS[format];
    const { summary } = await summaryOf(w.write(STEPS), w.file);
    assert.ok(!summary.includes(REAL), summary);
    assert.ok(!summary.includes('Str0ng-Pa55'), summary);
    assert.match(summary, /Available at http:\/\/localhost:9002/);
    assert.match(summary, /DATABASE_URL="postgresql:\/\/app_user:\[masked password\]@127\.0\.0\.1/);
    assert.doesNotMatch(summary, /\[masked secret\]="postgresql/);
  });
}

test('a credential word used as a label in prose is no assignment; a value alone after it still is', () => {
  const text = [
    '- Auth: pass-through to the Zerion API, no key of our own',
    "Auth: username 'waterfront-user' with the broker's password",
    'Token: refresh on every call',
    `password: ${REAL}`,
    'Password: Tr0ub4dor',
    'api_key: plainwordkey',
  ].join('\n');
  const masked = maskSecrets(text);
  for (const kept of ['Auth: pass-through to the Zerion', "Auth: username 'waterfront-user'", 'Token: refresh on'])
    assert.ok(masked.includes(kept), `${kept} was masked:\n${masked}`);
  assert.match(masked, /^password: \[masked secret\]$/m);
  assert.match(masked, /^Password: \[masked secret\]$/m);
  assert.match(masked, /^api_key: \[masked secret\]$/m, 'a plain word that ends its line is a value');
  assert.deepEqual(secretValuesIn('Auth: pass-through to the Zerion API'), []);
});

for (const format of ['claude-code', 'codex'] as const) {
  test(`${format}: a request's prose label keeps its words in the summary, there and wherever they appear again`, async () => {
    const w = WRITERS[format];
    const { summary } = await summaryOf(
      w.write([
        { user: 'Wire the balances page. Auth: pass-through to the Zerion API, the user signs each call.' },
        { tool: 'bash', command: 'grep -rn pass-through src', output: 'src/api/zerion.ts:3: // pass-through auth' },
        { say: `Balances use the pass-through client. ${'The page lists each chain. '.repeat(60)}` },
        { user: 'Now the history page.' },
        { say: 'On it.' },
      ]),
      w.file,
    );
    assert.match(summary, /Auth: pass-through to the Zerion API/);
    assert.doesNotMatch(summary, /\[masked/);
  });
}

test('code is no assignment: a path separator, a typed declaration and a shell expansion stay; values stay masked', () => {
  const text = [
    'use anchor_spl::token::{self, Token, TokenAccount, Transfer};',
    'let t = anchor_spl::token::Transfer { from };',
    '    pub provider_token_account: Pubkey,',
    "    pub vault_token_account: Account<'info, TokenAccount>,",
    'fn pay(auth_token: Signer, amount: u64) {}',
    '  authToken: string;',
    'mint: token: anchor_spl::token::Mint',
    'echo "ALCHEMY_API_KEY set: ${ALCHEMY_API_KEY:+yes}"; : "${GITHUB_TOKEN:?not set}"',
    `psql "\${DB_PASSWORD:-${REAL}}"`,
    'fn auth(token: &Token) -> bool {}',
    "fn sign(&self, key: &mut Signer, secret_key: &'a Keypair) {}",
    'class Settings:',
    '    api_key: SecretStr',
    '    token: Token',
    `password: \${DB_PASSWORD:-${REAL}}`,
    'password: ${DB_PASSWORD}',
    'password: Welcome',
    'password: Hunter2x,',
    `{ "password": "${REAL}", token: ${REAL}, }`,
  ].join('\n');
  const masked = maskSecrets(text);
  for (const kept of [
    'use anchor_spl::token::{self, Token, TokenAccount, Transfer};',
    'let t = anchor_spl::token::Transfer { from };',
    'pub provider_token_account: Pubkey,',
    "pub vault_token_account: Account<'info, TokenAccount>,",
    'fn pay(auth_token: Signer, amount: u64) {}',
    'authToken: string;',
    'mint: token: anchor_spl::token::Mint',
    'fn auth(token: &Token) -> bool {}',
    "fn sign(&self, key: &mut Signer, secret_key: &'a Keypair) {}",
    '    api_key: SecretStr\n    token: Token\n',
    'password: ${DB_PASSWORD}\n',
    '${ALCHEMY_API_KEY:+yes}"',
    '"${GITHUB_TOKEN:?not set}"',
  ])
    assert.ok(masked.includes(kept), `${kept} was masked:\n${masked}`);
  assert.ok(!masked.includes(REAL), masked);
  assert.match(masked, /^psql "\$\{DB_PASSWORD:-\[masked secret\]\}"$/m, 'a default is a value; the braces stay');
  assert.match(
    masked,
    /^password: \$\{DB_PASSWORD:-\[masked secret\]\}$/m,
    'an expansion assigned to a credential name keeps its variable; only its default is masked',
  );
  assert.match(masked, /^password: \[masked secret\]$/m, 'a capitalized word alone at the end of its line is a value');
  assert.match(masked, /^password: \[masked secret\],$/m, 'a word with a digit is no type name');
  assert.deepEqual(secretValuesIn('pub provider_token_account: Pubkey,'), []);
  assert.deepEqual(
    secretValuesIn(String.raw`{"output":"db:\n  POSTGRES_PASSWORD: pg_pass_77xq\nnext line"}`),
    ['pg_pass_77xq'],
    'a value in text escaped as a JSON string ends at the escaped line break',
  );
  assert.equal(maskSecrets(masked), masked, 'idempotent');
});

for (const format of ['claude-code', 'codex'] as const) {
  test(`${format}: Rust paths, typed fields and shell expansions in a request keep their words in the summary`, async () => {
    const w = WRITERS[format];
    const request =
      'Fix the escrow. It has `use anchor_spl::token::{self, Token, TokenAccount, Transfer};` and ' +
      '`pub provider_token_account: Pubkey,` and the script prints ${ALCHEMY_API_KEY:+yes}. ' +
      `The deploy key is API_KEY=${REAL}.`;
    const { summary } = await summaryOf(
      w.write([
        { user: request },
        { tool: 'bash', command: 'cargo build', output: 'Finished dev profile' },
        { say: `The escrow builds. ${'Each transfer goes through the vault. '.repeat(60)}` },
        { user: 'Now the refund path.' },
        { say: 'On it.' },
      ]),
      w.file,
    );
    assert.match(summary, /use anchor_spl::token::\{self, Token, TokenAccount, Transfer\};/);
    assert.match(summary, /pub provider_token_account: Pubkey,/);
    assert.match(summary, /\$\{ALCHEMY_API_KEY:\+yes\}/);
    assert.ok(!summary.includes(REAL), summary);
    assert.match(summary, /API_KEY=\[masked secret\]/);
  });
}
