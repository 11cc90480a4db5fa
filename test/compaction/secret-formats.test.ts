/**
 * Credential formats masked in what leaves the raw transcript: the formats an export used to leak
 * (PGP and PuTTY private keys, quoted docker-compose entries, Azure connection strings, `.npmrc`,
 * `.netrc`, SendGrid keys, HTTP headers), and every scanner rule of secretlint's recommended preset,
 * each with a fixture built here (no real secret: made-up characters in each issuer's format), checked
 * against `@secretlint/core`'s own run of the preset.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findSecrets, maskSecrets, maskStrings } from '../../src/compaction/secrets';
import { ruleSetRuleNames, ruleSetSpans } from '../../src/compaction/secret-rule-set';

/** `n` characters cycling through `alphabet`, starting at `seed` (deterministic, not a real secret). */
function chars(n: number, alphabet = 'aB3dE5fG7hJ9kLmN2pQ4rS6tU8vW', seed = 0): string {
  let out = '';
  for (let i = 0; i < n; i++) out += alphabet[(i * 7 + seed) % alphabet.length];
  return out;
}
const HEX = '0123456789abcdef';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Files of kinds that used to pass the masking, with the secret each holds. */
const LEAKED_BEFORE: Array<{ name: string; text: string; secret: string; label: RegExp }> = [
  {
    name: 'PGP private key block',
    text: `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBG${chars(58, B64)}\n=AbCd\n-----END PGP PRIVATE KEY BLOCK-----\n`,
    secret: `lQOYBG${chars(30, B64)}`,
    label: /\[masked private key\]/,
  },
  {
    name: 'quoted docker-compose environment entry',
    text: 'services:\n  db:\n    environment:\n      - "POSTGRES_PASSWORD=Sup3rS3cretPg!"\n',
    secret: 'Sup3rS3cretPg!',
    label: /"POSTGRES_PASSWORD=\[masked secret\]"/,
  },
  {
    name: 'Azure storage connection string',
    text: `{ "Storage": "DefaultEndpointsProtocol=https;AccountName=prodstore;AccountKey=${chars(86, B64)}==;EndpointSuffix=core.windows.net" }`,
    secret: chars(40, B64),
    label: /AccountKey=\[masked Azure key\];EndpointSuffix/,
  },
  {
    name: '.npmrc _authToken',
    text: `//registry.npmjs.org/:_authToken=${chars(8, HEX)}-1e2f-4a5b-9c8d-${chars(12, HEX)}\n`,
    secret: `${chars(8, HEX)}-1e2f`,
    label: /_authToken=\[masked/,
  },
  {
    name: '.netrc password',
    text: `machine api.example.com\n  login ana@example.com\n  password ${chars(8, HEX, 3)}-7a9d-4e5f-${chars(12, HEX, 5)}\n`,
    secret: `${chars(8, HEX, 3)}-7a9d`,
    label: /password \[masked password\]/,
  },
  {
    name: 'one-line .netrc',
    text: `machine git.example.com login bot password ${chars(24, B64.slice(0, 62), 9)}`,
    secret: chars(24, B64.slice(0, 62), 9),
    label: /password \[masked password\]/,
  },
  {
    name: 'PuTTY private key',
    text: `PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5${chars(30, B64)}\nPrivate-Lines: 1\nAAAAIBv8${chars(44, B64, 2)}\nPrivate-MAC: ${chars(64, HEX)}\n`,
    secret: `AAAAIBv8${chars(20, B64, 2)}`,
    label: /Private-Lines: 1\n\[masked private key\]/,
  },
  {
    name: 'SendGrid API key',
    text: `sg = SendGridAPIClient("SG.${chars(22)}.${chars(43, undefined, 4)}")`,
    secret: `SG.${chars(22)}`,
    label: /\[masked SendGrid key\]/,
  },
  {
    name: 'token in an HTTP header',
    text: `curl -H "X-Auth-Token: ${chars(32, HEX, 1)}" https://api.example.com/v1/items`,
    secret: chars(32, HEX, 1),
    label: /X-Auth-Token: \[masked secret\]/,
  },
  {
    name: 'token in a query string',
    text: `GET https://api.example.com/v1/items?access_token=${chars(32, HEX, 2)}&page=2`,
    secret: chars(32, HEX, 2),
    label: /\?access_token=\[masked secret\]/,
  },
];

for (const f of LEAKED_BEFORE) {
  test(`a ${f.name} is masked`, () => {
    const masked = maskSecrets(f.text);
    assert.ok(!masked.includes(f.secret), `${f.secret} still in:\n${masked}`);
    assert.match(masked, f.label);
    assert.equal(maskSecrets(masked), masked, 'idempotent');
    // Exports mask every string of the document.
    assert.ok(!JSON.stringify(maskStrings({ entries: [{ content: f.text }] })).includes(f.secret));
  });
}

test('ordinary text near these formats stays as it is', () => {
  const prose = [
    'Set the password in the settings page; the machine restarts after login.',
    'The AccountKey field is required. SG.1 is the first section.',
    'PuTTY-User-Key-File-3 is the newest PPK version.',
    'docker compose up -d && curl -H "Accept: application/json" https://api.example.com/',
  ].join('\n');
  assert.equal(maskSecrets(prose), prose);
});

/** A 1Password service-account token body: base64 of its JSON (ending in `}` so it ends in `fQ`, as real ones do). */
const OPS_BODY = (() => {
  let json = JSON.stringify({
    email: 'svc@example.invalid',
    muk: { alg: 'A256GCM', ext: true, k: chars(43), key_ops: ['encrypt', 'decrypt'], kty: 'oct', kid: 'mp' },
    secretKey: `A3-${chars(6)}-${chars(6, undefined, 1)}`,
    srpX: chars(64, HEX),
    signInAddress: 'example.invalid',
    userAuth: { method: 'SRPg-4096', alg: 'PBES2g-HS256', iterations: 100000, salt: chars(22) },
  });
  while (Buffer.byteLength(json) % 3 !== 1) json = json.replace('{', '{ ');
  return Buffer.from(json).toString('base64');
})();

/**
 * One fixture per scanner rule of the preset (the rule's short name): text in the issuer's format,
 * and the part that must not survive masking.
 */
const PRESET_FIXTURES: Record<string, { text: string; secret: string }> = {
  aws: { text: `AWS_SECRET_ACCESS_KEY=${chars(40, B64, 11)}`, secret: chars(40, B64, 11) },
  gcp: {
    text: JSON.stringify({
      type: 'service_account',
      project_id: 'demo',
      private_key_id: chars(40, HEX),
      private_key: `-----BEGIN PRIVATE KEY-----\nMII${chars(120, B64, 5)}\n-----END PRIVATE KEY-----\n`,
      client_email: 'svc@demo.iam.gserviceaccount.com',
    }),
    secret: chars(40, B64, 5),
  },
  privatekey: {
    text: `-----BEGIN RSA PRIVATE KEY-----\nMII${chars(64, B64, 1)}\n${chars(64, B64, 2)}\n-----END RSA PRIVATE KEY-----`,
    secret: chars(64, B64, 2),
  },
  npm: { text: `token: npm_${chars(36)}`, secret: `npm_${chars(36)}` },
  basicauth: {
    text: `git clone https://deploy:${chars(20, HEX, 6)}@git.example.com/repo.git`,
    secret: chars(20, HEX, 6),
  },
  slack: { text: `xoxb-1234567890-1234567890-${chars(24)}`, secret: chars(24) },
  sendgrid: { text: `SG.${chars(22, undefined, 1)}.${chars(43, undefined, 2)}`, secret: chars(22, undefined, 1) },
  shopify: { text: `shpat_${chars(32, HEX, 3)}`, secret: chars(32, HEX, 3) },
  stripe: { text: `sk_live_${chars(24, undefined, 5)}`, secret: chars(24, undefined, 5) },
  github: { text: `ghp_${chars(36, undefined, 6)}`, secret: chars(36, undefined, 6) },
  gitlab: { text: `glpat-${chars(20, undefined, 7)}`, secret: chars(20, undefined, 7) },
  grafana: { text: `glsa_${chars(32, undefined, 8)}_${chars(8, HEX, 8)}`, secret: chars(32, undefined, 8) },
  openai: {
    text: `sk-proj-${chars(58, undefined, 9)}T3BlbkFJ${chars(58, undefined, 10)}`,
    secret: chars(58, undefined, 10),
  },
  anthropic: { text: `sk-ant-api03-${chars(93, undefined, 11)}AA`, secret: chars(93, undefined, 11) },
  groq: { text: `gsk_${chars(52, undefined, 12)}`, secret: chars(52, undefined, 12) },
  huggingface: {
    text: `hf_${chars(34, 'abcdefghijKLMNOPQRSTuvwxyzAB', 13)}`,
    secret: chars(34, 'abcdefghijKLMNOPQRSTuvwxyzAB', 13),
  },
  linear: { text: `lin_api_${chars(40, undefined, 14)}`, secret: chars(40, undefined, 14) },
  notion: { text: `ntn_${chars(11, '0123456789', 15)}${chars(35, undefined, 15)}`, secret: chars(35, undefined, 15) },
  '1password': { text: `ops_${OPS_BODY}`, secret: OPS_BODY.slice(10, 60) },
  'database-connection-string': {
    text: `DATABASE=postgresql://app:${chars(16, HEX, 16)}@db.internal:5432/app`,
    secret: chars(16, HEX, 16),
  },
  'hashicorp-vault': { text: `hvs.${chars(96, undefined, 17)}`, secret: chars(96, undefined, 17) },
  vercel: { text: `vcp_${chars(24, undefined, 18)}`, secret: chars(24, undefined, 18) },
  databricks: { text: `dapi${chars(32, HEX, 19)}`, secret: chars(32, HEX, 19) },
  docker: { text: `dckr_pat_${chars(27, undefined, 20)}`, secret: chars(27, undefined, 20) },
  figma: { text: `figd_${chars(40, undefined, 21)}`, secret: chars(40, undefined, 21) },
  cloudflare: { text: `cfut_${chars(40, undefined, 22)}${chars(8, HEX, 22)}`, secret: chars(40, undefined, 22) },
  tailscale: {
    text: `tskey-auth-${chars(12, undefined, 23)}-${chars(30, undefined, 24)}`,
    secret: chars(30, undefined, 24),
  },
};

test('every scanner rule of the preset has a fixture here', () => {
  assert.deepEqual([...ruleSetRuleNames()].sort(), Object.keys(PRESET_FIXTURES).sort());
});

for (const [rule, f] of Object.entries(PRESET_FIXTURES)) {
  test(`the preset's ${rule} rule finds its format, and masking removes it`, async () => {
    // The GCP rule reads a whole service-account file; the others find their format inside any text.
    const text = rule === 'gcp' ? f.text : `config read from disk:\n${f.text}\nend of file`;
    const spans = ruleSetSpans(text);
    assert.ok(
      spans.some((s) => s.rule === rule),
      `${rule} reported nothing: ${JSON.stringify(spans)}`,
    );
    // The runner reports what secretlint's own core reports for the same text and rule.
    const ext = rule === 'gcp' ? '.json' : '.txt';
    const core = await import('@secretlint/core');
    const preset = await import('@secretlint/secretlint-rule-preset-recommend');
    const result = await core.lintSource({
      source: { content: text, contentType: 'text', ext, filePath: `/fixture${ext}` },
      options: { config: { rules: [{ id: preset.creator.meta.id, rule: preset.creator }] }, noPhysicFilePath: true },
    });
    const fromCore = result.messages
      .filter((m) => m.ruleId.endsWith(`-${rule}`))
      .map((m) => m.range.join('-'))
      .sort();
    assert.deepEqual(
      spans
        .filter((s) => s.rule === rule)
        .map((s) => `${s.start}-${s.end}`)
        .sort(),
      fromCore,
    );
    const masked = maskSecrets(text);
    assert.ok(!masked.includes(f.secret), `${rule}: ${f.secret} still in:\n${masked}`);
    assert.ok(findSecrets(text).length > 0);
  });
}

test('masking with both rule sets stays fast on a large text', () => {
  const parts: string[] = [];
  for (let i = 0; i < 20_000; i++)
    parts.push(
      `line ${i}: ${chars(40, undefined, i)} https://example.com/a/${i} "token" ${i % 97 === 0 ? `ghp_${chars(36, undefined, i)}` : ''}`,
    );
  const text = parts.join('\n');
  const started = performance.now();
  const masked = maskSecrets(text);
  const ms = performance.now() - started;
  assert.ok(!/ghp_[A-Za-z0-9]{36}/.test(masked));
  assert.ok(ms < 5_000, `took ${ms.toFixed(0)} ms for ${text.length} characters`);
});
