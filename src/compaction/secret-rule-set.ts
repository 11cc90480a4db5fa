/**
 * The maintained rule set behind secret masking: secretlint's recommended preset
 * (`@secretlint/secretlint-rule-preset-recommend`, pinned; its rules follow the issuers' published token
 * formats: AWS, GCP service accounts, private keys, npm, Slack, SendGrid, Shopify, Stripe, GitHub,
 * GitLab, Grafana, OpenAI, Anthropic, Groq, Hugging Face, Linear, Notion, 1Password, database
 * connection strings, HashiCorp Vault, Vercel, Databricks, Docker, Figma, Cloudflare, Tailscale).
 *
 * Why the rules are driven here rather than through `@secretlint/core`: core's `lintSource` is
 * asynchronous, and masking is synchronous (it runs inside exports, clipboard copies and the summary
 * request builder). Each preset rule is a plain object whose `create(context)` returns a `file(source)`
 * handler that reports `{range}` through `context.report`, synchronously (the contract of
 * `@secretlint/types`' `SecretLintRuleContext`); this module gives the rules that context, once, and
 * collects the ranges. Masked texts have no file name: a text that is one JSON object is scanned as a
 * `.json` file (the GCP rule's service-account check), and the branches that need a file name
 * (`_authToken` in `.npmrc`, `x-oauth-basic` URLs in `package.json`) do not run; the broader rules of
 * `secrets.ts` cover those formats in any text. The tests check that every scanner rule of the preset reports its fixture here
 * exactly as core's `lintSource` does. The one asynchronous rule branch (GCP `.p12` files, read from a
 * path) never runs: sources here have no file path.
 *
 * The preset is loaded on the first call (about 230 kB of rules), never at activation.
 */

/** One rule of the preset, as far as this runner uses it. */
interface PresetRule {
  meta: { id: string; type?: string };
  create(context: RuleContext, options: object): { file?: (source: RawSource) => unknown };
}

/** The part of secretlint's `SecretLintRuleContext` the preset's rules call. */
interface RuleContext {
  sharedOptions: object;
  createTranslator(messages: object): (messageId: string, data?: object) => { message: string; messageId: string };
  report(descriptor: { range: readonly [number, number] }): void;
  ignore(descriptor: unknown): void;
}

/** secretlint's `SecretLintRawSource`. */
interface RawSource {
  content: string;
  contentType: 'text';
  filePath?: string;
  ext: string;
}

/** A range one preset rule reported: character offsets [start, end) and the rule's short name. */
export interface RuleSetSpan {
  start: number;
  end: number;
  /** The rule's name without the `@secretlint/secretlint-rule-` prefix (`github`, `aws`, ...). */
  rule: string;
}

/** Rules of the preset that find nothing themselves (the comment filter only silences others). */
const NOT_SCANNERS = new Set(['@secretlint/secretlint-rule-filter-comments']);
const PREFIX = '@secretlint/secretlint-rule-';

/** Texts shorter than this hold no token any rule of the preset matches (the shortest is 24 characters). */
const SHORTEST_MATCH = 16;

let handlers: Array<{ rule: string; file: (source: RawSource) => unknown }> | undefined;
/** Where reports of the scan in progress go (the scan is synchronous, so one sink suffices). */
let sink: RuleSetSpan[] = [];
let current = '';

function load(): Array<{ rule: string; file: (source: RawSource) => unknown }> {
  if (handlers) return handlers;
  // The preset is an ES module; Node 20.19+ and the bundle load it through require.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const preset = require('@secretlint/secretlint-rule-preset-recommend') as { rules: PresetRule[] };
  handlers = [];
  for (const rule of preset.rules) {
    if (rule.meta.type !== 'scanner' || NOT_SCANNERS.has(rule.meta.id)) continue;
    const name = rule.meta.id.startsWith(PREFIX) ? rule.meta.id.slice(PREFIX.length) : rule.meta.id;
    const context: RuleContext = {
      sharedOptions: {},
      createTranslator: () => (messageId) => ({ message: messageId, messageId }),
      report: ({ range }) => sink.push({ start: range[0], end: range[1], rule: name }),
      ignore: () => undefined,
    };
    const { file } = rule.create(context, {});
    if (file) handlers.push({ rule: name, file });
  }
  return handlers;
}

/** Names of the preset's scanner rules this runner drives, in the preset's order. */
export function ruleSetRuleNames(): string[] {
  return load().map((h) => h.rule);
}

/**
 * Ranges of `text` that a rule of secretlint's recommended preset reports as a secret, in report order
 * (may overlap; the caller merges). Synchronous, linear in the text for each rule (the preset's
 * patterns are bounded), about 90 ms per MB of text for the whole preset on one core.
 * @throws only when the preset itself throws (a bug there), never for any input text
 */
export function ruleSetSpans(text: string): RuleSetSpan[] {
  if (text.length < SHORTEST_MATCH) return [];
  const scanners = load();
  sink = [];
  current = text;
  // A whole JSON object is scanned as a .json file (the GCP rule reads service-account files so).
  const source: RawSource = { content: text, contentType: 'text', ext: looksLikeJson(text) ? '.json' : '' };
  for (const { file } of scanners) {
    const pending = file(source);
    // A rule that went asynchronous (file-based branches only) reports nothing for text: silence it.
    if (pending && typeof (pending as Promise<unknown>).then === 'function')
      (pending as Promise<unknown>).then(undefined, () => undefined);
  }
  const found = sink.filter((s) => s.end > s.start && s.start >= 0 && s.end <= current.length);
  sink = [];
  current = '';
  return found;
}

function looksLikeJson(text: string): boolean {
  return /^\s*\{/.test(text) && /\}\s*$/.test(text.slice(-64));
}
