/**
 * Names of the code the agent worked with — functions, classes, services and constants it called,
 * constructed, declared, searched for, named in its messages, or met in a failure — for the
 * extractive notes' "Code names" section. Declared names alone (the ledger's "defines or changes")
 * miss most of what an agent uses next: the service methods it called, the types it constructed,
 * the function a stack trace named.
 *
 * Each message is read once (cached per message object); a name's weight in a message is the
 * strongest way the message uses it, and its score is the sum over messages, so a name the agent
 * kept coming back to ranks above one mentioned once in a long file it wrote. Pure: no I/O.
 */
import { errorLines, toolCallsOf } from '../../text';
import { textWithPlaceholders } from '../../content-text';
import type { ChatMessage } from '../../types';
import { parseJsonObject } from '../../../format/json';
import { MessageMemo } from '../../message-memo';
import { printedOutput } from '../../retention/outcome';

/** How strongly one occurrence ties a name to the work (higher ranks first). */
export const NAME_WEIGHT = { mention: 1, used: 2, declared: 3, searched: 3, quoted: 3, failed: 3 } as const;

/** Words that look like code names but name the language, not the project. */
const COMMON = new Set(
  (
    'this self super null undefined true false None True False void async await return function class const ' +
    'console process module exports require Promise Object Array String Number Boolean Error Date Math JSON ' +
    'Map Set RegExp Symbol setTimeout setInterval clearTimeout clearInterval parseInt parseFloat isNaN ' +
    'toString valueOf hasOwnProperty forEach indexOf lastIndexOf toLowerCase toUpperCase startsWith endsWith ' +
    'addEventListener removeEventListener getElementById querySelector querySelectorAll innerHTML textContent ' +
    'JSON.stringify stringify isinstance __init__ __name__ __main__ __file__ __dirname __filename ' +
    'README Python Node TypeScript JavaScript GitHub Error Exception Warning Traceback Note Summary Request ' +
    'Please Thanks Okay Let First Then Next Now Here There This That These Those When What Which Where While'
  ).split(/\s+/),
);

/** A token shaped like a code name: camelCase, PascalCase with two humps, snake_case, SCREAMING_CASE. */
function shaped(n: string): boolean {
  return /[a-z][A-Z]/.test(n) || /[A-Za-z0-9]_[A-Za-z0-9]/.test(n) || /^[A-Z][a-z0-9]+[A-Z][a-z]/.test(n);
}

/**
 * Ids, hashes and generated names are not code names (`toolu_01…`, `call_3f2a…`, `a1b2c3d4e5`), and
 * neither are placeholders standing for a value (`YOUR_API_KEY_HERE`, `AIza_REDACTED_KEY`, `PLACEHOLDER_URL`).
 */
function idLike(n: string): boolean {
  return (
    /\d{3,}/.test(n) ||
    /^(?:toolu|call|fc|msg|chatcmpl|resp|run|tool_call)_/i.test(n) ||
    /[0-9a-f]{8,}/i.test(n) ||
    PLACEHOLDER.test(n)
  );
}
/** A placeholder token: it stands for a value someone is to put there, or for one that was removed. */
export const PLACEHOLDER = /REDACTED|PLACEHOLDER|^YOUR_|_HERE$|^(?:EXAMPLE|SAMPLE|DUMMY)_|^x{3,}/i;

/**
 * Whether the token at `at` of `text` is part of something that is no identifier: an escape
 * (`\nOutput` in JSON text is a newline and `Output`), a command's option (`-NoProfile`,
 * `--dry_run`), a handle or a scoped package (`@zCasee`, `@supabase/…`), a folder of a path
 * (`node_modules/`), or a token cut by a clip.
 */
function notAName(text: string, at: number, n: string): boolean {
  const before = text.charAt(at - 1);
  const end = at + n.length;
  // Next to a clip's edge (`…`, the clip marker) a token may be cut mid-word (`DevP…`).
  if (before === '…' || text.charAt(end) === '…' || text.startsWith('\n[… ', end) || text.startsWith('…]\n', at - 3))
    return true;
  if (before === '\\') return true;
  if (before === '-' && (at < 2 || /[\s'"(-]/.test(text.charAt(at - 2)))) return true;
  if (before === '@' && /^[a-z]/.test(n)) return true;
  return text.charAt(at + n.length) === '/' && text.charAt(at + n.length + 1) !== '/';
}

/** SWE-agent's action markup (`<function=str_replace_editor>`, `<parameter=old_str>`): the tool's schema, not the agent's words. */
const ACTION_MARKUP = /<\/?(?:function|parameter)(?:=[\w.-]+)?>/g;

const DECLARES =
  /\b(?:function\*?|def|class|interface|enum|struct|trait|fn|func|type|record|object|module|namespace)\s+$|\b(?:const|let|var|val)\s+$/;
const CONSTRUCTS = /\b(?:new|extends|implements|instanceof|throws?|raise|except|import|from)\s*$/;
/** A shell command that searches (its patterns name what the agent looked for). */
const SEARCH_COMMAND = /(?:^|[\s;&|(])(?:grep|egrep|rg|ag|ack|git grep|findstr|Select-String)\b/;
/** Tools that search. */
const SEARCH_TOOL = /grep|search|find|glob|symbol|references|definition/i;

/** Names in `text`, each with the strongest weight it has there; `base` is the weight of a plain mention. */
function scan(text: string, base: number, into: Map<string, number>): void {
  // One pass over identifier tokens; dotted chains (`Service.method`) give each shaped part. A
  // token that starts with a digit (`3iusaL6ys79…`, an address or a hash) is no name, and no part of
  // it is one: its tail without the digit would be a value that exists nowhere.
  for (const m of text.matchAll(/(?<!\w)[A-Za-z_]\w*/g)) {
    const n = m[0];
    if (n.length < 4 || n.length > 80 || COMMON.has(n) || idLike(n)) continue;
    const at = m.index;
    if (notAName(text, at, n)) continue;
    const prev = text.slice(Math.max(0, at - 24), at);
    const next = text.charAt(at + n.length);
    const quoted = text.charAt(at - 1) === '`' || (next === '`' && /`[\w.]*$/.test(prev));
    let w: number = base;
    const declared = DECLARES.test(prev);
    // `Service.method`: a member follows the dot (a sentence's full stop is no member access).
    const member = next === '.' && /^[A-Z]/.test(n) && /[A-Za-z_]/.test(text.charAt(at + n.length + 1));
    const used = CONSTRUCTS.test(prev) || next === '(' || next === '<' || member;
    // An annotation (`@Table(…)`, `@Override`) marks code the framework reads; a mention at most.
    if (text.charAt(at - 1) === '@') w = NAME_WEIGHT.mention;
    else if (declared) w = Math.max(w, NAME_WEIGHT.declared);
    else if (used) w = Math.max(w, NAME_WEIGHT.used);
    if (quoted) w = Math.max(w, NAME_WEIGHT.quoted);
    // A plain capitalised word (`Button`, `Route`) counts only where code uses it here (declared,
    // constructed, called, quoted): prose, a failure message or a search pattern is full of English
    // words ("Refactor", "Missing").
    const asCode = quoted || (text.charAt(at - 1) !== '@' && (declared || used));
    if (!shaped(n) && !(asCode && /^[A-Z][a-z]{4,}$/.test(n))) continue;
    if ((into.get(n) ?? 0) < w) into.set(n, w);
  }
}

/** String values of a tool call's JSON arguments (keys are the tool's schema, not the agent's words). */
function argValues(args: string): string[] {
  const obj = parseJsonObject(args);
  if (!obj) return [args];
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(obj);
  return out;
}

const cache = new MessageMemo<object, ReadonlyMap<string, number>>();
const NONE: ReadonlyMap<string, number> = new Map();

/**
 * The code names one message gives, each with its weight there (see {@link NAME_WEIGHT}): the
 * assistant's text and its tool-call arguments (code it wrote, commands, search patterns), and the
 * failure lines of a tool result when `failed` says the call failed (a stack trace's function, the
 * symbol a compiler could not find). Other tool output is not read: a listing names what exists, not
 * what the agent used. Cached per message object.
 */
export function namesOfMessage(message: ChatMessage, failed = false): ReadonlyMap<string, number> {
  const hit = cache.get(message);
  if (hit) return hit;
  const names = new Map<string, number>();
  if (message.role === 'assistant') {
    const text = textWithPlaceholders(message.content);
    scan(text.includes('<function=') ? text.replace(ACTION_MARKUP, ' ') : text, NAME_WEIGHT.mention, names);
    for (const c of toolCallsOf(message)) {
      const searchTool = SEARCH_TOOL.test(c.name);
      for (const v of argValues(c.arguments)) {
        const search = searchTool || SEARCH_COMMAND.test(v);
        scan(search ? v.replace(/\\\|/g, ' | ') : v, search ? NAME_WEIGHT.searched : NAME_WEIGHT.mention, names);
      }
    }
  } else if (failed) {
    // Codex wraps output in a JSON envelope whose keys (`exit_code`) are the recording's, not the code's.
    for (const line of errorLines(printedOutput(textWithPlaceholders(message.content)), 8))
      scan(line, NAME_WEIGHT.failed, names);
  }
  const out = names.size ? names : NONE;
  cache.set(message, out);
  return out;
}

/**
 * A running tally of names over a span, in the order messages arrive. A name ranks by the strongest
 * way the agent used it, then by how much it came back: a method it declared or searched for once
 * ranks above a framework annotation repeated on every file it wrote.
 */
export class NameTally {
  private readonly best = new Map<string, number>();
  private readonly total = new Map<string, number>();
  private readonly last = new Map<string, number>();
  private step = 0;

  private put(n: string, w: number): void {
    if ((this.best.get(n) ?? 0) < w) this.best.set(n, w);
    this.total.set(n, (this.total.get(n) ?? 0) + w);
    this.last.set(n, this.step);
  }

  /** Adds one message's names (see {@link namesOfMessage}). */
  add(names: ReadonlyMap<string, number>): void {
    this.step++;
    for (const [n, w] of names) this.put(n, w);
  }

  /** Adds names an earlier summary kept, best first: the first ones as if declared, the rest as used. */
  carry(names: readonly string[]): void {
    this.step++;
    names.forEach((n, k) => this.put(n, k < 24 ? NAME_WEIGHT.declared : NAME_WEIGHT.used));
  }

  private score(n: string): number {
    return 2 * this.best.get(n)! + Math.log(1 + this.total.get(n)!);
  }

  /** At most `max` names, best first (see the class), the more recent first among equals. */
  ranked(max: number): string[] {
    const score = new Map([...this.best.keys()].map((n) => [n, this.score(n)]));
    return [...score.keys()]
      .sort((a, b) => score.get(b)! - score.get(a)! || this.last.get(b)! - this.last.get(a)!)
      .slice(0, max);
  }
}

/** Names per line of the notes' code-names section: the budget drops whole lines, lowest ranked first. */
export const NAMES_PER_LINE = 12;

/** The section's lines for `ranked` names (best first), leaving out those `already` holds as a word. */
export function nameLines(ranked: readonly string[], already: ReadonlySet<string>): string[] {
  const names = ranked.filter((n) => !already.has(n));
  const out: string[] = [];
  for (let k = 0; k < names.length; k += NAMES_PER_LINE) out.push(`- ${names.slice(k, k + NAMES_PER_LINE).join(', ')}`);
  return out;
}

/** The names an earlier summary's code-names section lists, in its order. */
export function namesFromLines(lines: readonly string[]): string[] {
  return lines.flatMap((l) =>
    l
      .replace(/^- /, '')
      .split(', ')
      .map((s) => s.trim())
      .filter((s) => /^[A-Za-z_][\w]*$/.test(s)),
  );
}
