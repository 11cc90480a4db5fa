/** Masking of credentials in text that leaves the raw transcript, and redaction of a known key's echoes. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findSecrets, keyForms, maskMessageContents, maskSecrets, redactKey } from '../../src/compaction/secrets';

const OPENAI = 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
const GITHUB = 'ghp_0123456789abcdefghijABCDEFGHIJ0123456789';
const PEM =
  '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAAAAAAAEAAAAzAAAAC3NzaC1lZDI1NTE5\n-----END OPENSSH PRIVATE KEY-----';

test('common token formats are masked, with their kind', () => {
  const text = [
    `key in use: ${OPENAI}`,
    `token=${GITHUB}`,
    'aws AKIAIOSFODNN7EXAMPLE ok',
    'slack xoxb-1234567890-abcdefghij',
    'curl -H "Authorization: Bearer abcdefghijklmnop.qrstuvwx-1234"',
    'postgres://admin:hunter2secret@db.internal:5432/app',
    `jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U`,
    PEM,
  ].join('\n');
  const masked = maskSecrets(text);
  for (const secret of [
    OPENAI,
    GITHUB,
    'AKIAIOSFODNN7EXAMPLE',
    'xoxb-1234567890',
    'abcdefghijklmnop.qrstuvwx',
    'hunter2secret',
    'eyJhbGciOiJIUzI1NiJ9',
    'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ',
  ]) {
    assert.ok(!masked.includes(secret), `${secret} still in:\n${masked}`);
  }
  assert.match(masked, /key in use: \[masked API key\]/);
  assert.match(masked, /\[masked private key\]/);
  assert.match(masked, /postgres:\/\/admin:\[masked password\]@db\.internal/);
  assert.match(masked, /Authorization: Bearer \[masked credential\]/);
  assert.equal(maskSecrets(masked), masked, 'idempotent');
});

test('.env assignments and JSON fields with secret names are masked; references and ordinary text stay', () => {
  const env = [
    'DATABASE_URL=postgres://localhost/app',
    'STRIPE_SECRET=whsec_abcdefghijklmnop',
    'export GITHUB_TOKEN="plain-token-value-123"',
    "db_password: 'correct horse battery'",
    'API_KEY=${OPENAI_API_KEY}',
    'AUTH_ENABLED=true',
    'NODE_ENV=production',
    '{"clientSecret": "s3cr3t-v4lu3-here", "name": "demo"}',
  ].join('\n');
  const masked = maskSecrets(env);
  assert.match(masked, /^DATABASE_URL=postgres:\/\/localhost\/app$/m);
  assert.match(masked, /^STRIPE_SECRET=\[masked secret\]$/m);
  assert.match(masked, /^export GITHUB_TOKEN="\[masked secret\]"$/m);
  assert.match(masked, /^db_password: '\[masked secret\]'$/m);
  assert.match(masked, /^API_KEY=\$\{OPENAI_API_KEY\}$/m, 'a reference is not a secret');
  assert.match(masked, /^AUTH_ENABLED=true$/m);
  assert.match(masked, /^NODE_ENV=production$/m);
  assert.match(masked, /"clientSecret": "\[masked secret\]", "name": "demo"/);
  const prose = 'The token budget is 8000 tokens; the secret to good tests is isolation. Use sk-learn for models.';
  assert.equal(maskSecrets(prose), prose);
  assert.deepEqual(findSecrets(prose), []);
});

test('masking stays fast on long hostile lines', () => {
  const long = `${'token'.repeat(20_000)}=${'a.'.repeat(50_000)}\n${'a.'.repeat(100_000)}://x`;
  const started = Date.now();
  maskSecrets(long);
  assert.ok(Date.now() - started < 2_000, `took ${Date.now() - started} ms`);
});

test('message contents are masked, other fields kept', () => {
  const out = maskMessageContents([
    { role: 'system', content: 'summarize' },
    {
      role: 'user',
      content: [
        { type: 'text', text: `key ${OPENAI}` },
        { type: 'image_url', image_url: { url: 'data:x' } },
      ],
    },
  ]);
  assert.equal(out[0].content, 'summarize');
  const parts = out[1].content as Array<{ type: string; text?: string }>;
  assert.equal(parts[0].text, 'key [masked API key]');
  assert.equal(parts[1].type, 'image_url');
});

test('every form of a known key a server may echo is redacted', () => {
  const key = 'sk-proj-9f8e7d6c5b4a3210ZYXWVUTSRQ+/abcd';
  const echoes = [
    `Incorrect API key provided: sk-proj-****abcd. You can find your API key at ...`,
    `Incorrect API key provided: sk-proj-9f8e***********************abcd.`,
    `invalid key sk-...abcd`,
    `auth=${encodeURIComponent(key)}`,
    `Authorization: Basic ${Buffer.from(`:${key}`).toString('base64')}`,
    `x-key: ${Buffer.from(key).toString('base64')}`,
    `raw ${key} end`,
  ];
  for (const echo of echoes) {
    const out = redactKey(echo, key);
    assert.ok(!out.includes('abcd'), `not redacted: ${out}`);
    assert.ok(!out.includes('9f8e7d6c'), `not redacted: ${out}`);
    assert.match(out, /\*\*\*/);
  }
  assert.ok(keyForms(key).includes(encodeURIComponent(key)));
  // Unrelated text and other keys' masks are left alone; no key, nothing to do.
  assert.equal(redactKey('sk-proj-****wxyz and abcd', key), 'sk-proj-****wxyz and abcd');
  assert.equal(redactKey(`raw ${key}`, undefined), `raw ${key}`);
});

test('a file name that holds a secret word, followed by a colon, is a file and not a credential', () => {
  const text = [
    '- `$A/controller/AuthController.java: created`',
    'src/auth/token.ts:12: export function refresh() {}',
    'config/secrets.yaml: changed (2 keys renamed)',
    'spring.datasource.password: hunter2-database',
    'auth.token=abcdef123456',
  ].join('\n');
  const masked = maskSecrets(text);
  assert.match(masked, /AuthController\.java: created/);
  assert.match(masked, /token\.ts:12: export function refresh/);
  assert.match(masked, /secrets\.yaml: changed/);
  assert.match(masked, /^spring\.datasource\.password: \[masked secret\]$/m, 'a dotted property name is still a name');
  assert.match(masked, /^auth\.token=\[masked secret\]$/m);
});

test("a scan reuses each rule's search objects: scanning texts makes no regular expression of its own", () => {
  const texts = Array.from(
    { length: 50 },
    (_, i) =>
      `step ${i}: export API_KEY="Zx81kQ${i}pLmN0vB7tR2sW"\nran npx tsc -p . --noEmit && node --test src/file${i}.ts`,
  );
  // The first scan loads what it needs once (the rule set, its patterns).
  const first = texts.map((t) => maskSecrets(t));
  const Original = RegExp;
  let made = 0;
  globalThis.RegExp = new Proxy(Original, {
    construct(target, args, newTarget) {
      // Only ours: a rule of the maintained rule set may make its own (not this module's to change).
      if (!/node_modules/.test(new Error().stack?.split('\n')[2] ?? '')) made++;
      return Reflect.construct(target, args, newTarget) as object;
    },
  });
  let again: string[];
  try {
    again = texts.map((t) => maskSecrets(t));
  } finally {
    globalThis.RegExp = Original;
  }
  assert.deepEqual(again, first);
  assert.ok(first.every((t, i) => !t.includes(`Zx81kQ${i}pLmN0vB7tR2sW`)));
  assert.equal(made, 0, `${made} regular expressions made for ${texts.length} texts`);
});
