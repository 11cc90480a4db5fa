/**
 * Masks credentials in text that leaves the raw transcript: summaries, exports, the clipboard and
 * requests to a summarizer at another endpoint than the session's own. Tool output routinely carries
 * secrets (`cat .env`, `env`, config files, private keys); the raw transcript keeps them, on the user's
 * disk, but a copy that is pasted, shared or sent elsewhere must not.
 *
 * Also redacts every form of a known API key a server may echo back (verbatim, URL-encoded, base64,
 * masked as `sk-...abcd` or `sk-proj-****abcd`) from messages and logs: {@link redactKey}.
 *
 * Two rule sets, merged: secretlint's recommended preset (`secret-rule-set.ts`: maintained, precise
 * token formats, each validated as its issuer documents it) and the rules below, which are broader on
 * purpose (a masked false positive costs a word in a summary; a missed key is leaked): widely used token
 * prefixes (each documented with its source: the issuer's published format), `.env`-style, YAML, HTTP
 * header and `.npmrc` assignments to names that say key/secret/token/password, JSON fields with such
 * names, `.netrc` passwords, Azure connection-string keys, credentials in URLs, PEM, PGP and PuTTY
 * private keys. Masking is idempotent.
 */
import { ruleSetSpans } from './secret-rule-set';

/** What replaces a masked value; the kind says what it was, so a summary still makes sense. */
export function maskLabel(kind: string): string {
  return `[masked ${kind}]`;
}

interface Rule {
  kind: string;
  pattern: RegExp;
  /** Index of the group holding the secret (the first that matched, when several); 0 masks the whole match. */
  group: number | number[];
  /**
   * Index of the group holding the name the value is assigned to, for rules that recognise a secret by
   * its name: the match counts only when {@link namesCredential} accepts the name and
   * {@link isReference} rejects the value.
   */
  name?: number;
  /**
   * What every match holds, for rules that would otherwise try a match at every position of the text:
   * `pattern` (global) finds the places it occurs, and each match that counts starts at most `reach`
   * characters before one of them (see {@link matchesOf}).
   */
  anchor?: { pattern: RegExp; reach: number };
}

// Names of variables or fields that hold credentials (API_KEY, client_secret, DB_PASSWORD, authToken...).
// Bounded repetitions keep every rule linear in the text (tool output is hostile input too).
const CREDENTIAL_NAME_WORD = String.raw`(?:api[_-]?key|secret|token|passw(?:or)?d|pwd|credential|private[_-]?key|access[_-]?key|auth)`;
const SECRET_NAME = String.raw`[A-Za-z0-9_.-]{0,40}${CREDENTIAL_NAME_WORD}[A-Za-z0-9_.-]{0,40}`;

// A source or config file's name ends in one of these: "AuthController.java: created" or
// "src/token.ts:12: ..." (summary ledgers, grep output) names a file, not a credential.
const FILE_EXTENSION = String.raw`\.(?:java|kt|kts|scala|groovy|gradle|ts|tsx|mts|cts|js|jsx|mjs|cjs|vue|svelte|py|pyi|rb|go|rs|php|cs|fs|vb|c|cc|cpp|cxx|h|hh|hpp|m|mm|swift|dart|lua|pl|r|jl|ex|exs|erl|clj|hs|ml|sh|bash|zsh|ps1|sql|md|mdx|rst|txt|json|jsonc|ya?ml|toml|xml|html?|css|scss|less|ipynb|lock|proto|graphql|tf|properties|cfg|conf|ini)`;

const RULES: readonly Rule[] = [
  // PEM private keys (RFC 7468 labels "PRIVATE KEY", "RSA PRIVATE KEY", "OPENSSH PRIVATE KEY", ...) and
  // OpenPGP armored private keys (RFC 4880 section 6.2: "PGP PRIVATE KEY BLOCK").
  {
    kind: 'private key',
    pattern: /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END \1PRIVATE KEY\2-----|$)/g,
    group: 0,
  },
  // PuTTY private key files (PuTTY manual, appendix C "PPK file format"): the lines after
  // "Private-Lines: N" hold the private key, base64.
  {
    kind: 'private key',
    pattern:
      /PuTTY-User-Key-File-\d+:[^\n]{0,200}\n(?:[^\n]{0,2000}\n){0,200}?Private-Lines:[ \t]*\d+\r?\n((?:[A-Za-z0-9+/=]{4,}\r?\n?){1,400})/g,
    group: 1,
  },
  // SendGrid API keys ("SG." + 22 + "." + 43 characters, SendGrid's API key docs).
  { kind: 'SendGrid key', pattern: /\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}/g, group: 0 },
  // Azure Storage / Service Bus / Event Hubs connection strings ("AccountKey=...;", "SharedAccessKey=...")
  // and SAS signatures ("sig=..."), as Azure's connection-string docs write them.
  {
    kind: 'Azure key',
    pattern: /\b(?:AccountKey|SharedAccessKey|SharedSecret)=([A-Za-z0-9+/=]{16,})|[?&;]sig=([A-Za-z0-9%+/=]{16,})/gi,
    group: [1, 2],
  },
  // .netrc entries (GNU inetutils netrc(5)): "machine HOST login USER password SECRET", on one line or several.
  {
    kind: 'password',
    pattern:
      /\b(?:machine[ \t]+\S{1,200}|default)(?:\s{1,40}(?:login|account|port)[ \t]+\S{1,200}){0,3}\s{1,40}password[ \t]+(\S{1,400})/g,
    group: 1,
  },
  // OpenAI (sk-, sk-proj-, sk-svcacct-, sk-admin-) and Anthropic (sk-ant-) keys.
  { kind: 'API key', pattern: /\bsk-[A-Za-z0-9_-]{20,}/g, group: 0 },
  // GitHub tokens (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_).
  { kind: 'GitHub token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/g, group: 0 },
  // AWS access key ids.
  { kind: 'AWS key', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, group: 0 },
  // Slack tokens.
  { kind: 'Slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, group: 0 },
  // Google API keys.
  { kind: 'Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g, group: 0 },
  // Stripe secret and restricted keys.
  { kind: 'Stripe key', pattern: /\b[sr]k_(?:live|test)_[0-9A-Za-z]{16,}/g, group: 0 },
  // npm, Hugging Face, GitLab personal tokens.
  { kind: 'token', pattern: /\b(?:npm_[A-Za-z0-9]{36}|hf_[A-Za-z0-9]{30,}|glpat-[A-Za-z0-9_-]{20,})\b/g, group: 0 },
  // JSON Web Tokens (header.payload.signature, base64url, header starting {" → eyJ).
  { kind: 'JWT', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, group: 0 },
  // Authorization headers.
  { kind: 'credential', pattern: /\b(?:Bearer|Basic|Token)\s+([A-Za-z0-9._~+/-]{16,}=*)/g, group: 1 },
  // user:password@ in URLs.
  // A URL's scheme is at most 31 characters before its `://`.
  {
    kind: 'password',
    pattern: /\b[a-z][a-z0-9+.-]{0,30}:\/\/[^\s:/@]{1,200}:([^\s@/]{3,200})@/gi,
    group: 1,
    anchor: { pattern: /:\/\//g, reach: 31 },
  },
  // .env / shell assignments, at a line start, after a space or a separator: NAME=value, export
  // NAME="value", NAME: 'value' (YAML), "NAME=value" (docker-compose list entries), ?token=value (query
  // strings), //registry/:_authToken=value (.npmrc), "X-Auth-Token: value" (HTTP headers). Quoted values
  // are masked whole, unquoted ones up to the next space, quote or backtick; a `#` inside the word is part of it
  // (a shell comment starts only after a blank: `--password=Pa#55` passes `Pa#55`). An HTTP auth scheme after the name
  // ("Authorization: Bearer ...") is left to the Authorization rule, which masks the credential after it.
  // A path separator is no assignment colon: `anchor_spl::token::{self, Token}` (Rust, C++, PHP).
  {
    kind: 'secret',
    pattern: new RegExp(
      String.raw`(?<=^|[\s;,(\[{"'\x60:?&/])(?:export[ \t]+)?(${SECRET_NAME})(?<!${FILE_EXTENSION})[ \t]*(?:=|:(?!:))[ \t]*(?!(?:Bearer|Basic|Token|Digest|Negotiate)[ \t])(?:"([^"\n]+)"|'([^'\n]+)'|([^\s"'\x60#,;[][^\s"'\x60,;]*))`,
      'gmi',
    ),
    group: [2, 3, 4],
    name: 1,
    // The name holds a credential word at most 40 characters after the name's start. A match that
    // starts with `export ` gives the same groups and end as the match at its name (a space precedes
    // the name, and no match starts inside `export ` or the blanks after it), so the name's start is
    // where it is looked for.
    anchor: { pattern: new RegExp(CREDENTIAL_NAME_WORD, 'gi'), reach: 40 },
  },
  // JSON fields: "apiKey": "value".
  {
    kind: 'secret',
    pattern: new RegExp(String.raw`"(${SECRET_NAME})"\s*:\s*"([^"\n]{4,})"`, 'gi'),
    group: 2,
    name: 1,
  },
];

/** A rule as {@link matchesOf} scans with it. */
interface IndexedRule extends Rule {
  /**
   * The rule's search objects (its pattern, its anchor's), made once and reused by every scan: one
   * made per text and rule took about a tenth of a first compaction's time at 100k messages. A scan
   * runs to its end before it returns, so no two scans share them at once.
   */
  re: RegExp;
  anchorRe: RegExp | undefined;
}

// The `d` flag gives each group's offsets; an anchored rule is tried at chosen places (`y`, sticky).
const INDEXED_RULES: readonly IndexedRule[] = RULES.map((rule) => {
  const pattern = new RegExp(rule.pattern.source, `${rule.pattern.flags}d${rule.anchor ? 'y' : ''}`);
  return {
    ...rule,
    pattern,
    re: new RegExp(pattern),
    anchorRe: rule.anchor ? new RegExp(rule.anchor.pattern) : undefined,
  };
});

/** The result of a scan that found nothing (most scans): shared, never changed. */
const NO_MATCHES: readonly RegExpExecArray[] = [];

/**
 * The matches of `rule` in `text`, in order, each searched from where the one before ended: what a
 * global `exec` loop gives. An anchored rule (see `Rule.anchor`) is tried only at the places within
 * `reach` characters before an occurrence of its anchor, in increasing order, the first that matches
 * taken: a match cannot start anywhere else, so the first place that matches is where the global
 * search finds its next match. A regular expression engine tries every position; for the assignment
 * rule that was a third of the masking time on source text. All are found before any is returned.
 */
function matchesOf(rule: IndexedRule, text: string): readonly RegExpExecArray[] {
  const re = rule.re;
  let out: RegExpExecArray[] | undefined;
  if (!rule.anchorRe || !rule.anchor) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      (out ??= []).push(m);
      if (m[0].length === 0) re.lastIndex++;
    }
    return out ?? NO_MATCHES;
  }
  const anchor = rule.anchorRe;
  const reach = rule.anchor.reach;
  let from = 0;
  for (;;) {
    anchor.lastIndex = from;
    const a = anchor.exec(text);
    if (!a) return out ?? NO_MATCHES;
    let found: RegExpExecArray | null = null;
    for (let at = Math.max(from, a.index - reach); at <= a.index && !found; at++) {
      re.lastIndex = at;
      found = re.exec(text);
    }
    if (!found) {
      // Every place up to this occurrence was tried; overlapping occurrences are each found.
      from = a.index + 1;
      continue;
    }
    (out ??= []).push(found);
    from = found[0].length === 0 ? found.index + 1 : found.index + found[0].length;
  }
}

/** Values that name a secret rather than hold one (references, placeholders, masks, booleans). */
function isPlaceholder(value: string): boolean {
  const v = value.trim();
  if (v.length < 4) return true;
  // A mask already in place (also its first word, where a rule stops at a space): masking is idempotent.
  if (/^\[masked [^\]]+\]$/.test(v) || v.startsWith('[masked')) return true;
  if (
    /^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|<[^>]*>|\{\{[^}]*\}\}|process\.env\.[A-Za-z_][A-Za-z0-9_]*|os\.environ.*|env\(.*\))$/.test(
      v,
    )
  )
    return true;
  if (/^(?:true|false|null|none|undefined|changeme|required|optional|example|your[_-].*|x{3,}|\*{3,}|\.{3,})$/i.test(v))
    return true;
  return false;
}

/**
 * Words that, after the credential word of a name, make the name say something about a credential
 * rather than hold it: `NEXTAUTH_URL`, `authDomain`, `secret_id`, `token_usage`, `AUTH_TOKEN_EXPIRY`.
 */
const ABOUT_A_CREDENTIAL = new Set(
  (
    'url uri urls endpoint domain host hostname server issuer audience id ids name names type kind role roles ' +
    'usage count limit length size expiry expires expiration ttl lifetime file path dir header field param ' +
    'provider method mode status version scope scopes policy enabled disabled required prefix label ref arn ' +
    'format strategy manager'
  ).split(' '),
);

/** A word of a name that holds a credential, alone (`password`) or at its end (`dbpassword`, `oauth`). */
const CREDENTIAL_WORD =
  /(?:secret|token|passw(?:or)?d|pwd|credentials?|auth|authorization|(?:api|private|access|secret)key)$/;

/** The words of a name: `NEXTAUTH_URL` → nextauth, url; `apiKeyFromConfig` → api, key, from, config. */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/**
 * `name` (of a variable, field or header) holds a credential: one of its words is a credential word
 * (`DB_PASSWORD`, `authToken`, `api_key`, `SECRET_KEY_BASE`) and no word after the last one says the
 * value is something about the credential ({@link ABOUT_A_CREDENTIAL}). The broad name pattern matches
 * a credential word inside a longer one too; a word that only starts with it (`Author`, `authority`,
 * `inputTokens`, counts of tokens) names no credential.
 */
function namesCredential(name: string): boolean {
  const words = wordsOf(name);
  let last = -1;
  words.forEach((w, i) => {
    const keyOf = w === 'key' && i > 0 && /(?:api|private|access|secret)$/.test(words[i - 1]);
    if (keyOf || CREDENTIAL_WORD.test(w)) last = i;
  });
  return last >= 0 && !words.slice(last + 1).some((w) => ABOUT_A_CREDENTIAL.has(w));
}

/** A run of 16+ letters and digits mixing both: a token inside a URL's path or query (webhook URLs). */
const TOKEN_LIKE = /(?=[A-Za-z0-9_-]{0,200}\d)(?=[A-Za-z0-9_-]{0,200}[A-Za-z])[A-Za-z0-9_-]{16,}/;

/**
 * `value`, assigned to a name that says credential, refers to something rather than being a
 * credential: code (`credentials.password`, `getAuth(app)`, `options?.apiKey`, `apiKeyFromConfig`),
 * the name of another variable (`DATABASE_URL`, `` `AUTH_SECRET` ``), a URL with neither a password
 * nor a token in it (`http://localhost:9002`), a version range (`^5.0.0-beta.31`, a package.json
 * dependency), or a value Terraform prints instead of one (`(sensitive value)`). Such values are left
 * in place, and so never masked wherever they appear again (`secret-values.ts`).
 */
function isReference(value: string): boolean {
  if (/^\((?:known|sensitive|write-only)\b/.test(value)) return true;
  // Quotes, backticks and brackets around it, or punctuation after it, are not part of the value.
  const v = value
    .trim()
    .replace(/^[`'"([{]+/, '')
    .replace(/[`'")\]}.,:;!?]+$/, '');
  if (v !== value.trim() && isPlaceholder(v)) return true;
  if (/^[~^<>=]{0,2}\d+(?:\.\d+){1,3}(?:[-+][\w.]+)?$/.test(v)) return true;
  if (/^[a-z][a-z0-9+.-]{0,30}:\/\/[^\s/@]+(?:[/?#]\S*)?$/i.test(v) && !TOKEN_LIKE.test(v)) return true;
  if (/^[A-Z][A-Z0-9]*(?:_[A-Z][A-Z0-9]*)+$/.test(v)) return true;
  // An HTTP auth scheme before a template (`Authorization = \`Bearer ${token}\``): the credential is after it.
  if (/^(?:Bearer|Basic|Token|Digest|Negotiate)$/.test(v)) return true;
  // A member chain (`a.b`, `a?.b.c`), maybe called or typed (`getAuth(app)`, `tokenProvider.generateToken(
  // user.getUsername())`, `React.Dispatch<...>`): code. The chain has one way to match: linear.
  const ident = String.raw`[A-Za-z_$][\w$]*`;
  if (/[.(<]/.test(v) && new RegExp(String.raw`^${ident}(?:\??\.${ident})*(?:[(<].*)?$`).test(v)) return true;
  // A path (`anchor_lang::prelude::Pubkey`, `std::string::String`): a type or item in code.
  if (/^(?:[A-Za-z_]\w*::)+[A-Za-z_]\w*(?:<.*)?$/.test(v)) return true;
  // A camelCase name of letters alone (`apiKeyFromConfig`): code, not a password.
  if (/^[a-z]+(?:[A-Z][a-z]+)+$/.test(v)) return true;
  return false;
}

/**
 * A label in prose, not an assignment: `Auth: pass-through to the API`, `Password: username and
 * password from the vault`. The name is followed by a colon, the unquoted value is a plain word
 * (letters and hyphens, no digit) and more words follow it on the line: a YAML or header value is the
 * rest of its line, so a word with prose after it is the start of a sentence.
 * @param nameEnd Offset where the credential's name ends in `text`.
 * @param value Offsets [start, end) of the unquoted value.
 */
function isProseLabel(text: string, nameEnd: number, value: readonly [number, number]): boolean {
  if (!/^[ \t]*:[ \t]*$/.test(text.slice(nameEnd, value[0]))) return false;
  if (!/^[A-Za-z][a-z]*(?:-[a-z]+)*$/.test(text.slice(value[0], value[1]))) return false;
  return /^[ \t]+['"`(]?[A-Za-z]/.test(text.slice(value[1], value[1] + 40));
}

/**
 * A typed declaration, not an assignment: `pub provider_token_account: Pubkey,` (a Rust struct field),
 * `fn pay(token: Token)`, `authToken: string;` (TypeScript). The name is followed by a colon, the
 * unquoted value is a type name (a Capitalized identifier of letters, or a primitive type) and the
 * declaration goes on with `,` `;` `)` `>` `]` `|` `=` or `{` (a field list, a parameter list, a
 * default). A password alone at the end of its YAML line (`password: Welcome`) has none of these after
 * it, and a value with a digit (`Hunter2`) is no type name here, so both stay masked.
 * @param nameEnd Offset where the credential's name ends in `text`.
 * @param value Offsets [start, end) of the unquoted value.
 */
function isTypeAnnotation(text: string, nameEnd: number, value: readonly [number, number]): boolean {
  if (!/^[ \t]*:[ \t]*$/.test(text.slice(nameEnd, value[0]))) return false;
  // A reference or pointer to the type (Rust `token: &Token`, `&mut Token`, `*const Token`) is a type too.
  let start = value[0];
  const pointer = /^(?:&(?:'\w+[ \t]+)?(?:mut[ \t]+)?|\*(?:const|mut)[ \t]+)/.exec(text.slice(start, start + 40));
  if (pointer) start += pointer[0].length;
  // The value may end at the space in `&mut Token`: the type is read from the text itself.
  const v = /^\w*/.exec(text.slice(start, start + 80))?.[0] ?? '';
  if (!/^(?:[A-Z][a-z]+(?:[A-Z][a-z]*)*|string|number|boolean|bigint|str|bytes|bool)$/.test(v)) return false;
  const after = text.slice(start + v.length, start + v.length + 40);
  if (/^[ \t]*[,;)>\]|={]/.test(after)) return true;
  // A Python annotation ends its line (`token: Token`, `api_key: SecretStr`): a primitive type, or a
  // type named after a credential, is the type of the field; any other word alone is a YAML value.
  return (
    /^[ \t]*(?:#.*)?(?:\r?\n|$)/.test(after) &&
    (/^[a-z]/.test(v) || /Token|Secret|Key|Password|Credential|Auth/.test(v))
  );
}

/**
 * A shell parameter expansion, not an assignment: `${ALCHEMY_API_KEY:+yes}`, `${TOKEN:?unset}` test or
 * require the variable and hold no value of it. A default (`${DB_PASSWORD:-hunter2}`, `${TOKEN:=x}`) is
 * a literal value, so only the word after the operator is kept as the value (POSIX shell, section
 * 2.6.2 "Parameter Expansion").
 * @param nameStart Offset where the credential's name starts in `text`.
 * @param value Offsets [start, end) of the unquoted value.
 * @returns null when `text` has no expansion there; else the default's offsets, or null offsets when
 *   the expansion holds no value.
 */
function expansionDefault(
  text: string,
  nameStart: number,
  value: readonly [number, number],
): { value: [number, number] | null } | null {
  if (text.slice(Math.max(0, nameStart - 2), nameStart) !== '${') return null;
  const op = text[value[0]];
  if (op !== '-' && op !== '=' && op !== '+' && op !== '?') return null;
  if (op === '+' || op === '?') return { value: null };
  const body = text.slice(value[0] + 1, value[1]);
  const close = body.indexOf('}');
  const end = value[0] + 1 + (close >= 0 ? close : body.length);
  return { value: end > value[0] + 1 ? [value[0] + 1, end] : null };
}

/**
 * A value that is itself a parameter expansion (`password: ${DB_PASSWORD:-hunter2}`, `pass=${PW}`): the
 * variable's name is no secret; a default after `:-` or `:=` is, and only it is the value (see
 * {@link expansionDefault}). A default of a placeholder word (`changeme`) is left by the placeholder rule.
 * @param value Offsets [start, end) of the unquoted value in `text`.
 * @returns null when the value is no expansion; else the default's offsets, or null offsets.
 */
function valueExpansion(text: string, value: readonly [number, number]): { value: [number, number] | null } | null {
  const head = /^\$\{[A-Za-z_][A-Za-z0-9_]*(?=:?[-=+?}])/.exec(
    text.slice(value[0], Math.min(value[1], value[0] + 200)),
  );
  if (!head) return null;
  let at = value[0] + head[0].length;
  if (text[at] === '}') return { value: null };
  if (text[at] === ':') at++;
  return expansionDefault(text, value[0] + 2, [at, value[1]]);
}

/** One secret found in a text: character offsets [start, end) and its kind. */
export interface SecretSpan {
  start: number;
  end: number;
  kind: string;
}

/** Kinds shown for the preset's rules (`[masked GitHub token]`); others show `[masked credential]`. */
const RULE_SET_KINDS: Record<string, string> = {
  aws: 'AWS key',
  gcp: 'private key',
  privatekey: 'private key',
  npm: 'token',
  slack: 'Slack token',
  sendgrid: 'SendGrid key',
  stripe: 'Stripe key',
  github: 'GitHub token',
  openai: 'API key',
  anthropic: 'API key',
  basicauth: 'password',
  'database-connection-string': 'password',
};

/** A URL with `user:password@`: only the password is masked (the host and database stay readable). */
const URL_PASSWORD = /^[a-z][a-z0-9+.:-]{0,30}:\/\/[^\s:/@]{1,256}:([^\s@/]{1,256})@/i;

/** The preset's spans as {@link SecretSpan}s; a reported URL is narrowed to its password. */
function ruleSetSecrets(text: string): SecretSpan[] {
  return ruleSetSpans(text).flatMap(({ start, end, rule }) => {
    const kind = RULE_SET_KINDS[rule] ?? 'credential';
    const url = URL_PASSWORD.exec(text.slice(start, Math.min(end, start + 600)));
    if (url) {
      const at = start + url[0].length - 1 - url[1].length;
      return isPlaceholder(url[1]) ? [] : [{ start: at, end: at + url[1].length, kind }];
    }
    // A connection string without a password names no secret.
    if (rule === 'database-connection-string') return [];
    return [{ start, end, kind }];
  });
}

/**
 * The credential-looking spans of `text`, sorted, non-overlapping (the earlier or longer one wins;
 * overlapping spans merge). Both rule sets run (see the module comment).
 */
export function findSecrets(text: string): SecretSpan[] {
  const spans: SecretSpan[] = [];
  for (const rule of INDEXED_RULES) {
    for (const m of matchesOf(rule, text)) {
      if (m[0].length === 0) continue;
      const group = typeof rule.group === 'number' ? rule.group : (rule.group.find((g) => m[g] !== undefined) ?? 0);
      let where: readonly [number, number] | undefined = m.indices?.[group];
      let value = m[group];
      if (value === undefined || where === undefined) continue;
      const nameAt = rule.name !== undefined ? m.indices?.[rule.name] : undefined;
      if (nameAt && group === 4) {
        const expansion = expansionDefault(text, nameAt[0], where) ?? valueExpansion(text, where);
        if (expansion) {
          if (!expansion.value) continue;
          where = expansion.value;
          value = text.slice(where[0], where[1]);
        }
      }
      // Text escaped as a JSON string (Codex keeps a command's output so): an unquoted value ends at
      // an escaped line break or quote, as it would at the character itself.
      if (group === 4) {
        const escape = /\\[nrt"]/.exec(value);
        if (escape && escape.index > 0) {
          where = [where[0], where[0] + escape.index];
          value = value.slice(0, escape.index);
        }
      }
      if (group > 0 && isPlaceholder(value)) continue;
      if (rule.name !== undefined && (!namesCredential(m[rule.name] ?? '') || isReference(value))) continue;
      if (nameAt && group === 4 && (isProseLabel(text, nameAt[1], where) || isTypeAnnotation(text, nameAt[1], where)))
        continue;
      spans.push({ start: where[0], end: where[1], kind: rule.kind });
    }
  }
  for (const span of ruleSetSecrets(text)) spans.push(span);
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: SecretSpan[] = [];
  for (const span of spans) {
    const last = kept[kept.length - 1];
    if (last && span.start < last.end) {
      last.end = Math.max(last.end, span.end);
      continue;
    }
    kept.push({ ...span });
  }
  return kept;
}

/** `text` with every span of {@link findSecrets} replaced by {@link maskLabel}. Idempotent. */
export function maskSecrets(text: string): string {
  const spans = findSecrets(text);
  if (spans.length === 0) return text;
  let out = '';
  let at = 0;
  for (const span of spans) {
    out += text.slice(at, span.start) + maskLabel(span.kind);
    at = span.end;
  }
  return out + text.slice(at);
}

/** Masks the string contents (and text parts) of chat messages; other fields are kept. */
export function maskMessageContents<M extends { content?: unknown }>(messages: readonly M[]): M[] {
  return messages.map((message) => {
    const content = message.content;
    if (typeof content === 'string') return { ...message, content: maskSecrets(content) };
    if (Array.isArray(content)) {
      return {
        ...message,
        content: content.map((part: unknown) =>
          part &&
          typeof part === 'object' &&
          (part as { type?: unknown }).type === 'text' &&
          typeof (part as { text?: unknown }).text === 'string'
            ? { ...part, text: maskSecrets((part as { text: string }).text) }
            : part,
        ),
      };
    }
    return message;
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Every form of `key` a server or library may print: verbatim, URL-encoded, base64 and base64url (also
 * of `:key` and `key:` as in Basic auth). Keys shorter than 8 characters give no forms (too likely to
 * hit ordinary text).
 */
export function keyForms(key: string): string[] {
  if (key.length < 8) return [];
  const forms = new Set<string>([key, encodeURIComponent(key)]);
  for (const raw of [key, `:${key}`, `${key}:`]) {
    const b64 = Buffer.from(raw, 'utf8').toString('base64');
    forms.add(b64);
    forms.add(b64.replace(/=+$/, ''));
    forms.add(b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''));
  }
  return [...forms].filter((f) => f.length >= 8).sort((a, b) => b.length - a.length);
}

/**
 * Removes `key` from `text` in every form of {@link keyForms}, and masked echoes of it: a prefix of the
 * key, a run of `*`, `.`, `…`, `x` or `•`, then its last four characters (OpenAI's "Incorrect API key
 * provided: sk-proj-****abcd", "sk-...abcd"). Each is replaced with `***`.
 *
 * @param key the API key; undefined or shorter than 8 characters leaves `text` as it is.
 */
export function redactKey(text: string, key: string | undefined): string {
  if (!key || key.length < 8) return text;
  let out = text;
  for (const form of keyForms(key)) out = out.split(form).join('***');
  const head = escapeRegExp(key.slice(0, 3));
  const tail = escapeRegExp(key.slice(-4));
  // Masked echoes keep a short head of the key (3 to a dozen characters) and its last four.
  const masked = new RegExp(
    `${head}[A-Za-z0-9_-]{0,12}(?:\\*{2,}|\\.{2,}|…|x{4,}|•{2,})[A-Za-z0-9_-]{0,12}?${tail}`,
    'g',
  );
  out = out.replace(masked, '***');
  // A mask run followed by the last four alone.
  out = out.replace(new RegExp(`(?:\\*{3,}|\\.{3}|…|•{3,})${tail}\\b`, 'g'), '***');
  return out;
}

/**
 * A deep copy of `value` with {@link maskSecrets} applied to every string (object keys are kept). For
 * exports: the file may be shared, the raw transcript on disk keeps the originals.
 */
export function maskStrings<T>(value: T): T {
  if (typeof value === 'string') return maskSecrets(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => maskStrings(v)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = maskStrings(v);
    return out as T;
  }
  return value;
}
