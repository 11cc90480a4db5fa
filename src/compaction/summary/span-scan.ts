/**
 * The extractive notes' reading of a span (what every message adds: rules, decisions, state, earlier
 * summaries' lines, the latest request, call and verification), kept as a running state that a span
 * grown at its end extends with its new messages alone: the next compaction over a longer span reads
 * what arrived since, not every message again. Per-message facts come from `message-facts.ts` (read
 * once per message object). Pure: no I/O.
 */
import type { ContextItem } from '../types';
import { isToolOutputText, keyArguments, toolCallsOf } from '../text';
import { textWithPlaceholders } from '../content-text';
import { failureLines } from './ledger/command-errors';
import { commandOutcome, printedText } from './ledger/run-outcome';
import { isChosenOption, recordedToolOutcome } from '../tool-outcomes';
import { MISSING_RESULT_TEXT } from '../plan/repair';
import { assistantFacts, clip, clipStart, planLines, TASK_LIST_TOOL, userFacts, writesTaskList } from './message-facts';
import { isImportedSummary } from './requests';
import { ANSWERS_HEADING, isEmptyItem, quoteSummary } from './quoted-summary';
import { LEDGER, OLD_FILES_HEADING, VERIFY } from './ledger/ledger';
import { KEPT_COMMITS_LINE, KEPT_HEADING } from './earlier-holdings';
import { oneLineCommand } from './ledger/ledger-fold';
import { expandRoots, parseRootsLine, type PathRoots } from './ledger/path-root';
import { NameTally, namesFromLines, namesInCalls, namesOfMessage } from './identifiers/worked-names';
import { parseJsonObject } from '../../format/json';
import {
  isRequestScoped,
  MAX_RULE_CHARS,
  persistentBlock,
  prohibitionKey,
  revokingSentence,
  ruleChange,
  ruleSentences,
} from './prose';
import { AGENT_NOTICE_LINES } from '../harness-text';
import { COLLAPSED_POINTER_OPENING } from './recall-pointer';
import { ownCopy } from '../../tokenizer/own-copy';
import { leftOutSections } from './compose-summary';

/** The words of a person's reply to a question (`<answer>…</answer>`, Cline), trimmed. */
const CHOSEN_ANSWER = /<answer>\s*([\s\S]*?)\s*<\/answer>/;
/** Section headings shared by every summarizer's notes. */
export const SECTIONS = {
  rules: "## Standing rules (the user's words, verbatim)",
  current: '## Current work and next step',
  decisions: '## Decisions (with reasons)',
  files: LEDGER.files,
  commands: LEDGER.commands,
  errors: LEDGER.errors,
  commits: LEDGER.commits,
  environment: LEDGER.environment,
  state: '## Latest state',
  identifiers: '## Identifiers',
  earlier: '## Earlier summary',
  answers: ANSWERS_HEADING,
  focus: '## On the requested focus',
  names: '## Code names the agent worked with (most used first)',
  // Headings of older notes, still read when such notes are folded in.
  objective: '## Objective',
  constraints: '## Decisions and constraints',
  completed: '## Work completed',
  unresolved: '## Unresolved and next step',
} as const;

/** How the note of an exception a later request made to a standing rule begins ({@link exceptionLine}). */
const EXCEPTION_NOTE = ' (stands; a later request made an exception: "';
/**
 * A standing rule's note line (`- "…"`, with the note of an exception a later request made to it
 * when there is one, {@link exceptionLine}): the rule's sentence.
 */
const RULE_LINE = /^- "(.*)"(?: \(stands; a later request made an exception: ".*"\))?$/;
/** A standing rule's line with the note of an exception ({@link exceptionLine}): the rule, the exception. */
const EXCEPTION_LINE = /^- "(.*)" \(stands; a later request made an exception: "(.*)"\)$/;
/** How the line of a rule that a later request overrode begins (never read as a standing rule). */
export const SUPERSEDED_RULE = '- superseded by a later request';

/** A superseded rule's line ({@link supersededLine}): the rule it quotes. */
const SUPERSEDED_LINE = /^- superseded by a later request \(".*"\), no longer standing: "(.*)"$/;

/**
 * What the rule of a standing or superseded rule line says, as one key that rules saying the same
 * share: what a prohibition forbids ({@link prohibitionKey}: "do not change Supabase or Environment
 * cards" and "Do NOT change Supabase card or Environment card."), else its words in lower case; with
 * whether it still stands. Undefined for a line of another shape.
 */
function ruleKey(line: string): { key: string; standing: boolean } | undefined {
  const standing = RULE_LINE.exec(line)?.[1];
  const rule = standing ?? SUPERSEDED_LINE.exec(line)?.[1];
  if (rule === undefined) return undefined;
  const key = prohibitionKey(rule) ?? (rule.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).join(' ');
  return { key, standing: standing !== undefined };
}

/**
 * The note line that says how many standing rules a summary left out to fit its budget, and where
 * to read them (the summary's last line points at the messages it replaced).
 */
export function rulesLeftOutLine(count: number): string {
  return `- … ${count} standing rule${count === 1 ? '' : 's'} left out here to fit the budget; read ${count === 1 ? 'it' : 'them'} in the replaced messages (last line)`;
}
/** A line of {@link rulesLeftOutLine}, with its count. */
const RULES_LEFT_OUT = /^- … (\d+) standing rules? left out here to fit the budget\b/;

/** The count of a {@link rulesLeftOutLine}; undefined for any other line. */
export function rulesLeftOutCount(line: string): number | undefined {
  const m = RULES_LEFT_OUT.exec(line);
  return m ? Number(m[1]) : undefined;
}

/**
 * The standing rules a summary of `items` would list: the rule lines of the earlier summaries among
 * them (their "Standing rules" sections; lines of superseded rules and notes aside; a recorded agent's
 * own summary has no such section of ours) and those of the typed `requests`
 * (`ruleSentences`), each once, as note lines. What the budget sets aside for them before the
 * requests section takes its share (see {@link standingRulesTokens}): rules left out of one summary are
 * gone from every later one.
 */
export function standingRulesOf(items: readonly ContextItem[], requests: readonly string[]): string[] {
  const out = new Set<string>();
  for (const it of items) {
    if (it.kind !== 'summary' || it.attachedFile !== undefined || isImportedSummary(it)) continue;
    for (const l of parseSections(textWithPlaceholders(it.message.content)).get(SECTIONS.rules) ?? [])
      if (!isListNote(l) && !l.startsWith(SUPERSEDED_RULE)) out.add(l);
  }
  for (const r of requests) for (const l of ruleLinesOf(r)) out.add(l);
  return [...out];
}

/** The rule lines of one request text, kept across compactions (the same requests come back in each). */
function ruleLinesOf(request: string): string[] {
  let lines = ruleLines.get(request);
  if (lines) return lines;
  // Kept past the request text (an earlier summary's line, a trimmed message): copies, not views into it.
  lines = ruleSentences(request).map((s) => ownCopy(`- "${clip(s, MAX_RULE_CHARS)}"`));
  if (ruleLines.size > KEPT_RULE_TEXTS) ruleLines.clear();
  ruleLines.set(ownCopy(request), lines);
  return lines;
}
const ruleLines = new Map<string, string[]>();
/** Most request texts whose rule lines are kept. */
const KEPT_RULE_TEXTS = 20_000;

/** Tokens of the standing rules' heading and the joins around their section. */
const RULES_FRAME_TOKENS = 16;
/** Most tokens set aside for standing rules (a span of hundreds of rules gets no more). */
const MAX_RULES_TOKENS = 1500;
/** Tokens the notes keep beside the standing rules at least (the current work's state lines). */
export const RULES_ROOM_TOKENS = 256;

/** Tokens the standing rules `rules` ({@link standingRulesOf}) take as a section, at most {@link MAX_RULES_TOKENS}; 0 for none. */
export function standingRulesTokens(rules: readonly string[], countText: (text: string) => number): number {
  return rules.length ? Math.min(MAX_RULES_TOKENS, countText(rules.join('\n')) + RULES_FRAME_TOKENS) : 0;
}

/**
 * The note line of the standing rule `rule` to which the sentence `by` of a later request made an
 * exception (asked for work on part of what it forbids): the rule still stands, the exception is
 * named beside it, so neither is taken for the other.
 */
export function exceptionLine(rule: string, by: string): string {
  return `- "${rule}"${EXCEPTION_NOTE}${clip(by, 120)}")`;
}

/** The note line of `rule` overridden by the sentence `by` of a later request. */
export function supersededLine(rule: string, by: string): string {
  return `${SUPERSEDED_RULE} ("${clip(by, 120)}"), no longer standing: "${rule}"`;
}

/** Characters of an agent's answer kept in the notes, at most (clipped at a sentence end). */
const MAX_ANSWER_CHARS = 700;

/** A file's name alone on the line above its fenced block (Aider's whole-file edit format): part of the edit. */
const FENCE_FILE_NAME = /^[ \t]*[\w.@~/\\-]+\.\w+[ \t]*\n(?=[ \t]*```)/gm;

/**
 * The prose of an agent's answer: its text without reasoning blocks (`<think>`, `<thinking…>`),
 * fenced code with the file name above it (an edit block, a listing: the files changed say what it
 * did), a fence left open (a message cut short: what follows its opening line is code), and the
 * notices a harness appended to it (Aider's applied edits and commits); '' when fewer than 20
 * characters of prose remain.
 */
export function answerText(text: string): string {
  const t = text
    .replace(/<(think(?:ing)?[\w-]*)>[\s\S]*?<\/\1>/gi, ' ')
    .replace(FENCE_FILE_NAME, '')
    .replace(/^\s*```[^\n]*\n[\s\S]*?^\s*```[^\n]*$/gm, ' ')
    .replace(/^\s*```[^\n]*(?:\n[\s\S]*)?$/m, ' ')
    .replace(AGENT_NOTICE_LINES, ' ')
    .trim();
  return t.length >= 20 ? t : '';
}

/**
 * The files an agent's message writes as edit blocks: the file name alone on the line above a fenced
 * block (Aider's whole-file and SEARCH/REPLACE formats), each once, in order; none for a message
 * without one. Such a message is a file change, never an answer's text.
 */
export function editBlockFiles(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(FENCE_FILE_NAME)) {
    const name = m[0].trim();
    if (!out.includes(name)) out.push(name);
  }
  return out;
}

/** Most names the notes' code-names section is offered (the budget keeps fewer). */
const MAX_NAMES = 600;

/** Tools that run commands (their output's error lines are current state). */
/** How a collapsed tool result's record opens (`rewrite/collapse.ts`). */
const COLLAPSED_RECORD = '[tool result collapsed] ';

const SHELL_CALL = /bash|shell|command|exec|terminal|^run|powershell|^python$/i;

/** Tools that write files: Claude Code `Write`/`Edit`, Cline `write_to_file`/`replace_in_file`, OpenHands `str_replace_editor`. */
const WRITE_CALL = /write|edit|replace|patch|insert|create|delete|move|rename/i;

/** A document's name (Markdown, text): writing one changes no code a check ran over. */
export const DOCUMENT_FILE = /\.(?:md|mdx|markdown|txt|rst|adoc)$/i;

/** The file a write or edit call names in its arguments. */
const WRITTEN_PATH = /"(?:file_?path|path|file(?:name)?|target_file|TargetFile|absolute_path)"\s*:\s*"([^"]+)"/i;

/**
 * `call` runs a command or writes a file other than a document: work after which an earlier check's
 * outcome is no longer the code's state. An editor tool's `view` only reads.
 */
function changesWork(call: Call): boolean {
  if (SHELL_CALL.test(call.name)) {
    // A patch run as a command (Codex `apply_patch`) is work only where it writes more than documents.
    const files = [...call.arguments.matchAll(/\*\*\* (?:Add|Update|Delete) File: ([^\n\\]+)/g)].map((m) =>
      m[1].trim(),
    );
    return files.length === 0 || files.some((f) => !DOCUMENT_FILE.test(f));
  }
  if (!WRITE_CALL.test(call.name) || /"command"\s*:\s*"view"/.test(call.arguments)) return false;
  return !DOCUMENT_FILE.test(WRITTEN_PATH.exec(call.arguments)?.[1] ?? '');
}
/** An action a text-parsed agent (SWE-agent) writes in its message: a tool call without the structure. */
export const TEXT_ACTION = /<function=[\w.-]+>/;
/**
 * Tools that hand the turn to the person (Cline's `attempt_completion`, `plan_mode_respond` and
 * `ask_followup_question`, Claude Code's `AskUserQuestion` and `ExitPlanMode`, OpenHands' `finish`,
 * SWE-agent's `submit`): the call is the agent's answer, plan or question, after which it waits for
 * the person's word, as after a message with no tool call. Which of the three it is: {@link handOverOf}.
 */
export const HAND_OVER_TOOL =
  /^(?:attempt_completion|plan_mode_respond|ask_followup_question|ask_?user(?:_?question)?|AskUserQuestion|ExitPlanMode|exit_plan_mode|finish|submit)$/i;

/** What a hand-over call ({@link HAND_OVER_TOOL}) hands over: a report of finished work, a plan awaiting approval, a question. */
export type HandOver = 'completion' | 'plan' | 'question';

/** The kind of a hand-over tool `name`; undefined for any other tool. */
export function handOverOf(name: string): HandOver | undefined {
  if (!HAND_OVER_TOOL.test(name)) return undefined;
  return /completion|finish|submit/i.test(name) ? 'completion' : /plan/i.test(name) ? 'plan' : 'question';
}

/**
 * What the actions written in a message's text (SWE-agent `<function=submit>`) hand over, when every
 * one of them is a hand-over ({@link HAND_OVER_TOOL}); undefined when the text holds none or another
 * action too (the turn goes on).
 */
export function textHandOver(text: string): HandOver | undefined {
  let kind: HandOver | undefined;
  for (const m of text.matchAll(/<function=([\w.-]+)>/g)) {
    const k = handOverOf(m[1]);
    if (!k) return undefined;
    kind ??= k;
  }
  return kind;
}

/** The message's text writes an action (SWE-agent) that goes on working, not one handing the turn over. */
export function textActionGoesOn(text: string): boolean {
  return TEXT_ACTION.test(text) && textHandOver(text) === undefined;
}

/** The words a hand-over call hands over (its result, response, question or plan argument); '' when none. */
function handOverText(args: string): string {
  const v = parseJsonObject(args);
  for (const k of ['result', 'response', 'question', 'plan', 'message', 'text'])
    if (v && typeof v[k] === 'string' && v[k].trim()) return v[k].trim();
  return '';
}

/** Item lists a plan tool's arguments hold them under (Codex `plan`, Claude Code `todos`, OpenHands `task_list`). */
const PLAN_LISTS = ['plan', 'todos', 'task_list', 'tasks', 'items'] as const;
/** Words an item's text is under, first found. */
const ITEM_TEXT = ['step', 'content', 'title', 'text', 'task', 'description'] as const;

/** Where Cline writes the agent's checklist: a `task_progress` parameter of any of its tool calls. */
const PROGRESS_KEY = 'task_progress';
/** The same parameter written as a tag in the text of an action (Cline's XML tool calls). */
const PROGRESS_TAG = /<task_progress>([\s\S]*?)<\/task_progress>/g;

/**
 * The checklist a call's JSON arguments (`args`) or an action's text carry beside the action itself
 * (Cline's `task_progress`: `- [x] Done | - [ ] Open`), items joined by ` | `; undefined when none.
 */
export function progressChecklist(args: string, text = ''): string | undefined {
  const v = args ? parseJsonObject(args) : undefined;
  const tagged = [...text.matchAll(PROGRESS_TAG)].at(-1)?.[1];
  const list = v && typeof v[PROGRESS_KEY] === 'string' ? v[PROGRESS_KEY] : tagged;
  const items = list ? planLines(list).map((l) => l.trim()) : [];
  return items.length ? items.join(' | ') : undefined;
}

/**
 * A plan tool's call as its items with their status (`1. [completed] Add the schema | 2. [in_progress] …`),
 * the way a person reads the plan, never its JSON; undefined when the arguments hold no item list.
 */
export function planItems(args: string): string | undefined {
  const v = parseJsonObject(args);
  if (!v) return undefined;
  const list = PLAN_LISTS.map((k) => v[k]).find((x): x is unknown[] => Array.isArray(x) && x.length > 0);
  if (!list) return undefined;
  const items: string[] = [];
  for (const [i, x] of list.entries()) {
    if (typeof x === 'string') {
      items.push(`${i + 1}. ${x.trim()}`);
      continue;
    }
    if (!x || typeof x !== 'object') continue;
    const o = x as Record<string, unknown>;
    const words = ITEM_TEXT.map((k) => o[k]).find((w): w is string => typeof w === 'string' && w.trim() !== '');
    if (!words) continue;
    const status = typeof o.status === 'string' && o.status ? `[${o.status}] ` : '';
    items.push(`${i + 1}. ${status}${words.replace(/\s+/g, ' ').trim()}`);
  }
  if (!items.length) return undefined;
  const note = typeof v.explanation === 'string' && v.explanation.trim() ? ` (${clip(v.explanation.trim(), 200)})` : '';
  return `${items.join(' | ')}${note}`;
}

/** Splits earlier notes into their sections (lines under each `## ` heading). */
export function parseSections(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let current = '';
  for (const line of text.split('\n')) {
    if (line.startsWith('## ')) {
      current = line.trim();
      if (!out.has(current)) out.set(current, []);
    } else if (POINTER_LINE.test(line)) current = '';
    else if (current && line.trim()) out.get(current)!.push(line.trim());
  }
  return out;
}

/**
 * The line that ends a summary, pointing at its replaced messages (`recall-pointer.ts`: `[The 12
 * replaced messages are kept: …]`, `[The 2 replaced messages can be read from: …]`): no line of the
 * section above it.
 */
const POINTER_LINE = /^\[The [\d,]+ replaced messages? /;

/**
 * A note the writer put in a list about the list itself (`- … 3 older lines not kept`, `- … the
 * files only read are not listed here`): no item; the summary that carries the list writes its own.
 */
export function isListNote(line: string): boolean {
  return line.startsWith('- … ');
}

type Call = { name: string; arguments: string };

/**
 * The shape of arguments that hold no value short enough to show (`todos=[9 items]`, `edits=[2
 * items] options={…}`), so a call is never named with nothing after it; '' when they hold nothing.
 */
function argumentShape(args: string): string {
  const v = parseJsonObject(args);
  if (!v) return '';
  const parts: string[] = [];
  for (const [k, x] of Object.entries(v)) {
    if (Array.isArray(x)) parts.push(`${k}=[${x.length} item${x.length === 1 ? '' : 's'}]`);
    else if (x && typeof x === 'object') parts.push(`${k}={…}`);
  }
  return parts.join(' ');
}

/** `key=value` arguments of a call, with the command first where it is an argv array (Codex: `["bash", "-lc", "…"]`). */
function shellLabel(call: Call): string {
  const label = keyArguments(call.arguments, 300);
  if (!SHELL_CALL.test(call.name)) return label;
  const command = commandText(call.arguments);
  if (/\b(command|cmd|script)=/.test(label)) {
    // A multi-line command keeps its line breaks visible (keyArguments collapses them).
    return /\n/.test(command.trim()) ? clip(`command=${oneLineCommand(command)}`, 300) : label;
  }
  return clip(`command=${oneLineCommand(command)} ${label}`, 300);
}

/** The command a shell call runs: its `command`/`cmd` argument (an argv array joined), else the raw arguments. */
function commandText(args: string): string {
  try {
    const v = JSON.parse(args) as Record<string, unknown>;
    const c = v?.command ?? v?.cmd ?? v?.script;
    if (typeof c === 'string') return c;
    if (Array.isArray(c))
      return c
        .map(String)
        .slice(c.length >= 3 && /sh$/.test(String(c[0])) ? 2 : 0)
        .join(' ');
  } catch {
    // Free-form input: the text itself.
  }
  return args;
}

/**
 * The note under a quoted earlier summary that later messages of the span followed: what it calls
 * next or not yet done may have been done since (the sections above say what was).
 */
export const EARLIER_AS_WRITTEN = '- (As written then; ';

/** What the notes take from a span, as {@link SpanScan.result} gives it (lists are the caller's to trim). */
export interface SpanReading {
  rules: string[];
  /** Standing rules earlier summaries of the span said they left out ({@link rulesLeftOutLine}). */
  rulesLeftOut: number;
  decisions: string[];
  state: string[];
  earlier: string[];
  /** Messages of the span after the last earlier summary quoted in {@link earlier} (0: it ends the span, or none was quoted). */
  afterEarlier: number;
  /**
   * The agent's answers to the person, oldest first: each message with which it ended a turn (no tool
   * call after it, or a call handing the turn over) that a typed request followed, as a note line
   * naming the request it answered, clipped at a sentence to {@link MAX_ANSWER_CHARS} characters.
   * The last message of the span is not here (the current-work line quotes it).
   */
  answers: string[];
  /** Ledger lines of earlier summaries, by section heading. */
  carried: Map<string, string[]>;
  /** Tool calls by id (the latest call of an id). */
  calls: ReadonlyMap<string, Call>;
  latestRequest: string | undefined;
  lastAssistant: string;
  /**
   * The agent's last message came after the latest typed request and no tool call followed it: the
   * agent stopped there (its message is its answer to that request).
   */
  lastAssistantEnds: boolean;
  /**
   * No tool call followed the agent's last message in the span (a typed request may have): the agent
   * ended its turn with it, so it is its answer, whatever its wording or language. False while a tool
   * call (or a SWE-agent `<function=…>` action written in text) came after it.
   */
  lastAssistantClosed: boolean;
  /**
   * The latest typed request of the span got no message from the agent after it in the span (no
   * words, no tool call): the span ends with the request unanswered.
   */
  latestRequestUnanswered: boolean;
  /** The agent's last message handed the turn over by a tool ({@link HAND_OVER_TOOL}): what it handed over. */
  lastHandOver: HandOver | undefined;
  /**
   * Tool calls followed the agent's last message in the span (it is not closed) and each got a
   * result that reads as a success (a shell run by its outcome, another call by its recorded flag):
   * the step it announced ("Now commit the docs:", "Next I'll run the tests") was done in the span.
   */
  lastAssistantStepDone: boolean;
  lastCall: string | undefined;
  lastTaskList: string | undefined;
  /** Index in the span of the message that wrote {@link lastTaskList} (its plan, or its to-do tool call). */
  taskListAt: number;
  lastVerify: string | undefined;
  /**
   * The latest plan / verification came before the latest typed request of the span (the person
   * asked for something since): not the current request's. False when no request followed it.
   */
  taskListBeforeRequest: boolean;
  verifyBeforeRequest: boolean;
  /**
   * Work followed {@link lastVerify} in the span: a command ran or a file other than a document was
   * written or edited after it, so its outcome is no longer the state of the code.
   */
  verifySuperseded: boolean;
  lastCommandError: string | undefined;
  /** The command whose output {@link lastCommandError} quotes (its text as run). */
  lastFailedCommand: string | undefined;
  carriedCurrent: string[];
  /**
   * Lines of sections that earlier summaries of the span left out to fit their budget, by section
   * name (their left-out lines, `leftOutLine`): named again by this summary.
   */
  sectionsLeftOut: ReadonlyMap<string, number>;
  carriedRoots: PathRoots | undefined;
  /** Code names the agent worked with, best ranked first (see `worked-names.ts`). */
  names: string[];
}

/**
 * The note line of an agent's answer `text` to `request` (`- (to "…") "…"`), the answer's prose
 * clipped at a sentence to {@link MAX_ANSWER_CHARS} characters; undefined when it has too little prose
 * (see {@link answerText}).
 */
export function answerLine(request: string | undefined, text: string): string | undefined {
  const answer = answerText(text);
  return answer ? `- ${request ? `(to "${clip(request, 80)}") ` : ''}"${clip(answer, MAX_ANSWER_CHARS)}"` : undefined;
}

/** Answers kept beside an imported summary, at most (the newest), as the extractive notes offer. */
const MAX_SPAN_ANSWERS = 12;

/**
 * The agent's answers and findings in `items` (a span a recording agent compacted itself), as the
 * notes' answers section lists them: each message with which the agent ended a turn, oldest first,
 * the newest {@link MAX_SPAN_ANSWERS}; the span's last message too when it ended the agent's turn
 * (the native notes quote that one as the current work, which an imported summary has no place for).
 */
export function spanAnswers(items: readonly ContextItem[]): string[] {
  const scan = new SpanScan();
  for (const it of items) scan.add(it);
  const r = scan.result();
  const out = r.answers;
  if (r.lastAssistantEnds && r.lastAssistantClosed) {
    const last = answerLine(r.latestRequest, r.lastAssistant);
    if (last && !out.includes(last)) out.push(last);
  }
  return out.slice(-MAX_SPAN_ANSWERS);
}

/** Said after the last tool call when it got no result. */
const NO_RESULT_NOTE = ' (it got no result: interrupted, denied or never answered; its outcome is unknown)';

/**
 * Said after the last tool call when it handed the turn to the person (a plan, a question, a report)
 * and the person answered with a typed message: Cline records no result for such a call (the product
 * adds a placeholder), its answer is the person's next message.
 */
export const ANSWERED_NOTE = " (it handed the turn to the user: the user's next message is its answer)";

/** `lastCall` (a current-work line's call) with its no-result note, if any, replaced by {@link ANSWERED_NOTE}. */
export function answeredByUser(lastCall: string): string {
  return lastCall.endsWith(NO_RESULT_NOTE) ? lastCall.slice(0, -NO_RESULT_NOTE.length) + ANSWERED_NOTE : lastCall;
}

/** How a collapsed record keeps a run's verdict line (`rewrite/collapse.ts`). */
const COLLAPSED_LAST_LINE = new RegExp(`; last line: (.*?)\\. ${COLLAPSED_POINTER_OPENING}`);

/**
 * Which placeholder the product wrote in place of a tool's output `text`: `missing` for the result it
 * added to a call that had none (`plan/repair.ts`), `collapsed` for the one-line record of a collapsed
 * result (`rewrite/collapse.ts`); undefined for a tool's own output.
 */
export function placeholderKind(text: string): 'missing' | 'collapsed' | undefined {
  const t = text.trim();
  if (t === MISSING_RESULT_TEXT) return 'missing';
  return t.startsWith(COLLAPSED_RECORD) ? 'collapsed' : undefined;
}

/**
 * What a verification line says of a run whose output is a placeholder (see {@link placeholderKind}):
 * no outcome, only that the output is not here, with the verdict line a collapsed record kept from the
 * real output (a test run's "42 passed") quoted as that.
 */
function placeholderOutcome(kind: 'missing' | 'collapsed', text: string): string {
  if (kind === 'missing') return 'no outcome: the run got no result (interrupted or denied)';
  const last = COLLAPSED_LAST_LINE.exec(text)?.[1];
  return last
    ? `its output was collapsed before this summary; its last line was: "${clip(last, 160)}"`
    : 'no outcome quoted: its output was collapsed before this summary (run it again to see the outcome)';
}

/**
 * The running reading of a span: {@link add} each message in order, {@link result} at any point.
 * Adding messages after a result was taken extends the same reading (the span grew at its end).
 */
export class SpanScan {
  private readonly rules: string[] = [];
  /** {@link ruleKey} of the rule lines read, by line. */
  private readonly ruleKeys = new Map<string, ReturnType<typeof ruleKey>>();
  private readonly decisions: string[] = [];
  private readonly state: string[] = [];
  private readonly earlier: string[] = [];
  private afterEarlier = 0;
  private rulesLeftOut = 0;
  // Lists with a set of what they hold: a span of 100k messages adds thousands of lines.
  private readonly held = new Map<string[], Set<string>>();
  private carried = new Map<string, string[]>();
  private readonly calls = new Map<string, Call>();
  private latestRequest: string | undefined;
  private lastAssistant = '';
  private lastAssistantEnds = false;
  private lastAssistantClosed = false;
  private latestRequestUnanswered = false;
  private lastHandOver: HandOver | undefined;
  /** Tool calls made after the agent's last message, results read, and failed results among them. */
  private stepCalls = 0;
  private stepResults = 0;
  private stepFailed = false;
  private readonly answers: string[] = [];
  private lastTaskList: string | undefined;
  private taskListAt = 0;
  private taskListBeforeRequest = false;
  private verifyBeforeRequest = false;
  private verifySuperseded = false;
  private carriedCurrent: string[] = [];
  /** Rule lines said only as the scope of their own request (`isRequestScoped`). */
  private readonly scopedRules = new Set<string>();
  /** How many rule lines at the start are those of blocks of lasting instructions (`persistentBlock`). */
  private firstRules = 0;
  private readonly sectionsLeftOut = new Map<string, number>();
  // Named folders the ledger's paths are written from: the first earlier summary's, more chosen later.
  private carriedRoots: PathRoots | undefined;
  private lastCallOf: Call | undefined;
  /** The text of the result answering {@link lastCallOf}; undefined while none came. */
  private lastCallResult: string | undefined;
  /** The person typed a message after {@link lastCallOf}, a call that handed the turn over: its answer. */
  private lastCallAnswered = false;
  private lastVerifyOf: { call: Call; text: string } | undefined;
  private readonly commandOutputs: Array<{ call: Call; text: string }> = [];
  private readonly names = new NameTally();
  /** Messages read so far. */
  length = 0;

  private push(list: string[], line: string): void {
    list.push(line);
    let set = this.held.get(list);
    if (!set) this.held.set(list, (set = new Set()));
    set.add(line);
  }

  private addOnce(list: string[], line: string): void {
    if (!this.held.get(list)?.has(line)) this.push(list, line);
  }

  /** `list` (a plan line) is the latest plan, written by the message just read. */
  private setTaskList(list: string): void {
    this.lastTaskList = list;
    this.taskListAt = this.length - 1;
    this.taskListBeforeRequest = false;
  }

  /** Reads the next message of the span. */
  add(it: ContextItem): void {
    this.length++;
    const m = it.message;
    if (it.kind === 'summary') return this.addSummary(textWithPlaceholders(m.content), isImportedSummary(it));
    if (this.earlier.length) this.afterEarlier++;
    const text = textWithPlaceholders(m.content);
    if (m.role === 'user') {
      const facts = userFacts(it, text);
      for (const e of facts.errors) this.addOnce(this.state, e);
      if (facts.errors.length) this.names.add(namesOfMessage(m, true));
      if (facts.typed === undefined) {
        // Tool output in the user role (Cline, SWE-agent observations) answers the step's calls.
        if (isToolOutputText(text)) this.stepResult(facts.errors.length === 0);
        return;
      }
      // The agent's message that ended its turn (no tool call after it) before this request is its
      // answer to the request before: findings the person read and may build on.
      const answer = this.lastAssistantClosed ? answerLine(this.latestRequest, this.lastAssistant) : undefined;
      if (answer) this.addOnce(this.answers, answer);
      this.latestRequest = facts.typed;
      this.latestRequestUnanswered = true;
      // A call that handed the turn over and got no result of its own is answered by this message.
      if (this.lastCallOf && handOverOf(this.lastCallOf.name)) this.lastCallAnswered = true;
      this.lastAssistantEnds = false;
      this.taskListBeforeRequest = this.verifyBeforeRequest = true;
      this.supersede(facts.typed);
      // A block marked as lasting instructions comes first (the budget drops the rules' last lines
      // first); a rule scoped to its own request ends when a later request changes what it protected.
      const block = facts.rules.length ? persistentBlock(facts.typed) : undefined;
      for (const r of facts.rules) {
        const sentence = RULE_LINE.exec(r)?.[1] ?? r;
        this.addRule(r, block !== undefined, !block && isRequestScoped(sentence, facts.typed));
      }
    } else if (m.role === 'assistant') {
      const facts = assistantFacts(m, text);
      const calls = toolCallsOf(m);
      // A notice a harness wrote in the agent's role ("No response requested.", a usage limit) is not
      // the agent's: no answer, no last message, no names; the turn stands as it was before it.
      if (!facts.trimmed && !calls.length && text.trim()) return;
      this.names.add(namesOfMessage(m), namesInCalls(m));
      if (facts.trimmed || calls.length || textActionGoesOn(text)) this.latestRequestUnanswered = false;
      if (facts.trimmed) {
        this.stepCalls = this.stepResults = 0;
        this.stepFailed = false;
        this.lastAssistant = facts.trimmed;
        this.lastAssistantEnds = true;
        this.lastAssistantClosed = true;
        for (const d of facts.decisions) this.addOnce(this.decisions, d);
        if (facts.checklist !== undefined) this.setTaskList(facts.checklist);
      }
      const tagged = calls.length ? undefined : progressChecklist('', text);
      if (tagged !== undefined) this.setTaskList(`(${PROGRESS_KEY}) ${clip(tagged, 2000)}`);
      // An action written in the text (SWE-agent) is a tool call too: its observation follows. One
      // handing the turn over (`submit`) ends the turn as a hand-over tool call does.
      if (textActionGoesOn(text)) {
        this.lastAssistantEnds = this.lastAssistantClosed = false;
        this.stepCalls++;
      }
      // A lone call that hands the turn over ends it, as a message with no tool call does: its words are the agent's last message.
      const handOver = calls.length === 1 ? handOverOf(calls[0].name) : calls.length ? undefined : textHandOver(text);
      if (calls.length || facts.trimmed) this.lastHandOver = handOver;
      if (handOver) {
        // What the call hands over (a completion's result, a plan, a question) is the answer; the
        // words before it in the message mostly announce it ("Let me provide a completion summary").
        const words = handOverText(calls[0]?.arguments ?? '') || facts.trimmed;
        if (words) {
          this.lastAssistant = clip(words, 4000);
          this.lastAssistantEnds = this.lastAssistantClosed = true;
        }
      }
      for (const c of calls) {
        if (!handOver) {
          this.lastAssistantEnds = this.lastAssistantClosed = false;
          this.stepCalls++;
        }
        this.calls.set(c.id, c);
        if (this.lastVerifyOf && !handOver && changesWork(c)) this.verifySuperseded = true;
        this.lastCallOf = c;
        this.lastCallResult = undefined;
        this.lastCallAnswered = false;
        // A task-list call that only shows the list (OpenHands `view`) changes nothing: the list before stays.
        if (writesTaskList(c.name, c.arguments)) {
          const items = planItems(c.arguments);
          this.setTaskList(
            `(${c.name}) ${items !== undefined ? clip(items, 2000) : c.arguments.length > 2000 ? `${c.arguments.slice(0, 1999)}…` : c.arguments}`,
          );
        } else if (!TASK_LIST_TOOL.test(c.name)) {
          const progress = progressChecklist(c.arguments);
          if (progress !== undefined) this.setTaskList(`(${PROGRESS_KEY}) ${clip(progress, 2000)}`);
        }
      }
    } else if (m.role === 'tool') {
      const call = this.calls.get((m as { tool_call_id?: string }).tool_call_id ?? '');
      if (call !== undefined && call === this.lastCallOf) this.lastCallResult = text;
      // An option the person clicked among those the agent offered: their choice, not typed words.
      const chose = isChosenOption(m) ? CHOSEN_ANSWER.exec(text)?.[1] : undefined;
      if (chose) this.addOnce(this.decisions, `- the user chose: ${clip(chose, 200)} (an option the agent offered)`);
      if (!call || !SHELL_CALL.test(call.name)) {
        this.stepResult(recordedToolOutcome(m) !== false);
        // A failed call's error lines name what broke (a missing symbol, a stack trace's function).
        if (recordedToolOutcome(m) === false) this.names.add(namesOfMessage(m, true));
        return;
      }
      // Only the newest failed command's output lines are quoted: read from the end, in result().
      // A run the recording marks as successful, or a probe's "no match", is no failure.
      // A placeholder for a missing result is no success: the step is not said to be carried out.
      const run =
        placeholderKind(text) === 'missing'
          ? { ok: false, denied: true }
          : commandOutcome(commandText(call.arguments), text, recordedToolOutcome(m));
      // A probe's negative answer ("no match") is a success; a denied run did not run.
      this.stepResult(run.ok);
      if (!run.ok && !run.denied) {
        this.commandOutputs.push({ call, text });
        this.names.add(namesOfMessage(m, true));
      }
      // Only the last verification run is quoted: its end is read once, in result(). Only commands
      // verify: a file written with "npm test" in it is not a test run.
      if (VERIFY.test(call.arguments)) {
        this.lastVerifyOf = { call, text };
        this.verifyBeforeRequest = this.verifySuperseded = false;
      }
    } else if (m.role === 'system' || m.role === 'developer') {
      if (text.trim()) this.push(this.state, `- System note: ${clip(text, 200)}`);
    }
  }

  /**
   * Adds the rule line `line` (standing or superseded) unless a rule line saying the same
   * ({@link ruleKey}) stands already, or `line` is superseded and one saying the same is there: one
   * line per rule, in the wording first given. A rule said again after it was superseded stands
   * again: the superseded line saying the same goes.
   */
  private addRule(line: string, first = false, scoped = false): void {
    const keyOf = (l: string) => {
      if (!this.ruleKeys.has(l)) this.ruleKeys.set(l, ruleKey(l));
      return this.ruleKeys.get(l);
    };
    const k = keyOf(line);
    if (k === undefined) {
      if (this.held.get(this.rules)?.has(line)) return;
      return this.pushRule(line, first, scoped);
    }
    const same = this.rules.filter((l) => keyOf(l)?.key === k.key);
    const standing = same.filter((l) => !k.standing || keyOf(l)?.standing);
    if (standing.length) {
      // Said again without a scope, a rule said first for one request stands for good.
      if (!scoped) for (const l of standing) this.scopedRules.delete(l);
      return;
    }
    const set = this.held.get(this.rules);
    for (const l of same) {
      const at = this.rules.indexOf(l);
      this.rules.splice(at, 1);
      set?.delete(l);
      if (at < this.firstRules) this.firstRules--;
    }
    this.pushRule(line, first, scoped);
  }

  /** Adds the rule line `line`: after the lasting instructions' lines when `first` (one of them), else last. */
  private pushRule(line: string, first: boolean, scoped: boolean): void {
    if (scoped) this.scopedRules.add(line);
    if (!first) return this.push(this.rules, line);
    this.push(this.rules, line);
    this.rules.splice(this.rules.length - 1, 1);
    this.rules.splice(this.firstRules++, 0, line);
  }

  /**
   * Applies the request `typed` to the standing rules ({@link ruleChange}): a rule it explicitly
   * reverses is marked superseded ({@link supersededLine}), and with it every standing rule that
   * forbids the same ({@link prohibitionKey}), in any wording; a rule it makes an exception to (work
   * asked on part of what the rule forbids) stands, with the exception named beside it
   * ({@link exceptionLine}), until a later request forbids again what the exception asked for
   * ({@link revokingSentence}): then the rule stands without it. Only an explicit reversal ends a rule.
   */
  private supersede(typed: string): void {
    const set = this.held.get(this.rules);
    // What the reversed rules forbade, by the sentence that reversed them: a standing rule that
    // forbids the same (said in other words) is reversed with them, never left standing beside them.
    const overridden = new Map<string, string>();
    const replace = (k: number, line: string) => {
      set?.delete(this.rules[k]);
      set?.add(line);
      this.rules[k] = line;
    };
    for (let k = 0; k < this.rules.length; k++) {
      // An exception a later prohibition forbids again no longer stands: the rule stands without it.
      const excepted = EXCEPTION_LINE.exec(this.rules[k]);
      if (excepted && revokingSentence(excepted[2], typed) !== undefined) replace(k, `- "${excepted[1]}"`);
      const rule = RULE_LINE.exec(this.rules[k])?.[1];
      const change = rule === undefined ? undefined : ruleChange(rule, typed);
      if (rule === undefined || change === undefined) continue;
      // A rule said for one request ends with the first later request that changes what it protected.
      if (change.kind === 'exception' && !this.scopedRules.has(this.rules[k])) {
        replace(k, exceptionLine(rule, change.by));
        continue;
      }
      this.scopedRules.delete(this.rules[k]);
      const key = prohibitionKey(rule);
      if (key !== undefined) overridden.set(key, change.by);
      replace(k, supersededLine(rule, change.by));
    }
    if (!overridden.size) return;
    for (let k = 0; k < this.rules.length; k++) {
      const rule = RULE_LINE.exec(this.rules[k])?.[1];
      const key = rule === undefined ? undefined : prohibitionKey(rule);
      const by = key === undefined ? undefined : overridden.get(key);
      if (rule !== undefined && by !== undefined) replace(k, supersededLine(rule, by));
    }
  }

  /** Counts one result of a tool call made after the agent's last message. */
  private stepResult(ok: boolean): void {
    if (this.stepCalls === 0) return;
    this.stepResults++;
    if (!ok) this.stepFailed = true;
  }

  /** Reads an earlier summary; a recorded agent's own (`imported`) is quoted as it is, never read as our sections. */
  private addSummary(body: string, imported = false): void {
    const sec = parseSections(body);
    // A line with nothing in it (an empty quote, `- ""`) is not carried.
    for (const [h, lines] of sec)
      sec.set(
        h,
        lines.filter((l) => !isEmptyItem(l)),
      );
    const older = sec.get(OLD_FILES_HEADING);
    if (older) sec.set(LEDGER.files, [...(sec.get(LEDGER.files) ?? []), ...older]);
    const ours =
      !imported &&
      [
        SECTIONS.rules,
        SECTIONS.current,
        SECTIONS.files,
        SECTIONS.constraints,
        SECTIONS.objective,
        SECTIONS.completed,
      ].some((h) => sec.has(h));
    if (!ours) {
      // A summary in another shape (written by a recording agent): quoted whole; the notes shrink
      // it by sentences, causes, fixes and files last (quoted-summary.ts). The answers quoted beside
      // it at import join this summary's answers.
      for (const l of quoteSummary(body)) this.earlier.push(l);
      for (const l of sec.get(SECTIONS.answers) ?? []) this.addOnce(this.answers, l);
      this.afterEarlier = 0;
      return;
    }
    for (const l of sec.get(SECTIONS.rules) ?? []) {
      const left = rulesLeftOutCount(l);
      if (left !== undefined) this.rulesLeftOut += left;
      else this.addRule(l);
    }
    for (const l of sec.get(SECTIONS.constraints) ?? []) if (l.startsWith('- User:')) this.addOnce(this.rules, l);
    for (const l of sec.get(SECTIONS.decisions) ?? []) this.addOnce(this.decisions, l);
    const theirs = (sec.get(SECTIONS.current) ?? []).map(parseRootsLine).find((r) => r !== undefined);
    this.carriedRoots ??= theirs;
    // Lines written from other folder names are written out in full: they stay right whatever this summary names.
    const other = theirs && theirs !== this.carriedRoots ? theirs : undefined;
    // A new map: a result taken earlier keeps the one it was given (the ledger memo compares by identity).
    const carried = new Map(this.carried);
    // Commits are carried as commits: those of the commits section, and those the summary kept
    // apart when its commits section gave way (the kept section's commits line).
    const keptCommits = (sec.get(KEPT_HEADING) ?? []).filter((l) => l.startsWith(KEPT_COMMITS_LINE));
    sec.set(LEDGER.commits, [...(sec.get(LEDGER.commits) ?? []), ...keptCommits]);
    for (const h of [LEDGER.files, LEDGER.commands, LEDGER.errors, LEDGER.commits, LEDGER.environment]) {
      const lines = (sec.get(h) ?? []).filter((l) => !isListNote(l));
      carried.set(h, [
        ...(carried.get(h) ?? []),
        ...(other && h !== LEDGER.commands ? lines.map((l) => expandRoots(other, l)) : lines),
      ]);
    }
    this.carried = carried;
    const cur = sec.get(SECTIONS.current);
    // Sections an earlier summary left out stay named in every later one: never gone in silence.
    for (const l of cur ?? []) {
      const named = leftOutSections(l);
      if (named)
        for (const [name, n] of named) this.sectionsLeftOut.set(name, (this.sectionsLeftOut.get(name) ?? 0) + n);
    }
    if (cur)
      this.carriedCurrent = cur
        .filter((l) => parseRootsLine(l) === undefined)
        .map((l) => (other ? expandRoots(other, l) : l));
    const quoted = sec.get(SECTIONS.earlier) ?? [];
    for (const l of quoted) if (!l.startsWith(EARLIER_AS_WRITTEN)) this.earlier.push(l);
    // A quote already marked as followed by later work stays marked.
    if (quoted.length) this.afterEarlier = quoted.some((l) => l.startsWith(EARLIER_AS_WRITTEN)) ? 1 : 0;
    for (const l of sec.get(SECTIONS.answers) ?? []) this.addOnce(this.answers, l);
    this.names.carry(namesFromLines(sec.get(SECTIONS.names) ?? []));
  }

  /**
   * The reading of the messages added so far. The line lists are copies; `calls` is the live map
   * (read it before adding more messages).
   */
  result(): SpanReading {
    let lastCommandError: string | undefined;
    let lastFailedCommand: string | undefined;
    for (let k = this.commandOutputs.length - 1; k >= 0 && lastCommandError === undefined; k--) {
      const { call, text } = this.commandOutputs[k];
      const lines = failureLines(call.arguments, printedText(text)).map((l) => clip(l, 300));
      if (lines.length) lastFailedCommand = commandText(call.arguments);
      if (lines.length)
        lastCommandError = `(\`${clip(oneLineCommand(commandText(call.arguments)), 140)}\`): ${lines.map((l) => `"${l}"`).join(' | ')}`;
    }
    const last = this.lastCallOf;
    const label = last ? shellLabel(last) || argumentShape(last.arguments) : '';
    // A call the span holds no result for (or only the placeholder the product added for a missing
    // one) got none: said so, never left to read as a success or a failure.
    const noResult =
      last !== undefined && (this.lastCallResult === undefined || placeholderKind(this.lastCallResult) === 'missing');
    const lastCall = last
      ? `${label ? `${last.name} ${label}` : last.name}${noResult ? (this.lastCallAnswered ? ANSWERED_NOTE : NO_RESULT_NOTE) : ''}`
      : undefined;
    let lastVerify: string | undefined;
    if (this.lastVerifyOf) {
      // The end of a run's output holds its verdict ("42 passed, 0 failed"): keep the end. A
      // placeholder the product wrote in the output's place is no outcome: it is not quoted.
      const { call, text } = this.lastVerifyOf;
      const kind = placeholderKind(text);
      const tail = printedText(text).trim().split('\n').slice(-3).join(' | ').replace(/\s+/g, ' ');
      lastVerify = `${call.name} ${clip(oneLineCommand(commandText(call.arguments)), 200)} → ${
        kind === undefined ? clipStart(tail, 160) : placeholderOutcome(kind, text)
      }`;
    }
    return {
      rules: this.rules.slice(),
      rulesLeftOut: this.rulesLeftOut,
      decisions: this.decisions.slice(),
      state: this.state.slice(),
      earlier: this.earlier.slice(),
      afterEarlier: this.afterEarlier,
      answers: this.answers.slice(),
      carried: this.carried,
      calls: this.calls,
      latestRequest: this.latestRequest,
      lastAssistant: this.lastAssistant,
      lastAssistantEnds: this.lastAssistantEnds,
      lastAssistantClosed: this.lastAssistantClosed,
      latestRequestUnanswered: this.latestRequestUnanswered,
      lastHandOver: this.lastHandOver,
      lastAssistantStepDone:
        !this.lastAssistantClosed && this.stepCalls > 0 && this.stepResults >= this.stepCalls && !this.stepFailed,
      lastCall,
      lastTaskList: this.lastTaskList,
      taskListAt: this.taskListAt,
      lastVerify,
      taskListBeforeRequest: this.taskListBeforeRequest,
      verifyBeforeRequest: this.verifyBeforeRequest,
      verifySuperseded: this.verifySuperseded,
      lastCommandError,
      lastFailedCommand,
      carriedCurrent: this.carriedCurrent,
      sectionsLeftOut: new Map(this.sectionsLeftOut),
      carriedRoots: this.carriedRoots,
      names: this.names.ranked(MAX_NAMES),
    };
  }
}
