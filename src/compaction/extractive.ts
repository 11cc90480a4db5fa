/**
 * A summarizer that needs no model: it extracts sectioned notes from the replaced span — user
 * requests and constraints verbatim, files and commands touched with their outcomes, error lines,
 * the latest task list and verification result, and the last state — bounded in tokens.
 */
import type { ContextItem, Summarizer, SummaryRequest, SummaryResult } from './types';
import { SummarizerError } from './types';
import { contentText, errorLines, isToolOutputText, keyArguments, looksLikeError, toolCallsOf, userWrittenText } from './text';

/** Section headings shared by every summarizer's notes. */
export const SECTIONS = {
  objective: '## Objective',
  constraints: '## Decisions and constraints',
  completed: '## Work completed',
  state: '## Latest state',
  identifiers: '## Identifiers',
  unresolved: '## Unresolved and next step',
  earlier: '## Earlier summary',
  focus: '## On the requested focus',
} as const;

/** Lines quoted for a focus, at most. */
const MAX_FOCUS_LINES = 12;
const FOCUS_STOPWORDS = new Set(['keep', 'focus', 'the', 'that', 'this', 'with', 'and', 'about', 'from', 'into', 'what', 'when', 'only', 'also', 'them', 'their', 'some', 'more', 'most', 'please', 'summary', 'summarize']);

/** Content words of a focus text (4 letters or more, lower case, stop words removed). */
function focusWords(focus: string): string[] {
  return [...new Set(focus.toLowerCase().split(/[^\p{L}\p{N}_.-]+/u).filter((w) => w.length >= 4 && !FOCUS_STOPWORDS.has(w)))];
}

const CONSTRAINT = /\b(must|never|always|do not|don't|dont|should not|shouldn't|only|avoid|prefer|instead of|make sure|required?|no longer)\b/i;
const TASK_LIST_TOOL = /todo|task_?list|task_?tracker|update_plan/i;
/** Tools that run commands, and commands that verify work (tests, builds, type checks, linters). */
const COMMAND_TOOL = /bash|shell|command|exec|terminal|run|python|test/i;
const VERIFY = /\b(pytest|jest|vitest|mocha|tox|(npm|pnpm|yarn|bun) (run )?(test|build|lint|typecheck|check)|cargo (test|build|check|clippy)|go (test|build|vet)|tsc|eslint|ruff|mypy|make( \w+)?|mvn|gradle|dotnet (test|build)|phpunit|rspec)\b/;
const EDIT_TOOL = /write|edit|replace|patch|create|apply|str_replace/i;

/** One line of at most `max` characters (quotes must not bring their own headings or lists along). */
function clip(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** Replies that are not requests (confirmations at a prompt, leaving the tool). */
const TRIVIAL = /^(y|n|yes|no|ok|okay|exit|quit|continue|go on|<blank>|\/\w+.*)$/i;
/** Notices an agent harness writes into the user role (Cline, Claude Code), not the user's words. */
const HARNESS = /^(\[ERROR\]|\[Request interrupted|\[TASK RESUMPTION\]|# TODO LIST|# task_progress|Files attached by the user: # task_progress|The user has provided feedback on the results)/i;
/** A line that reads as prose a person wrote (not code, a listing, a heading or tool output). */
function isProse(line: string): boolean {
  const t = line.trim();
  return t.length > 8 && t.length < 300 && /^[\p{L}"'(]/u.test(t) && !/^\d+\t/.test(t) && !/[│┌└├]/.test(t) && /\s/.test(t);
}

/** Splits earlier notes into their sections (lines under each `## ` heading). */
function parseSections(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let current = '';
  for (const line of text.split('\n')) {
    if (line.startsWith('## ')) {
      current = line.trim();
      if (!out.has(current)) out.set(current, []);
    } else if (current && line.trim()) out.get(current)!.push(line.trim());
  }
  return out;
}

/**
 * Extractive summarizer. `countText` counts tokens (the meter's); the result is cut to
 * `approximateSummaryTokens` tokens by dropping the least important lines first.
 */
export class ExtractiveSummarizer implements Summarizer {
  readonly name = 'extractive';

  constructor(private readonly countText: (text: string) => number) {}

  /** Never calls a model. Throws SummarizerError(`aborted`) when the signal is aborted. */
  async summarize(request: SummaryRequest): Promise<SummaryResult> {
    if (request.signal?.aborted) throw new SummarizerError('compaction cancelled', 'aborted');
    const text = this.notes(request.items, request.approximateSummaryTokens, request.focus);
    return { text, model: 'extractive', usage: { calls: 0, promptTokens: 0, completionTokens: 0 }, dropped: 0 };
  }

  /** Builds the notes for `items`, at most `maxTokens` tokens. */
  notes(items: readonly ContextItem[], maxTokens: number, focus?: string): string {
    const objective: string[] = [];
    const constraints: string[] = [];
    const completed: string[] = [];
    const state: string[] = [];
    const unresolved: string[] = [];
    const errors: string[] = [];
    const earlier: string[] = [];
    const calls = new Map<string, { name: string; arguments: string }>();
    const outcomes = new Map<string, { ok: boolean; text: string }>();
    let lastAssistant = '';
    let lastTaskList: string | undefined;
    let lastVerify: string | undefined;

    for (const it of items) {
      const m = it.message;
      if (it.kind === 'summary') {
        // Fold earlier notes in: constraints verbatim, the rest condensed.
        const body = contentText(m);
        const sec = parseSections(body);
        const ours = [SECTIONS.constraints, SECTIONS.objective, SECTIONS.completed].some((h) => sec.has(h));
        if (!ours) {
          // A summary in another shape (written by a recording agent): keep its opening, whole lines.
          earlier.push(...body.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('[Summary of')).slice(0, 40).map((l) => `> ${clip(l, 300)}`));
          continue;
        }
        for (const l of sec.get(SECTIONS.constraints) ?? []) if (!constraints.includes(l)) constraints.push(l);
        // A focus line belonged to that compaction only.
        for (const l of sec.get(SECTIONS.objective) ?? []) if (!objective.includes(l) && !l.startsWith('- Focus requested')) objective.push(l);
        for (const l of sec.get(SECTIONS.completed) ?? []) completed.push(l);
        for (const l of sec.get(SECTIONS.earlier) ?? []) earlier.push(l);
        continue;
      }
      const text = contentText(m);
      if (m.role === 'user') {
        if (isToolOutputText(text)) {
          // Tool output carried in a user message (SWE-agent observations, Cline results).
          for (const e of errorLines(text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, ''), 2)) if (!errors.includes(`- ${e}`)) errors.push(`- ${e}`);
          continue;
        }
        const t = userWrittenText(text);
        if (!t || TRIVIAL.test(t) || HARNESS.test(t)) continue;
        // The first request usually states the goal: it keeps more of its words.
        const request = `- Earlier request: "${clip(t, objective.length === 0 ? 1500 : 400)}"`;
        if (!objective.includes(request)) objective.push(request);
        for (const sentence of t.split(/(?<=[.!?])\s+|\n+/)) {
          if (isProse(sentence) && CONSTRAINT.test(sentence)) {
            const line = `- User: "${clip(sentence, 300)}"`;
            if (!constraints.includes(line)) constraints.push(line);
          }
        }
      } else if (m.role === 'assistant') {
        if (text.trim()) lastAssistant = text.trim();
        for (const c of toolCallsOf(m)) {
          calls.set(c.id, c);
          if (TASK_LIST_TOOL.test(c.name)) lastTaskList = `${c.name} ${c.arguments.length > 2000 ? `${c.arguments.slice(0, 1999)}…` : c.arguments}`;
        }
      } else if (m.role === 'tool') {
        const id = (m as { tool_call_id?: string }).tool_call_id ?? '';
        const ok = !looksLikeError(text);
        outcomes.set(id, { ok, text });
        if (!ok) for (const e of errorLines(text, 2)) if (!errors.includes(`- ${e}`)) errors.push(`- ${e}`);
        const call = calls.get(id);
        if (call && COMMAND_TOOL.test(call.name) && VERIFY.test(call.arguments)) {
          const tail = text.trim().split('\n').slice(-3).join(' | ');
          lastVerify = `${call.name} ${keyArguments(call.arguments, 100)} → ${ok ? 'ok' : 'failed'}: ${clip(tail, 240)}`;
        }
      } else if (m.role === 'system' || m.role === 'developer') {
        if (text.trim()) state.push(`- System note: ${clip(text, 200)}`);
      }
    }
    const failedOpen = new Map<string, string>();
    for (const [id, c] of calls) {
      const o = outcomes.get(id);
      const key = `${c.name} ${keyArguments(c.arguments, 100)}`;
      const status = o === undefined ? 'no result' : o.ok ? 'ok' : 'error';
      const verb = EDIT_TOOL.test(c.name) ? (status === 'ok' ? 'changed' : 'tried to change') : 'ran';
      completed.push(`- [${id}] ${verb} ${key} → ${status}`);
      if (status === 'error') failedOpen.set(key, `- ${key} failed${o ? `: ${clip(errorLines(o.text, 1)[0] ?? '', 160)}` : ''}`);
      else failedOpen.delete(key);
    }
    if (lastTaskList) state.push(`- Latest task list (verbatim): ${lastTaskList}`);
    if (lastVerify) state.push(`- Latest verification: ${lastVerify}`);
    unresolved.push(...failedOpen.values());
    if (lastAssistant) unresolved.push(`- Last assistant message in this span: "${clip(lastAssistant, 500)}"`);
    // Constraints: the first ones usually set the rules, the latest ones refine them.
    if (constraints.length > 12) constraints.splice(4, constraints.length - 12);
    // Many requests (long sessions): the first ones state the goal, the last ones the current work.
    if (objective.length > 10) objective.splice(3, objective.length - 10, `- … ${objective.length - 10} more requests in between`);
    const focused: string[] = [];
    if (focus) {
      objective.unshift(`- Focus requested for this summary: ${clip(focus, 200)}`);
      // Lines of the span that mention the focus words, verbatim: the extractive answer to
      // "focus on X" (a model summarizer gets the focus in its instruction instead).
      const words = focusWords(focus);
      if (words.length > 0) {
        for (const it of items) {
          if (it.kind === 'summary') continue;
          for (const line of contentText(it.message).split('\n')) {
            const t = line.trim();
            if (t.length < 6 || focused.length >= MAX_FOCUS_LINES) continue;
            const lower = t.toLowerCase();
            if (words.some((w) => lower.includes(w)) && !focused.includes(`- ${clip(t, 240)}`)) focused.push(`- ${clip(t, 240)}`);
          }
        }
      }
    }

    // Lowest priority first out: work completed (oldest first), errors, state, objective, constraints.
    const sections: Array<[string, string[], number]> = [
      [SECTIONS.objective, objective, 2],
      [SECTIONS.constraints, constraints, 1],
      [SECTIONS.completed, completed, 5],
      [SECTIONS.state, [...state, ...errors.map((e) => e.replace(/^- /, '- Error seen: '))], 3],
      [SECTIONS.unresolved, unresolved, 4],
      [SECTIONS.earlier, earlier, 3],
      [SECTIONS.focus, focused, 2],
    ];
    const render = () => sections.filter(([, lines]) => lines.length > 0).map(([h, lines]) => `${h}\n${lines.join('\n')}`).join('\n\n');
    let out = render();
    // Trim: drop oldest lines of the least important non-empty section until it fits.
    let guard = 0;
    const size = (lines: string[]) => lines.reduce((n, l) => n + l.length, 0);
    const completedAll = completed.length;
    while (this.countText(out) > maxTokens && guard++ < 10_000) {
      // Shrink the largest section first (constraints last), so no section is wiped out by another.
      const victim = [...sections].filter(([, l, p]) => l.length > 0 && p > 1).sort((a, b) => size(b[1]) - size(a[1]))[0] ?? sections[1];
      if (victim[1].length === 0) break;
      // Drop in halves when far over, one line when close: keeps this loop short on huge spans.
      const over = this.countText(out) / maxTokens;
      const n = over > 2 ? Math.max(1, Math.floor(victim[1].length / 2)) : 1;
      victim[1].splice(victim[2] === 5 ? 0 : victim[1].length - n, n);
      out = render();
    }
    const left = completedAll - completed.length;
    if (left > 0) {
      // Say what was left out, so a reader never takes the list for everything that was done.
      completed.unshift(`- … ${left} earlier tool call${left === 1 ? '' : 's'} not listed`);
      out = render();
    }
    return out || `${SECTIONS.completed}\n- ${items.length} earlier messages with no text content.`;
  }
}
