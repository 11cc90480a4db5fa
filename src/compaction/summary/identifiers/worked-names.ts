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

/**
 * How strongly one occurrence ties a name to the work (higher ranks first); `prose`: a word of a
 * sentence that no code use marks, which lists nothing on its own.
 */
export const NAME_WEIGHT = { prose: 0, mention: 1, used: 2, declared: 3, searched: 3, quoted: 3, failed: 3 } as const;

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
    'Please Thanks Okay Let First Then Next Now Here There This That These Those When What Which Where While ' +
    // The names of naming conventions ("map snake_case columns to camelCase") name no code.
    'snake_case camelCase PascalCase lowerCamelCase UpperCamelCase SCREAMING_SNAKE_CASE UPPER_SNAKE_CASE kebab_case'
  ).split(/\s+/),
);

/**
 * The agent's own tools and the harness's words for its messages (Claude Code's `TodoWrite`,
 * `MultiEdit`; Cline's `environment_details`, `requires_approval`): words of the recording, not of
 * the code. Snake-case tool names are read by their words ({@link agentTool}).
 */
const HARNESS_WORDS = new Set(
  (
    'TodoWrite TodoRead MultiEdit WebFetch WebSearch ExitPlanMode EnterPlanMode NotebookEdit NotebookRead ' +
    'BashOutput KillShell KillBash SlashCommand AskUserQuestion ListMcpResourcesTool ReadMcpResourceTool ' +
    'environment_details task_progress requires_approval final_file_content auto_formatting_edits user_edits ' +
    'new_problems'
  ).split(/\s+/),
);

/**
 * What agent tools are named with (`read_file`, `write_to_file`, `str_replace_editor`,
 * `apply_patch`, `execute_bash`, `use_mcp_tool`): a verb, an object, and joining words.
 */
const TOOL_VERBS = new Set(
  (
    'read write edit view create delete list search find grep replace apply execute exec run ask attempt ' +
    'update use access new respond load'
  ).split(/\s+/),
);
const TOOL_OBJECTS = new Set(
  (
    'file files command cmd terminal shell bash editor patch dir directory question completion plan mcp resource ' +
    'task code definition names todo notebook content lines symbol output str followup image stdin ipython cell ' +
    'codebase documentation tracker'
  ).split(/\s+/),
);
const TOOL_JOINS = new Set('to in by based tool mode name item'.split(' '));

/**
 * Whether `n` names one of the agent's tools, not the code: a harness word ({@link HARNESS_WORDS}),
 * or a snake-case name whose words are all words tools are named with, a verb and an object among
 * them (`read_file`, `execute_command`, `terminal_execute`, `str_replace_based_edit_tool`,
 * `update_plan`; not `tool_use` nor `tool_call`, which name parts of a message). The code's own
 * function of that name is listed where the work declares it.
 */
export function agentTool(n: string): boolean {
  if (HARNESS_WORDS.has(n)) return true;
  if (!/^[a-z]+(?:_[a-z]+)+$/.test(n)) return false;
  const words = n.split('_');
  return (
    words.every((w) => TOOL_VERBS.has(w) || TOOL_OBJECTS.has(w) || TOOL_JOINS.has(w)) &&
    words.some((w) => TOOL_VERBS.has(w)) &&
    words.some((w) => TOOL_OBJECTS.has(w))
  );
}

/**
 * A setting's label right before a quoted value (`appId: "…`, `"apiKey": "…`, `clientSecret = '…`, an
 * environment file's `API_KEY=…`), the value possibly a colon-joined id (`1:1234:web:…`): the value
 * of an id, key, secret or token is data the code reads, not a name of the code. A bare `id:` or
 * `key:` labels a record's own value, which may be a name.
 */
const SETTING_VALUE_BEFORE =
  /(?:(?<![\w-])[\w-]+?(?:[iI]d|ID|[kK]ey|[sS]ecret|[tT]oken|[sS]id)['"]?\s*[:=]\s*['"`]|(?<![\w-])[A-Z0-9_]*(?:ID|KEY|SECRET|TOKEN|SID)=)(?:[\w.-]+:)*$/;

/**
 * Whether a setting's label ({@link SETTING_VALUE_BEFORE}, in the 60 characters before) stands right
 * before `at`. The label ends in a quote or `=`, and a colon-joined value's parts end in `:`: before
 * any other character it cannot end there, and the pattern (tried at every place of the 60) is not run.
 */
function settingValueAt(text: string, at: number): boolean {
  const before = text.charAt(at - 1);
  if (before !== "'" && before !== '"' && before !== '`' && before !== '=' && before !== ':') return false;
  return SETTING_VALUE_BEFORE.test(text.slice(Math.max(0, at - 60), at));
}

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
/**
 * Keywords before a name that are English words too ("renumbered from Phase 4", "a new Phase",
 * "except Telegram"): for a plain word they mark code only in code's shape, {@link KEYWORD_SHAPE}.
 */
const ENGLISH_KEYWORD = /\b(?:new|throws?|raise|except|import|from)\s*$/;
/** What follows a name after such a keyword in code: a call, a generic, `from X import`, `except X:`, `import X from`/`;`. */
const KEYWORD_SHAPE = /^(?:\s*[(<:;,}]|\s+(?:import|as|from)\b|\s*$)/;
/**
 * The part after a dot that makes a capitalised word a domain or a file name, not a member access
 * ("Crypto.com", "Linear.app", "Next.js").
 */
const DOMAIN_PART =
  /^(?:com|org|net|io|ai|dev|app|co|so|sh|me|gg|xyz|cloud|tech|js|ts|md|py|rs|go|json|yaml|yml|toml|txt|html|css)\b(?![.(\w])/;
/** A shell command that searches (its patterns name what the agent looked for). */
const SEARCH_COMMAND = /(?:^|[\s;&|(])(?:grep|egrep|rg|ag|ack|git grep|findstr|Select-String)\b/;
/** Tools that search. */
const SEARCH_TOOL = /grep|search|find|glob|symbol|references|definition/i;

/** Code inside prose: fenced blocks and backtick spans (what is between them is code, not sentences). */
const CODE_SPANS = /^\s*```[^\n]*\n[\s\S]*?^\s*```[^\n]*$|`[^`\n]+`/gm;

/** A document's file name (Markdown, text) on the line just above. */
const DOCUMENT_ABOVE = /(?:^|\s)[\w.@~/\\-]+\.(?:md|mdx|markdown|txt|rst|adoc)\s*$/i;

/**
 * A name a sentence may hold as a name of a product or a thing, not of code: PascalCase without an
 * underscore ("OpenHands", "FundWise", "OpenRouter"). camelCase and snake_case are code's own shapes.
 */
const PROSE_SHAPED = /^[A-Z][A-Za-z0-9]*$/;

/**
 * Names in `text`, each with the strongest weight it has there; `base` is the weight of a plain
 * mention. With `prose`, `text` is sentences (an agent's message, a Markdown file): a PascalCase
 * name outside its code spans ({@link CODE_SPANS}) that no code use marks is a word of the sentence,
 * {@link NAME_WEIGHT}'s `prose`, listed only where it also occurs as code.
 */
function scan(text: string, base: number, into: Map<string, number>, prose = false): void {
  const code: Array<[number, number]> = [];
  if (prose)
    for (const m of text.matchAll(CODE_SPANS))
      // A block under a document's name (Aider's whole-file edit of README.md) is that document's sentences.
      if (!DOCUMENT_ABOVE.test(text.slice(Math.max(0, m.index - 200), m.index)))
        code.push([m.index, m.index + m[0].length]);
  const inCode = (at: number) => code.some(([a, b]) => at >= a && at < b);
  // One pass over identifier tokens; dotted chains (`Service.method`) give each shaped part. A
  // token that starts with a digit (`3iusaL6ys79…`, an address or a hash) is no name, and no part of
  // it is one: its tail without the digit would be a value that exists nowhere.
  for (const m of text.matchAll(/(?<!\w)[A-Za-z_]\w*/g)) {
    const n = m[0];
    if (n.length < 4 || n.length > 80 || COMMON.has(n) || idLike(n)) continue;
    const at = m.index;
    if (notAName(text, at, n)) continue;
    const prev = text.slice(Math.max(0, at - 24), at);
    if (settingValueAt(text, at)) continue;
    const end = at + n.length;
    const next = text.charAt(end);
    const after = text.slice(end, end + 24);
    // A backtick run that holds the name alone (`Name`, `a.Name`, `Name()`): one that opens a
    // string (`Usage: run …`) quotes text, not a name.
    const quoted =
      (text.charAt(at - 1) === '`' && /^[\w.]*(?:\(\))?`/.test(after)) || (next === '`' && /`[\w.]*$/.test(prev));
    let w: number = base;
    const declared = DECLARES.test(prev);
    // A tool's name is the recording's word, unless the code declares a function of that name here.
    if (!declared && agentTool(n)) continue;
    // `Service.method`: a member follows the dot (a sentence's full stop, a domain or a file name is no member access).
    const member =
      next === '.' &&
      /^[A-Z]/.test(n) &&
      /[A-Za-z_]/.test(text.charAt(end + 1)) &&
      !DOMAIN_PART.test(text.slice(end + 1, end + 12));
    // `List<Item>` is a generic; `>Alerts</` is the text of a markup element.
    const generic = next === '<' && text.charAt(end + 1) !== '/' && text.charAt(at - 1) !== '>';
    const keyword = CONSTRUCTS.test(prev) && (!ENGLISH_KEYWORD.test(prev) || shaped(n) || KEYWORD_SHAPE.test(after));
    // `<Calendar …>`: a markup element named by a component; `import { Calendar } from …`: an import.
    const element = /<\/?$/.test(prev) && /^[A-Z]/.test(n) && /[\s/>]/.test(next);
    const imported = /\bimport\s+(?:type\s+)?\{[^}]*$/.test(prev);
    const used = keyword || next === '(' || generic || member || element || imported;
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
    if (prose && !asCode && w <= NAME_WEIGHT.mention && PROSE_SHAPED.test(n) && !inCode(at)) w = NAME_WEIGHT.prose;
    if ((into.get(n) ?? -1) < w) into.set(n, w);
  }
}

/**
 * String values of a tool call's JSON arguments (keys are the tool's schema, not the agent's words),
 * each with the name of the key it stands under ('' for a value that is no JSON object's).
 */
function argValues(args: string): Array<[string, string]> {
  const obj = parseJsonObject(args);
  if (!obj) return [['', args]];
  const out: Array<[string, string]> = [];
  const walk = (v: unknown, key: string): void => {
    if (typeof v === 'string') out.push([key, v]);
    else if (Array.isArray(v)) v.forEach((x) => walk(x, key));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(obj, '');
  return out;
}

/**
 * Arguments that hold the agent's sentences, not code: a thought, a message or an answer to the
 * person, a plan, a report (OpenHands `think` and `finish`, Cline `attempt_completion` and
 * `task_progress`, Claude Code `ExitPlanMode`).
 */
const PROSE_ARGUMENT =
  /^(?:thoughts?|message|result|response|question|summary|reason|explanation|description|task_progress|plan|notes?|answer|final_thought|follow_up|options|title)$/i;

/** A tool call's arguments that name a document (Markdown, text) as the file it writes or edits. */
const PROSE_FILE =
  /"(?:file_?path|path|file(?:name)?|target_file|TargetFile)"\s*:\s*"[^"]*\.(?:md|mdx|markdown|txt|rst|adoc)"/i;

/** One message's names with their weights, and those of them its tool calls use as code. */
interface MessageNames {
  names: ReadonlyMap<string, number>;
  inCalls: ReadonlySet<string>;
}
const cache = new MessageMemo<object, MessageNames>();
const NONE: ReadonlyMap<string, number> = new Map();
const NO_CALL_NAMES: ReadonlySet<string> = new Set();

/**
 * The names of {@link namesOfMessage} that the message's tool calls use as code: in code or a
 * command they run or write, in a pattern they search for (not in an argument that holds sentences).
 * Empty for a message that is not the agent's. Cached per message object.
 */
export function namesInCalls(message: ChatMessage): ReadonlySet<string> {
  return message.role === 'assistant' ? readNames(message, false).inCalls : NO_CALL_NAMES;
}

/**
 * The code names one message gives, each with its weight there (see {@link NAME_WEIGHT}): the
 * assistant's text and its tool-call arguments (code it wrote, commands, search patterns), and the
 * failure lines of a tool result when `failed` says the call failed (a stack trace's function, the
 * symbol a compiler could not find). Other tool output is not read: a listing names what exists, not
 * what the agent used. Cached per message object.
 */
export function namesOfMessage(message: ChatMessage, failed = false): ReadonlyMap<string, number> {
  return readNames(message, failed).names;
}

function readNames(message: ChatMessage, failed: boolean): MessageNames {
  const hit = cache.get(message);
  if (hit) return hit;
  const names = new Map<string, number>();
  let callNames: ReadonlySet<string> = NO_CALL_NAMES;
  if (message.role === 'assistant') {
    const text = textWithPlaceholders(message.content);
    // The agent's words are sentences; an action written in the text (SWE-agent) is code.
    const action = text.indexOf('<function=');
    scan(action < 0 ? text : text.slice(0, action), NAME_WEIGHT.mention, names, true);
    if (action >= 0) scan(text.slice(action).replace(ACTION_MARKUP, ' '), NAME_WEIGHT.mention, names);
    const inCalls = new Map<string, number>();
    for (const c of toolCallsOf(message)) {
      const searchTool = SEARCH_TOOL.test(c.name);
      // What the call writes into a document (README.md, notes.txt) is sentences, not code.
      const document = PROSE_FILE.test(c.arguments);
      for (const [key, v] of argValues(c.arguments)) {
        const search = searchTool || SEARCH_COMMAND.test(v);
        const prose = document || PROSE_ARGUMENT.test(key);
        if (search) scan(v.replace(/\\\|/g, ' | '), NAME_WEIGHT.searched, inCalls);
        else scan(v, NAME_WEIGHT.mention, prose ? names : inCalls, prose);
      }
    }
    for (const [n, w] of inCalls) if ((names.get(n) ?? -1) < w) names.set(n, w);
    if (inCalls.size) callNames = new Set(inCalls.keys());
  } else if (failed) {
    // Codex wraps output in a JSON envelope whose keys (`exit_code`) are the recording's, not the code's.
    for (const line of errorLines(printedOutput(textWithPlaceholders(message.content)), 8))
      scan(line, NAME_WEIGHT.failed, names);
  }
  return cache.set(message, { names: names.size ? names : NONE, inCalls: callNames });
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
  /** Names a tool call used as code (in code or a command it wrote or ran, a pattern it searched for). */
  private readonly called = new Set<string>();
  private step = 0;

  private put(n: string, w: number): void {
    if ((this.best.get(n) ?? 0) < w) this.best.set(n, w);
    this.total.set(n, (this.total.get(n) ?? 0) + w);
    this.last.set(n, this.step);
  }

  /**
   * Adds one message's names (see {@link namesOfMessage}); `inCalls`, those of them its tool calls
   * used as code (see {@link namesInCalls}).
   */
  add(names: ReadonlyMap<string, number>, inCalls: ReadonlySet<string> = NO_CALL_NAMES): void {
    this.step++;
    for (const [n, w] of names) this.put(n, w);
    for (const n of inCalls) this.called.add(n);
  }

  /** Adds names an earlier summary kept, best first: the first ones as if declared, the rest as used. */
  carry(names: readonly string[]): void {
    this.step++;
    names.forEach((n, k) => this.put(n, k < 24 ? NAME_WEIGHT.declared : NAME_WEIGHT.used));
  }

  private score(n: string): number {
    return 2 * this.best.get(n)! + Math.log(1 + this.total.get(n)!);
  }

  /**
   * At most `max` names, best first (see the class); among equals, those a tool call used as code
   * (the agent acted on them: an edit, a command, a search) first, then the more recent; none met
   * only in prose.
   */
  ranked(max: number): string[] {
    // A name met only as a word of a sentence ({@link NAME_WEIGHT}'s `prose`) is no code name.
    const listed = [...this.best.keys()].filter((n) => this.best.get(n)! > NAME_WEIGHT.prose);
    const score = new Map(listed.map((n) => [n, this.score(n)]));
    return [...score.keys()]
      .sort(
        (a, b) =>
          score.get(b)! - score.get(a)! ||
          Number(this.called.has(b)) - Number(this.called.has(a)) ||
          this.last.get(b)! - this.last.get(a)!,
      )
      .slice(0, max);
  }
}

/** Names per line of the notes' code-names section: the budget drops whole lines, lowest ranked first. */
export const NAMES_PER_LINE = 12;

/**
 * Most names the code-names section lists, whatever the room (twenty lines, about 1,000 tokens):
 * a 32k summary of a long session had room for about 200 names its next calls used (measured on
 * a recorded Java session), while a large window listed every name met once in a long file (300
 * and more). The section says how many it leaves out ({@link namesLeftOutLine}).
 */
export const MAX_LISTED_NAMES = 20 * NAMES_PER_LINE;

/**
 * The section's lines for `ranked` names (best first), leaving out those `already` holds as a word,
 * at most {@link MAX_LISTED_NAMES} names.
 */
export function nameLines(ranked: readonly string[], already: ReadonlySet<string>): string[] {
  const names = ranked.filter((n) => !already.has(n)).slice(0, MAX_LISTED_NAMES);
  const out: string[] = [];
  for (let k = 0; k < names.length; k += NAMES_PER_LINE) out.push(`- ${names.slice(k, k + NAMES_PER_LINE).join(', ')}`);
  return out;
}

/** The line that ends the code-names section when it lists fewer names than it had: how many it left out. */
export function namesLeftOutLine(left: number): string {
  return `- … ${left} more name${left === 1 ? '' : 's'} used less, not listed`;
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
