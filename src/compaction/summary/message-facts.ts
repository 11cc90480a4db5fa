/**
 * What the extractive notes take from one message, kept per message object (messages are never
 * mutated): a user message's typed request, rules and quoted tool-output errors; an assistant
 * message's decisions and checklist. Pure: no I/O.
 */
import type { ContextItem } from '../types';
import { errorLines, isToolOutputText } from '../text';
import { typedRequestOf } from './requests';
import { DECISION, isProse, MAX_RULE_CHARS, NOT_DECISION, ruleSentences, sentences } from './prose';
import { MessageMemo } from '../message-memo';
import { agentWords } from '../harness-text';

/** One line of at most `max` characters (quotes must not bring their own headings or lists along). */
export function clip(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  // Cut where a sentence ends, else where a word ends, in the last two fifths: never mid-word.
  const room = t.slice(0, max - 1);
  const floor = Math.floor(max * 0.6);
  const sentence = Math.max(room.lastIndexOf('. '), room.lastIndexOf('! '), room.lastIndexOf('? '));
  if (sentence >= floor) return `${room.slice(0, sentence + 1)} …`;
  const word = room.lastIndexOf(' ');
  return `${word >= floor ? room.slice(0, word) : room}…`;
}

/**
 * The end of `s` as one line of at most `max` characters, for text whose end matters (a run's
 * verdict): cut where a line (` | `) or else a word begins, within the first two fifths of what is
 * kept, never mid-word unless one word fills them; `… ` marks where text was left out.
 */
export function clipStart(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  const room = t.slice(t.length - (max - 2));
  const ceiling = Math.floor(max * 0.4);
  const line = room.indexOf(' | ');
  if (line >= 0 && line <= ceiling) return `… ${room.slice(line + 3)}`;
  const word = room.indexOf(' ');
  if (word >= 0 && word <= ceiling) return `… ${room.slice(word + 1)}`;
  return `…${room}`;
}

/** What the notes take from one user message (kept per message object: messages are never mutated). */
export interface UserFacts {
  /** Error lines of tool output sent in the user role, as note lines. */
  errors: string[];
  typed: string | undefined;
  /** Sentences of the typed request that state a rule, as note lines. */
  rules: string[];
}

/** What the notes take from one assistant message. */
export interface AssistantFacts {
  trimmed: string;
  decisions: readonly string[];
  /** The message's checklist as the latest plan, when it has one. */
  checklist: string | undefined;
}

const NO_LINES: readonly string[] = Object.freeze([]);
const userFactsCache = new MessageMemo<object, UserFacts>();
const assistantFactsCache = new MessageMemo<object, AssistantFacts>();

/** The facts of a user message (`text` is its content text). */
export function userFacts(it: ContextItem, text: string): UserFacts {
  const hit = userFactsCache.get(it.message);
  if (hit) return hit;
  const errors: string[] = [];
  if (isToolOutputText(text)) {
    // Tool output carried in a user message (SWE-agent observations, Cline results): quoted as such.
    // A numbered line is a file's content shown (`cat -n`, an editor's view): code that names an
    // exception is not a failure.
    const shown = text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/^[ \t]*\d+\t.*$/gm, '');
    for (const e of errorLines(shown, 2))
      errors.push(`- Error in tool output (user-role observation): "${clip(e, 240)}"`);
  }
  const typed = typedRequestOf(it);
  const rules: string[] = [];
  // Each rule is whole and at most MAX_RULE_CHARS long: `clip` only folds its white space.
  if (typed) for (const s of ruleSentences(typed)) rules.push(`- "${clip(s, MAX_RULE_CHARS)}"`);
  const facts = { errors, typed, rules };
  userFactsCache.set(it.message, facts);
  return facts;
}

/** A checkbox item (`- [ ] …`, `- [x] …`): a to-do list whatever introduces it. */
const CHECKBOX = /^\s*[-*] \[[ xX]\]\s+\S/;
/** A numbered item (`1. …`). */
const NUMBERED = /^\s*\d+\.\s+\S/;
/**
 * A line introducing steps the agent commits to ("We need to:", "Here's my plan:", "Next steps:",
 * "I'll:"): it ends in a colon and speaks of what is to be done.
 */
const PLAN_INTRO =
  /\b(?:plan|steps?|to-?dos?|tasks?|need to|must|will|'ll|going to|let me|let's|next|remaining|implement(?:ation)?)\b[^\n]*:\s*(?:\*\*)?\s*$/i;
/**
 * Words of an introduction or a question putting choices to the user, or reporting what was found
 * ("Options:", "Which would you prefer?", "Key findings:"): numbered items under it are no plan.
 */
const NOT_PLAN =
  /\b(?:options?|choices?|alternatives?|ways?|either|which (?:one|option|approach|would|do)|would you (?:like|prefer)|do you want|prefer|choose|pick|findings?|found|discovered|summary|changes made|what (?:i|we) (?:did|changed))\b/i;

/**
 * The items of the to-do list or plan a message of the agent's (`text`, its own words) states, in
 * order: its checkbox items (`- [ ] …`), else its numbered items when the line introducing them
 * commits to them as steps ({@link PLAN_INTRO}). Numbered options put to the user, or numbered
 * findings, are no plan ({@link NOT_PLAN}, in the introduction or in a question of the message).
 */
export function planLines(text: string): string[] {
  const lines = text.split('\n');
  const boxes = lines.filter((l) => CHECKBOX.test(l));
  if (boxes.length) return boxes;
  const first = lines.findIndex((l) => NUMBERED.test(l));
  if (first < 0) return [];
  // The sentence just before the first item introduces the list ("The bug is confirmed. We need to:").
  const intro = sentences(lines.slice(0, first).join('\n')).at(-1);
  if (intro === undefined || !PLAN_INTRO.test(intro) || NOT_PLAN.test(intro)) return [];
  const asks = sentences(text).some((q) => /[?？]\s*$/.test(q.trim()) && NOT_PLAN.test(q));
  return asks ? [] : lines.filter((l) => NUMBERED.test(l));
}

/**
 * The facts of an assistant message (`text` is its content text). `trimmed` holds the agent's own
 * words (`agentWords`): '' for a notice a harness wrote in the agent's role.
 */
export function assistantFacts(m: ContextItem['message'], text: string): AssistantFacts {
  const hit = assistantFactsCache.get(m);
  if (hit) return hit;
  const trimmed = agentWords(text);
  const decisions: string[] = [];
  let checklist: string | undefined;
  if (trimmed) {
    // The agent's words alone: its inline reasoning decided nothing the person read.
    for (const s of sentences(trimmed))
      if (isProse(s) && DECISION.test(s) && !NOT_DECISION.test(s)) decisions.push(`- agent: "${clip(s, 300)}"`);
    const items = planLines(trimmed);
    if (items.length >= 2) checklist = `(from the agent's message) ${clip(items.join(' | '), 1500)}`;
  }
  // Most messages state no decision: one shared empty list instead of one per message kept.
  const facts = { trimmed, decisions: decisions.length ? decisions : NO_LINES, checklist };
  assistantFactsCache.set(m, facts);
  return facts;
}

/** Tool names that keep the agent's task list (`todo_write`, `update_plan`, `task_tracker`, `TodoWrite`). */
export const TASK_LIST_TOOL = /todo|task_?list|task_?tracker|update_?plan|^plan$/i;
/** What a task-list tool is asked to do when it only shows the list (OpenHands `task_tracker` `view`). */
const SHOW_ONLY = /^(?:view|list|show|get|read)$/i;

/**
 * Whether the call `name` with JSON arguments `args` writes the agent's task list: a task-list tool
 * ({@link TASK_LIST_TOOL}) not asked only to show it (`{"command": "view"}` changes nothing, so the
 * list written before it stays the latest).
 */
export function writesTaskList(name: string, args: string): boolean {
  if (!TASK_LIST_TOOL.test(name)) return false;
  const m = /"(?:command|action|operation)"\s*:\s*"(\w+)"/.exec(args);
  return !(m && SHOW_ONLY.test(m[1]));
}
