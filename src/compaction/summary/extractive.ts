/**
 * A summarizer that needs no model: it extracts sectioned notes from the replaced span — the user's
 * standing rules verbatim, the current work and next step (latest request verbatim, latest plan, what
 * was in progress), errors with their fixes, a work-state ledger of files and commands built from the
 * tool calls, decisions with their reasons — bounded in tokens. The typed requests themselves are
 * kept by the compactor in their own section (`requests.ts`), outside these notes.
 *
 * Text that came from a tool is never presented as the user's words: it is quoted with the tool (and
 * path or command) it came from.
 */
import type { ContextItem, Summarizer, SummaryRequest, SummaryResult } from '../types';
import { SummarizerError } from '../types';
import { isToolOutputText, toolCallsOf } from '../text';
import { textWithPlaceholders } from '../content-text';
import { agentWords } from '../harness-text';
import { focusQuotes } from './focus-quotes';
import { clip } from './message-facts';
import { shortenLine } from './line-shorten';
import { asksQuestion, leavesStepOpen, reportsFinishedWork } from './completion';
import { collectRequests, typedRequestOf } from './requests';
import { omittedNote } from './requests-section';
import { leftOutLine, sectionName } from './compose-summary';
import { actionsOf, type Action } from './ledger/actions';
import { GrowingSpan } from '../meter/span-memo';
import {
  answeredByUser,
  answerText,
  DOCUMENT_FILE,
  EARLIER_AS_WRITTEN,
  editBlockFiles,
  handOverOf,
  rulesLeftOutLine,
  SECTIONS,
  SpanScan,
  SUPERSEDED_RULE,
  textActionGoesOn,
  textHandOver,
} from './span-scan';
import { buildLedger, INPUT_LINE, LEFT_LINE, OPEN_LINE, unfixedBody, type LedgerLines } from './ledger/ledger';
import { commandKey, LedgerFold, oneLineCommand } from './ledger/ledger-fold';
import { expectedOutcomes } from './ledger/expected-failures';
import { planNextStep, planProgress } from './plan-progress';
import { DISCARDED_NOTE, discardedFiles, fileKey } from './discarded-files';
import { chooseRoots, rootsLine, shortPath, type PathRoots } from './ledger/path-root';
import { nameLines, namesFromLines, namesLeftOutLine } from './identifiers/worked-names';
import { leftWhenTurnEnded } from '../earlier-turn';
import { quotedSentences, shrinkQuoted } from './quoted-summary';
import {
  dropOldestNames,
  dropReadNames,
  dropsNameNext,
  expandFolderLines,
  mergeFolderLines,
  FILES_LEFT_OUT,
  filesNamed,
  foldIntoFolders,
  foldReadLine,
  hasDetail,
  isFileLine,
  isFolderLine,
  shortDetail,
  withoutDetail,
} from './ledger/file-names';
import { LineCounter, lineStoreFull, newLineStore, type LineStore } from '../../tokenizer/line-count';

/** The actions of nothing (no items after the span). */
const NO_ACTIONS: readonly Action[] = Object.freeze([]);

/** The agent's answers offered to the notes, newest (see `SpanScan`); the budget keeps fewer. */
const MAX_ANSWERS = 12;

/** Files named in "Files edited most recently". */
const RECENT_FILES = 5;
/**
 * Characters per token of budget above which a line being halved is halved again without a count
 * in between: 16 is four times the usual ~4 characters a token, so such a line could not fit.
 */
const UNCOUNTED_HALVING_CHARS_PER_TOKEN = 16;

/**
 * Share of the notes' budget that the files section keeps at least once its files are named only by
 * folder: below it the standing rules (all but the first) give way before any file's name does.
 */
const FILES_FLOOR_SHARE = 0.5;
/**
 * Share of the notes' budget the standing rules keep whatever the files' floor: the user's constraints
 * still in force are read back by every later summary, so rules dropped here are gone from all of them.
 */
const RULES_FLOOR_SHARE = 0.5;

/**
 * Labels of the current-work lines that are named when the budget drops them: the plan or to-do
 * list, a verification, and the agent's last message (its answer, its work in progress).
 */
const NAMED_WHEN_DROPPED =
  /^(?:Latest plan|Plan or to-do|Latest verification|Verification|Answered|Work completed|In progress|Step carried out|Waiting for the user|The agent)/;

/** A current-work line's label, the words before its first `:` or ` (`: "Latest plan or to-do list". */
function currentLabel(line: string): string {
  return line.slice(2).split(/:| \(/)[0];
}

/** A current-work line about an earlier request than the latest: its verification, its plan (see `aged` in the notes). */
const AGED_LINE = /^- (?:Verification|Plan or to-do list) from an earlier request /;
/**
 * The current-work line quoting the agent's answer to an earlier request than the latest: it goes
 * before the name of a file changed that "Files edited most recently" does not name (`dropsNameNext`):
 * a file changed is the state of the code, and the answers section quotes the answer where it has room.
 */
const ANSWERED_EARLIER = /^- Answered an earlier request /;
/** A changed file's line as `expandFolderLines` writes a folder line's name: its path. */
const FOLDER_NAME_LINE = /^- (.+) \((?:created|edited|deleted|moved here)\)$/;

/** Lines of current state that the budget never removes: what an agent needs to pick the work up. */
const CURRENT_STATE =
  /^- (Files edited most recently|Last tool call|Latest error line in command output|Latest verification|Path roots)(:| \()/;

/** A state line quoting an error from tool output in the user role (see `message-facts.ts`), with the error text. */
const OBSERVATION_ERROR = /^- Error in tool output \(user-role observation\): "(.+)"$/;

/** Lines of `all` that say a rule was superseded and are not in `kept`: no rule in force was left out with them. */
function supersededDropped(all: readonly string[], kept: readonly string[]): number {
  const left = new Set(kept);
  return all.filter((l) => l.startsWith(SUPERSEDED_RULE) && !left.has(l)).length;
}

/** The failures of the ledger's open lines, at most four, each as the line names it (a command in backticks, or a file and its tool). */
function openNames(open: readonly string[]): string {
  const names = open.map((l) =>
    l
      .slice('- open: '.length)
      .split(' → ')[0]
      .replace(/: ([^:]+) failed: .*$/, ' ($1)'),
  );
  return `${names.slice(-4).join('; ')}${names.length > 4 ? `; and ${names.length - 4} more` : ''}`;
}

/**
 * Whether the agent's turn went on after the span: the first message kept after it is a tool result,
 * or an agent message with a tool call (or a text action), before any typed request.
 */
function turnGoesOn(after: readonly ContextItem[], handedOver = false): boolean {
  for (const it of after) {
    if (it.kind === 'summary') continue;
    const m = it.message;
    // The result of a call that handed the turn over holds the person's reply, not more work.
    if (m.role === 'tool') {
      if (handedOver) continue;
      return true;
    }
    if (m.role === 'assistant') {
      const text = textWithPlaceholders(m.content);
      const calls = toolCallsOf(m);
      return calls.length > 1 || (calls.length === 1 && !handOverOf(calls[0].name)) || textActionGoesOn(text);
    }
    if (m.role !== 'user') continue;
    if (typedRequestOf(it) !== undefined) return false;
    // A tool's output in the user role (SWE-agent observations) answers a call: the turn went on,
    // unless the call handed the turn over (`submit`: its observation is the submitted patch).
    if (!handedOver && isToolOutputText(textWithPlaceholders(m.content))) return true;
  }
  return false;
}

/**
 * Who moves next at the end of the whole context: `agent` while its turn goes on (tool calls followed
 * its last message), `newer request` when the person typed a request after the agent's last final
 * message, `user` when the agent's last message ended its turn (no tool call after it, or one handing
 * the turn over) and nothing came after it. `spanClosed`/`spanReplied` say so of the span (see
 * `SpanScan`); `after` are the messages kept after it, read in order. `waits`: the agent's final
 * message in `after` asked a question or proposed a step (a plan or a question handed over by a tool
 * included), undefined when no message in `after` ended the turn. `finishedBy`: the finishing action
 * (`submit`, `finish`, `attempt_completion`) the last of them handed the task in with, if any.
 * `answered`: the last of them is a plain final answer (text, no tool call nor hand-over, neither a
 * question nor a step proposed): the agent finished and waits for the next request.
 */
function turnAtEnd(
  spanClosed: boolean,
  spanReplied: boolean,
  after: readonly ContextItem[],
): { who: 'agent' | 'newer request' | 'user'; waits?: boolean; finishedBy?: string; answered?: boolean } {
  let who: 'agent' | 'newer request' | 'user' = spanReplied ? 'user' : spanClosed ? 'newer request' : 'agent';
  let waits: boolean | undefined;
  let finishedBy: string | undefined;
  let answered: boolean | undefined;
  for (const it of after) {
    if (it.kind === 'summary') continue;
    const m = it.message;
    if (m.role === 'user') {
      if (typedRequestOf(it) !== undefined) {
        who = 'newer request';
        finishedBy = undefined;
        answered = undefined;
      }
      // The observation of an action handing the turn over (SWE-agent `submit`) is no more work.
      else if (who !== 'user' && isToolOutputText(textWithPlaceholders(m.content))) who = 'agent';
    } else if (m.role === 'tool') {
      // A tool result after a final message answers a call handing the turn over (the person's reply).
      if (who !== 'user') who = 'agent';
    } else if (m.role === 'assistant') {
      // A notice a harness wrote in the agent's role (a usage limit) neither ends nor goes on with the turn.
      const text = agentWords(textWithPlaceholders(m.content));
      const calls = toolCallsOf(m);
      const byText = calls.length ? undefined : textHandOver(text);
      const handOver = (calls.length === 1 && handOverOf(calls[0].name) !== undefined) || byText !== undefined;
      if ((calls.length && !handOver) || textActionGoesOn(text)) {
        who = 'agent';
        waits = undefined;
        finishedBy = undefined;
        answered = undefined;
      } else if (text || handOver) {
        who = 'user';
        const final = text || calls[0]?.arguments || '';
        const kind = byText ?? (handOver ? handOverOf(calls[0].name) : undefined);
        // A finishing action (`submit`, `finish`, `attempt_completion`) hands in the work: the task
        // is done, whatever its words announce ("let's submit them"); nothing waits for an answer.
        finishedBy =
          kind === 'completion'
            ? calls.length
              ? calls[0].name
              : (/<function=([\w.-]+)>/.exec(text)?.[1] ?? '')
            : undefined;
        waits =
          finishedBy === undefined &&
          (kind === 'plan' || kind === 'question' || (leavesStepOpen(final) && !reportsFinishedWork(final)));
        // A plain final message (no call after it, no hand-over) that neither asks nor proposes a step
        // is the agent's answer: its turn is over and the task done for now.
        answered = finishedBy === undefined && !waits && !handOver && text !== '';
      }
    }
  }
  return { who, waits, finishedBy, answered };
}

/** Whether the person typed a request in `after` (the messages kept after the span). */
function typedAfter(after: readonly ContextItem[]): boolean {
  return after.some((it) => it.kind !== 'summary' && typedRequestOf(it) !== undefined);
}

/** Suffix of an open failure left when an earlier turn ended, in summaries written before {@link LEFT_LINE}. */
const EARLIER_TURN = ' (left when an earlier turn ended; a newer request came after it)';

/**
 * Output of a command that stopped for input it could not read (an interactive sign-in's verification
 * code, a password or key-press prompt, run where nothing can type): Python's `EOFError` / "EOF when
 * reading a line", "not a tty", "Inappropriate ioctl for device", Windows' "Input redirection is not
 * supported", a prompt's "cannot prompt" / "non-interactive".
 */
const NEEDS_INPUT =
  /\bEOFError\b|EOF when reading a line|\bnot a (?:tty|terminal)\b|no tty present|Inappropriate ioctl for device|Input redirection is not supported|\bcannot prompt\b|\bnon-?interactive (?:mode|session|terminal)\b/i;

/**
 * The line of an open failure (`- open: …`) that an earlier turn left, relabelled: never open work
 * of the latest request. A command that stopped for input only the person could type is said so
 * ({@link INPUT_LINE}); any other is unresolved when that turn ended ({@link LEFT_LINE}).
 */
function leftByEarlierTurn(line: string, rerun: (line: string) => boolean): string {
  const body = (unfixedBody(line) ?? line).replace(EARLIER_TURN, '');
  return `${NEEDS_INPUT.test(body) && !rerun(line) ? INPUT_LINE : LEFT_LINE}${body}`;
}

/**
 * The last step of `command`, whitespace collapsed: the text after its last `&&`, `||`, `;` or line
 * break outside quotes. What a run does after the steps that only prepare it (`cd x &&`, `timeout /t 3
 * >nul &&`): a run that dropped or changed those steps runs the same thing.
 */
function lastStep(command: string): string {
  let quote = '';
  let from = 0;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (quote) {
      if (c === quote) quote = '';
      else if (c === '\\' && quote === '"') i++;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === ';' || c === '\n') from = i + 1;
    else if ((c === '&' || c === '|') && command[i + 1] === c) from = ++i + 1;
  }
  return command.slice(from).replace(/\s+/g, ' ').trim();
}

/** A secret a summary masked (`[masked secret]`, `[masked api key]`): it stood for text of any length. */
const MASKED = /\\\[masked [a-z ]+\\\]/g;

/**
 * Whether a step as run is `step` as a summary's ledger wrote it (its command key, {@link commandKey}):
 * the same text, where a secret the summary masked stands for any text and a key cut at its end
 * (`…`) for any ending. Undefined for an empty step.
 */
function writtenStep(step: string): ((run: string) => boolean) | undefined {
  if (step === '' || step === '…') return undefined;
  const cut = step.endsWith('…');
  const body = (cut ? step.slice(0, -1) : step).replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(MASKED, '.+?');
  const re = new RegExp(`^${body}${cut ? '' : '$'}`, 's');
  return (run) => re.test(run);
}

/**
 * Which not-fixed failures' ledger lines (`- open: \`cmd\` → …`, or one an earlier summary relabelled,
 * {@link unfixedBody}) name a command that the agent itself ran again after its failing run (the same
 * last step, {@link lastStep}), among `actions` (the span's, in order) and `later` (those of the
 * messages kept after it): such a failure was not left for the person to run by hand, whatever its
 * output said about a terminal. A line whose failing run is not in the span came from an earlier
 * summary: every run here came after it, so any run of the same last step counts (the run again can
 * fall in a later span than the failure, or after the summary that first judged it).
 */
function reranByAgent(actions: readonly Action[], later: readonly Action[]): (line: string) => boolean {
  const runs = [...actions, ...later].flatMap((a) => (a.kind === 'command' && !a.denied ? [a.command] : []));
  let keySteps: string[] | undefined;
  return (line) => {
    const key = /^`([^`]+)`/.exec(unfixedBody(line) ?? '')?.[1];
    if (key === undefined) return false;
    let at = -1;
    for (let i = runs.length - 1; i >= 0 && at < 0; i--) if (commandKey(runs[i]) === key) at = i;
    if (at < 0) {
      // Compared as the ledger writes commands (on one line), as the carried line is written.
      keySteps ??= runs.map((r) => lastStep(oneLineCommand(r)));
      const same = writtenStep(lastStep(key));
      return same !== undefined && keySteps.some(same);
    }
    const step = lastStep(runs[at]);
    return step !== '' && runs.slice(at + 1).some((r) => lastStep(r) === step);
  };
}

/**
 * Which open ledger lines (`- open: …`) were left by an earlier turn: the failure's command or file
 * failed only before the latest typed request (in the span `items`, or in `after`, which then makes
 * every failure of the span an earlier turn's). The agent stopped and the person asked for something
 * else: the failure is no next step of the latest request.
 */
function failuresBeforeLatestRequest(
  items: readonly ContextItem[],
  after: readonly ContextItem[],
  actions: readonly Action[],
): (openLine: string) => boolean {
  if (leftWhenTurnEnded(-1, -1, typedAfter(after))) return () => true;
  let at = -1;
  for (let i = items.length - 1; i >= 0 && at < 0; i--) {
    const it = items[i];
    if (it.kind !== 'summary' && it.message.role === 'user' && typedRequestOf(it) !== undefined) at = i;
  }
  if (at <= 0) return () => false;
  let latest: Set<string> | undefined;
  return (line) => {
    if (latest === undefined) {
      latest = new Set<string>();
      const turn = actions.length ? actionsOf(items.slice(at)) : NO_ACTIONS;
      for (const a of turn)
        if (a.kind === 'command' && !a.ok) latest.add(commandKey(a.command));
        else if (a.kind === 'file' && !a.ok) latest.add(a.path);
    }
    const cmd = /^- open: `([^`]+)`/.exec(line);
    const file = cmd ? undefined : /^- open: (.+?): \S+ failed: /.exec(line);
    if (!cmd && !file) return false;
    // Its last failing run: in the latest turn (at or after the request) or before it.
    const failedInTurn = cmd
      ? latest.has(cmd[1])
      : [...latest].some((p) => p === file![1] || p.endsWith(`/${file![1]}`) || p.endsWith(`\\${file![1]}`));
    return leftWhenTurnEnded(failedInTurn ? at : at - 1, at, false);
  };
}

/**
 * Relabels, in `ledger` (in place), the open failures of commands whose latest run the agent expected
 * to fail (`expected`: command key → its next words, see `expected-failures.ts`): such a run was never
 * broken, so it is no error and no fix. Its error line leaves the errors section and the command's
 * outcome line says it failed as intended, quoting the agent's words (a line is added when the
 * commands section had none for it).
 */
function markExpected(ledger: LedgerLines, expected: ReadonlyMap<string, string>): void {
  const marked = new Map<string, string>();
  for (let k = ledger.errors.length - 1; k >= 0; k--) {
    const m = /^- open: `([^`]+)` → (.*)$/.exec(ledger.errors[k]);
    const words = m && expected.get(m[1]);
    if (!m || !words) continue;
    marked.set(m[1], m[2]);
    ledger.errors.splice(k, 1);
  }
  const listed = new Set<string>();
  for (let k = 0; k < ledger.commands.length; k++) {
    const m = /^- `([^`]+)` → failed\b.*?( \(ran \d+×, \d+ failed\))?$/.exec(ledger.commands[k]);
    const words = m && marked.has(m[1]) && expected.get(m[1]);
    if (m && words) {
      listed.add(m[1]);
      ledger.commands[k] = `- \`${m[1]}\` → failed as intended (the agent expected it, "${words}")${m[2] ?? ''}`;
    }
  }
  for (const [key, error] of marked)
    if (!listed.has(key))
      ledger.commands.push(
        `- \`${key}\` → failed as intended ("${error}"; the agent expected it, "${expected.get(key)}")`,
      );
}

/**
 * Weights of the code-names section in the budget (higher shrinks first): its lines beyond the first
 * give way before files, commands and decisions; its first line, the names used most, as late as
 * the errors.
 */
const NAMES_WEIGHT = 8;
const NAMES_LAST_LINE_WEIGHT = 2;
/** Weight of the commits section: far above the others', so it gives way before any of them. */
const COMMITS_WEIGHT = 100;

/**
 * Weight of the environment section (programs found missing or found, `ledger/environment.ts`): a
 * few short lines that outlast the commands and errors they were read from, below the files changed.
 */
const ENVIRONMENT_WEIGHT = 1.3;

/** Symbols a file line keeps at least when the budget shortens its list. */
const MIN_LINE_SYMBOLS = 3;
const SYMBOLS_MARK = '; defines or changes: ';

/** Index of the files line with the longest symbol list above {@link MIN_LINE_SYMBOLS} symbols, or -1. */
function longestSymbolList(lines: readonly string[]): number {
  let best = -1;
  let most = MIN_LINE_SYMBOLS;
  lines.forEach((l, k) => {
    const at = l.indexOf(SYMBOLS_MARK);
    if (at < 0) return;
    const n = l.slice(at + SYMBOLS_MARK.length).split(', ').length;
    if (n > most) {
      most = n;
      best = k;
    }
  });
  return best;
}

/** The line with its symbol list halved (at least {@link MIN_LINE_SYMBOLS} kept), marked with how many were left out. */
function shortenSymbols(line: string): string {
  const at = line.indexOf(SYMBOLS_MARK);
  const list = line.slice(at + SYMBOLS_MARK.length).replace(/ \(\+\d+ more\)$/, '');
  const more = Number(/ \(\+(\d+) more\)$/.exec(line)?.[1] ?? 0);
  const names = list.split(', ');
  const keep = Math.max(MIN_LINE_SYMBOLS, Math.floor(names.length / 2));
  return `${line.slice(0, at)}${SYMBOLS_MARK}${names.slice(0, keep).join(', ')} (+${names.length - keep + more} more)`;
}

/**
 * One step of shortening the files section `lines` (in place), least loss first: the line of files
 * only read is folded into folder lines (`- in src/: read a.ts`); else the oldest file line whose
 * detail (symbols, last change) is long keeps it in a short form, and then loses it; else the oldest
 * full file line becomes a name on its folder's line; else folder lines merge into the folder they
 * share (`mergeFolderLines`); else the names of files only read go; else the oldest names go. `many`: far over the budget, each step takes half of what it works on.
 * Returns what was left out: changed files no longer named, and whether the files read went.
 */
function shortenFiles(lines: string[], many: boolean): { files: number; read: boolean } {
  if (foldReadLine(lines)) return { files: 0, read: false };
  const half = (n: number) => (many ? Math.max(1, Math.floor(n / 2)) : 1);
  const long = lines.flatMap((l, k) => (shortDetail(l) !== l ? [k] : []));
  if (long.length) {
    for (const k of long.slice(0, half(long.length))) lines[k] = shortDetail(lines[k]);
    return { files: 0, read: false };
  }
  const detailed = lines.flatMap((l, k) => (hasDetail(l) ? [k] : []));
  if (detailed.length) {
    for (const k of detailed.slice(0, half(detailed.length))) lines[k] = withoutDetail(lines[k]) ?? lines[k];
    return { files: 0, read: false };
  }
  const full = lines.flatMap((l, k) => (isFileLine(l) ? [k] : []));
  if (full.length) {
    const take = new Set(full.slice(0, half(full.length)));
    const folded = foldIntoFolders(
      lines.filter(isFolderLine),
      lines.filter((_, k) => take.has(k)),
    );
    const others = lines.filter((l, k) => !take.has(k) && !isFolderLine(l));
    lines.length = 0;
    for (const l of folded) lines.push(l);
    for (const l of others) lines.push(l);
    return { files: 0, read: false };
  }
  // Folder lines merged into the folder they share name every file in fewer characters.
  if (mergeFolderLines(lines)) return { files: 0, read: false };
  if (dropReadNames(lines) > 0) return { files: 0, read: true };
  const named = filesNamed(lines.filter(isFolderLine));
  if (named) return { files: dropOldestNames(lines, half(named)), read: false };
  // Lines of no known shape (none are written today): the oldest goes.
  lines.shift();
  return { files: 0, read: false };
}

/** Characters above which a current-work line is halved rather than dropped. */
const LONG_LINE = 200;

/** Index of the longest line of `current` over {@link LONG_LINE} characters that the budget may shorten, or -1. */
function longestQuote(current: readonly string[]): number {
  let best = -1;
  current.forEach((l, k) => {
    if (l.length > LONG_LINE && !CURRENT_STATE.test(l) && (best < 0 || l.length > current[best].length)) best = k;
  });
  return best;
}

/**
 * Extractive summarizer. `countText` counts tokens (the meter's); the result is cut to
 * `approximateSummaryTokens` tokens by dropping the least important lines first.
 */
export class ExtractiveSummarizer implements Summarizer {
  readonly name = 'extractive';

  /**
   * @param countText Tokens of a text (the meter's).
   * @param options.lineAdditive True when `countText` is tiktoken's exact count (`TokenCounter.lineAdditive`):
   *   trimming then counts line by line (line-count.ts). Other counters count the whole text each time.
   */
  constructor(
    private readonly countText: (text: string) => number,
    private readonly options: { lineAdditive?: boolean } = {},
  ) {}

  /** Line counts of this summarizer's exact counter, kept across summaries (line-count.ts). */
  private lineStore: LineStore = newLineStore();

  /** The reading of the last span read for notes, which a grown span extends (see span-memo.ts). */
  private readonly scans = new GrowingSpan<SpanScan>();

  /** The last ledger built, with what it was built from (the same span again reuses it). */
  private ledgerMemo?: {
    actions: readonly Action[];
    carried: ReadonlyMap<string, readonly string[]>;
    carriedRoots: PathRoots | undefined;
    later: readonly Action[];
    roots: PathRoots;
    ledger: LedgerLines;
  };

  /** The span's ledger and path roots; the lists are copies (the budget trims them). */
  private ledgerOf(
    actions: readonly Action[],
    carried: ReadonlyMap<string, readonly string[]>,
    carriedRoots: PathRoots | undefined,
    later: readonly Action[],
  ): LedgerLines & { roots: PathRoots } {
    let memo = this.ledgerMemo;
    if (
      !memo ||
      memo.actions !== actions ||
      memo.carried !== carried ||
      memo.carriedRoots !== carriedRoots ||
      memo.later !== later
    ) {
      // The distinct paths of the file actions, in order, from the ledger's forward reading (kept
      // for a span that grew at its end; buildLedger below continues the same reading).
      const roots = chooseRoots(LedgerFold.of(actions).paths, carriedRoots);
      memo = this.ledgerMemo = {
        actions,
        carried,
        carriedRoots,
        later,
        roots,
        ledger: buildLedger(actions, carried, roots, later),
      };
    }
    const { ledger, roots } = memo;
    return {
      files: ledger.files.slice(),
      commands: ledger.commands.slice(),
      errors: ledger.errors.slice(),
      commits: ledger.commits.slice(),
      environment: ledger.environment.slice(),
      moved: new Map(ledger.moved),
      edited: ledger.edited.slice(),
      roots,
    };
  }

  /** Never calls a model. Throws SummarizerError(`aborted`) when the signal is aborted. */
  async summarize(request: SummaryRequest): Promise<SummaryResult> {
    if (request.signal?.aborted) throw new SummarizerError('compaction cancelled', 'aborted');
    const after = request.context ? request.context.items.slice(request.context.end) : [];
    const text = this.notes(
      request.items,
      request.approximateSummaryTokens,
      request.focus,
      after,
      request.identifierReserveTokens,
    );
    return { text, model: 'extractive', usage: { calls: 0, promptTokens: 0, completionTokens: 0 } };
  }

  /**
   * Builds the notes for `items`, at most `maxTokens` tokens. `after` are the items that stay after
   * them in the context (the newest steps, the latest request): read only to tell which failures of
   * the span were fixed afterwards, so that none of those is listed as open. `environmentRoom`: tokens
   * kept beside the notes for identifiers back-filled after them (`SummaryRequest.identifierReserveTokens`);
   * the environment's lines take them first when they fit in them whole, beyond `maxTokens`.
   */
  notes(
    items: readonly ContextItem[],
    maxTokens: number,
    focus?: string,
    after: readonly ContextItem[] = [],
    environmentRoom = 0,
  ): string {
    // The same span again, or one grown at its end (the next compaction over read messages), reads
    // only its new messages; the lists the budget trims below are copies.
    const kept = this.scans.get(items);
    const reading = kept?.state ?? new SpanScan();
    for (let i = kept?.from ?? 0; i < items.length; i++) reading.add(items[i]);
    const scan = this.scans.set(items, reading, kept?.from ?? 0).result();
    const {
      carried,
      calls,
      latestRequest,
      lastAssistant,
      lastAssistantEnds,
      lastAssistantClosed,
      latestRequestUnanswered,
      lastHandOver,
      lastAssistantStepDone,
      lastCall,
      lastTaskList,
      taskListAt,
      lastVerify,
      taskListBeforeRequest,
      verifyBeforeRequest,
      verifySuperseded,
      lastCommandError,
      lastFailedCommand,
      carriedCurrent,
      carriedRoots,
    } = scan;
    const [rules, decisions, state, earlier, answers] = [
      scan.rules.slice(),
      scan.decisions.slice(),
      scan.state.slice(),
      scan.earlier.slice(),
      scan.answers.slice(-MAX_ANSWERS),
    ];
    const current: string[] = [];
    const carry = (prefix: string) => {
      for (const l of carriedCurrent) if (l.startsWith(prefix)) current.push(l);
    };
    const actions = actionsOf(items);
    const later = after.length ? actionsOf(after) : NO_ACTIONS;
    const ledger = this.ledgerOf(actions, carried, carriedRoots, later);
    const roots = ledger.roots;
    const named = rootsLine(roots);
    if (named) current.push(named);
    // The latest request is kept whole in the requests section that closes every summary (the
    // newest request is kept first there): a pointer here instead of a second copy.
    // A verification or plan is the current request's only when it came after the latest typed
    // request (in the span, and none typed in the messages kept after it): an older one is labelled
    // with its age, and the budget may drop it (see CURRENT_STATE). A carried one is older than any
    // request typed in the span.
    const newer = typedAfter(after);
    const requestWas = latestRequest ? ` «${clip(latestRequest, 60)}»` : ' the latest request';
    const aged = (what: string) =>
      `- ${what} from an earlier request (before${newer ? ' a request typed after this summary' : `:${requestWas}`})`;
    // An earlier request's check that later work superseded (commands run, code written since, in the
    // span or in the messages kept after it) is no state of the code: it is left out here (a failure it
    // showed stays listed with the errors).
    const aging = verifyBeforeRequest || newer;
    const superseded =
      aging &&
      (verifySuperseded ||
        (newer &&
          later.some(
            (a) => a.kind === 'command' || (a.kind === 'file' && a.op !== 'read' && !DOCUMENT_FILE.test(a.path)),
          )));
    if (lastVerify) {
      if (!superseded)
        current.push(aging ? `${aged('Verification')}: ${lastVerify}` : `- Latest verification: ${lastVerify}`);
    } else if (latestRequest === undefined && !newer) carry('- Latest verification');
    // The open steps of the current request's plan, for the next step when no failure is open.
    let planNext: string | undefined;
    if (lastTaskList) {
      // Items carried out after the plan was written read as done, items worked on since as in progress.
      const created = new Set<string>();
      for (const list of [actions, later])
        for (const a of list) if (a.kind === 'file' && a.op === 'created' && a.ok) created.add(a.path);
      const progress = planProgress(
        lastTaskList,
        after.length ? [...items.slice(taskListAt), ...after] : items.slice(taskListAt),
        new Set(ledger.edited),
        created,
      );
      if (!(taskListBeforeRequest || newer)) planNext = planNextStep(progress.open);
      // Only where later work changed items: a list's own marks need no count beside them.
      const state =
        progress.since === 0 && progress.edited === 0
          ? ''
          : progress.items > 0 && progress.done === progress.items
            ? ' (every item done since it was written)'
            : progress.done > 0 || progress.edited > 0
              ? ` (${progress.done} of ${progress.items} items done${progress.edited ? `, ${progress.edited} in progress` : ''})`
              : '';
      current.push(
        taskListBeforeRequest || newer
          ? `${aged('Plan or to-do list')}${state}: ${progress.text}`
          : `- Latest plan or to-do list${state}: ${progress.text}`,
      );
    } else if (latestRequest === undefined && !newer) carry('- Latest plan');
    // Whether a step is finished is read from the structure, whatever the language: the agent's last
    // message with no tool call after it (in the span, nor in the messages kept after it), or one
    // whose only call hands the turn to the person (a completion report, a plan, a question), ended
    // its turn, so it is its answer; a message that more tool calls followed is work in progress,
    // whatever it says (a report of a step done, an announcement of the next one).
    // Only failures of the latest turn are the work's open state: one left when an earlier turn
    // ended, after which the person typed a new request, is listed with its error, never the next step.
    // Such failures are listed apart, after the fixed ones and before the open ones (newest last).
    const earlierTurn = failuresBeforeLatestRequest(items, after, actions);
    const rerun = reranByAgent(actions, later);
    const fixed: string[] = [];
    const left: string[] = [];
    const open: string[] = [];
    // A failure the agent's next words took as the outcome it meant (a deliberate negative check) is
    // no open work: read only when some command failure is open.
    const expected = ledger.errors.some((l) => /^- open: `/.test(l))
      ? expectedOutcomes(after.length ? [...items, ...after] : items)
      : undefined;
    if (expected?.size) markExpected(ledger, expected);
    for (const l of ledger.errors) {
      // A line an earlier summary already relabelled stays as it was written, but a step it left for
      // the person to run by hand that the agent ran again since was not left for the person.
      if (unfixedBody(l) === undefined) fixed.push(l);
      else if (l.startsWith(INPUT_LINE) && rerun(l)) left.push(`${LEFT_LINE}${unfixedBody(l)}`);
      else if (!l.startsWith(OPEN_LINE)) left.push(l);
      else if (l.endsWith(EARLIER_TURN) || earlierTurn(l)) left.push(leftByEarlierTurn(l, rerun));
      else open.push(l);
    }
    ledger.errors.length = 0;
    for (const list of [fixed, left, open]) for (const l of list) ledger.errors.push(l);
    // A request typed after the agent's last message in the span (with no tool call between) shows
    // that message ended its turn, whatever the work on the new request did after the span.
    const closed =
      lastAssistant !== '' &&
      lastAssistantClosed &&
      (!lastAssistantEnds || !turnGoesOn(after, lastHandOver !== undefined));
    // The closing message answers the latest request (none was typed after it).
    const replied = closed && lastAssistantEnds;
    const claimsDone =
      closed && lastHandOver !== 'plan' && lastHandOver !== 'question' && reportsFinishedWork(lastAssistant);
    // A final message that asks the user something or proposes a step, a plan awaiting approval or a
    // question asked by a tool, waits for the user's word.
    const asks =
      replied &&
      (lastHandOver === 'plan' || lastHandOver === 'question' || (!claimsDone && leavesStepOpen(lastAssistant)));
    // A final message that replies to a question is an answer.
    const answered = replied && latestRequest !== undefined && asksQuestion(latestRequest) && !asks;
    // An edit block (a file's name above its fenced content) is a file change the files section
    // lists, never an answer's text: only the message's prose is quoted, and a message that is edit
    // blocks alone is said to be an edit of its files.
    const edits = editBlockFiles(lastAssistant);
    const prose = edits.length ? answerText(lastAssistant) : lastAssistant;
    const quoted = `"${clip(prose, 600)}"`;
    // One reading of who moves next, for the current-work line and the next step alike: when the
    // agent's turn ended (nothing after its final message in the context), the person's.
    const turn = turnAtEnd(closed, replied, after);
    if (lastAssistant && !prose)
      current.push(
        `- The agent's ${closed ? 'final' : 'last'} message ${closed && (!lastAssistantEnds || typedAfter(after)) ? 'of an earlier turn (a newer request came after it)' : 'here'} was an edit of ${edits.join(', ')} (a file change, no answer text)`,
      );
    else if (lastAssistant)
      current.push(
        !closed && lastAssistantStepDone
          ? `- Step carried out (announced in the agent's last message here; the tool calls after it succeeded; the turn was not over): ${quoted}`
          : !closed
            ? turn.who === 'agent'
              ? `- In progress (the agent's last message here; tool calls followed it): ${quoted}`
              : `- In progress here (tool calls followed this message; the turn ended in the messages kept after this summary): ${quoted}`
            : !lastAssistantEnds || typedAfter(after)
              ? `- Answered an earlier request (the agent's final message of that turn; a newer request came after it): ${quoted}`
              : open.length
                ? `- The agent ${claimsDone ? 'reported done' : 'ended its turn'}, but these failed and were not fixed: ${openNames(open)}. Its last message here: ${quoted}`
                : asks
                  ? `- Waiting for the user (the agent ended its turn with ${lastHandOver === 'plan' ? 'a plan awaiting approval' : 'a question or a proposed step'}): ${quoted}`
                  : claimsDone
                    ? `- Work completed (the agent's last message here reports it done): ${quoted}`
                    : answered
                      ? `- Answered (the agent's last message here, its reply to the latest request): ${quoted}`
                      : `- Work completed (the agent's final message of its turn, its answer; no tool call followed): ${quoted}`,
      );
    // A file the person's later request set aside is no current work: named last, with the request's word.
    const discarded = discardedFiles(after.length ? [...items, ...after] : items);
    if (discarded.size)
      for (let k = 0; k < ledger.files.length; k++) {
        const path = /^- (\S+?)(?: \(|:)/.exec(ledger.files[k])?.[1];
        if (path && discarded.has(fileKey(path))) ledger.files[k] += DISCARDED_NOTE;
      }
    if (ledger.edited.length) {
      const recentFiles = ledger.edited.slice(-RECENT_FILES);
      const isDiscarded = (p: string) => discarded.has(fileKey(p));
      current.push(
        `- Files edited most recently: ${[
          ...recentFiles.filter((p) => !isDiscarded(p)).map((p) => shortPath(roots, p)),
          ...recentFiles.filter(isDiscarded).map((p) => `${shortPath(roots, p)}${DISCARDED_NOTE}`),
        ].join(', ')}`,
      );
    } else carry('- Files edited most recently');
    // A hand-over the person answered after this summary (in the messages kept after it) has that answer.
    if (lastCall)
      current.push(
        `- Last tool call: ${newer && handOverOf(lastCall.split(' ')[0]) ? answeredByUser(lastCall) : lastCall}`,
      );
    else carry('- Last tool call');
    // Errors quoted from tool output in the user role (SWE-agent observations) are current state
    // only while the ledger, which read the same calls in order, has a failure open: when it has
    // none, each was fixed by a later run or edit. One the ledger lists as fixed is never kept.
    // One source of truth for the latest error: where the ledger read the calls, an error quoted from
    // an observation stays only when the newest open failure (the next step's) quotes it too; an
    // older one (an earlier run's error, since replaced by another) would contradict it.
    const tracked = actions.some((a) => a.kind === 'command' || a.kind === 'file');
    const fixedText = ledger.errors.filter((l) => l.startsWith('- fixed:')).join('\n');
    const newestOpen = open.at(-1) ?? '';
    for (let k = state.length - 1; k >= 0; k--) {
      const quoted = OBSERVATION_ERROR.exec(state[k])?.[1].slice(0, 60);
      if (
        quoted &&
        ((tracked && !newestOpen.includes(quoted)) || (fixedText.includes(quoted) && !newestOpen.includes(quoted)))
      )
        state.splice(k, 1);
    }
    // An error line is current state only while its failure is the newest open one (the next step's):
    // a fixed one is under "Errors and fixes". A carried line stays while this part ran no command that
    // could have fixed it.
    const stillOpen =
      lastFailedCommand !== undefined && newestOpen.startsWith(`- open: \`${commandKey(lastFailedCommand)}\``);
    if (lastCommandError && stillOpen) current.push(`- Latest error line in command output ${lastCommandError}`);
    else if (!lastCommandError && (open.length > 0 || !actions.some((a) => a.kind === 'command')))
      carry('- Latest error line in command output');
    const waits = turn.waits ?? asks;
    // A span whose last agent message tool calls followed ends mid-work: its next step is the agent's,
    // never the person's, even when the turn ended in the messages kept after it (those show how).
    // A step announced and carried out in the span is done, but the turn it belongs to is not over; a
    // span of tool calls alone (no text from the agent) ends mid-work too.
    const midWork = (lastAssistant !== '' || lastCall !== undefined) && !closed && turn.who === 'user';
    // The span's latest request got no reply in it and the person typed another in the messages kept
    // after it: whatever those end with answers the newer one, never this part's request.
    const unansweredHere = latestRequestUnanswered && newer;
    // The span's final message answered its latest request and the person typed a newer one after the
    // span, which the agent has not finished (a compaction before the model call that answers it):
    // the next step is that newer request's, never the answered one the pointer below names.
    const answeredThenNewer =
      replied && newer && (turn.who === 'newer request' || (turn.who === 'agent' && open.length === 0));
    current.push(
      `- Next step: ${
        unansweredHere
          ? `none written here: this part's latest request got no answer in this part, and a newer request followed in the messages kept after this summary (the work goes on from there)`
          : answeredThenNewer
            ? `the newer request in the messages kept after this summary${turn.who === 'agent' ? " (the agent's work on it goes on there)" : ''}: this part's latest request was answered here`
            : midWork
              ? open.length
                ? `resolve ${open.at(-1)!.slice('- open: '.length)}`
                : turn.finishedBy !== undefined
                  ? `the user's turn (the ${lastAssistantStepDone && lastAssistant !== '' ? "agent's turn" : 'work in progress here'} went on in the messages kept after this summary, which end with the task finished: the agent handed it in${turn.finishedBy ? ` with \`${turn.finishedBy}\`` : ''})`
                  : turn.answered
                    ? `the user's turn (the ${lastAssistantStepDone && lastAssistant !== '' ? "agent's turn" : 'work in progress here'} went on in the messages kept after this summary, which end with the agent's final answer: it finished and waits for the user's next request)`
                    : `${planNext ?? 'continue with the latest request'} (the ${lastAssistantStepDone && lastAssistant !== '' ? "agent's turn" : 'work in progress here'} went on in the messages kept after this summary${turn.waits ? ", which end waiting for the user's answer or approval" : ''})`
              : turn.who === 'agent'
                ? open.length
                  ? `resolve ${open.at(-1)!.slice('- open: '.length)}`
                  : (planNext ?? 'continue with the latest request')
                : turn.who === 'newer request'
                  ? 'continue with the latest request'
                  : open.length
                    ? `the user's turn (the agent ended its turn with failures not fixed: ${openNames(open)})`
                    : // A newer request typed after the span: how the turn ended is read from the messages
                      // kept after this summary, never from this part's final message.
                      newer
                      ? turn.waits
                        ? "the user's turn (a newer request followed in the messages kept after this summary, which end with the agent waiting for the user's answer or approval)"
                        : "the user's turn (a newer request followed in the messages kept after this summary; the agent's last message there ended its turn)"
                      : waits
                        ? "the user's turn (the agent ended its turn waiting for the user's answer or approval)"
                        : "the user's turn (the latest request appears done: the agent's last message reports it finished)"
      }`,
    );
    // The pointer quotes the request the requests section ends with (the same reading of the span:
    // an earlier summary's carried requests count, a repeated request keeps its first place), never
    // only the last typed message, which can be an older request typed again.
    const listedLast = collectRequests(items)
      .filter((r) => !omittedNote(r))
      .at(-1);
    if (listedLast)
      current.push(
        `- Latest request in this part: the last one under "Requests, verbatim" ("${clip(listedLast, 60)}")`,
      );
    if (decisions.length > 12) decisions.splice(0, decisions.length - 12);
    const focused: string[] = [];
    if (focus) {
      current.unshift(`- Focus requested for this summary: ${clip(focus, 200)}`);
      // Lines of the span that mention the focus words, verbatim, each with where it came from: the
      // extractive answer to "focus on X" (a model summarizer gets the focus in its instruction).
      for (const l of focusQuotes(focus, items, after, calls)) focused.push(l);
    }

    // Names the files and current-work lines already hold are not listed again.
    const written = new Set([...current, ...ledger.files].join('\n').match(/[A-Za-z_][\w]*/g) ?? []);
    const names = nameLines(scan.names, written);
    // How many names the section could list: those it leaves out (past its cap, or for the room) are
    // counted on its last line, there from the start so that the budget pays for it.
    const nameCount = scan.names.reduce((n, name) => (written.has(name) ? n : n + 1), 0);
    const listedNames = () => namesFromLines(names).length;
    let namesNoted = nameCount > listedNames() && names.length > 0;
    if (namesNoted) names.push(namesLeftOutLine(nameCount - listedNames()));
    const nameLineCount = () => names.length - (namesNoted ? 1 : 0);
    // The environment's few lines outrank the identifiers back-filled after the notes: when they fit
    // whole in the room kept for those, they are written in it (the budget grows by their tokens).
    const environmentText = ledger.environment.length
      ? `${SECTIONS.environment}\n${ledger.environment.join('\n')}`
      : '';
    const environmentTokens =
      environmentText && environmentRoom > 0 && this.countText(environmentText) + 2 <= environmentRoom
        ? this.countText(environmentText) + 2
        : 0;
    maxTokens += environmentTokens;
    // [heading, lines, weight, drop from the start (oldest first lists)]: higher weight shrinks first.
    const sections: Array<[string, string[], number, boolean]> = [
      [SECTIONS.rules, rules, 1, false],
      [SECTIONS.current, current, 1, false],
      [SECTIONS.errors, ledger.errors, 2, true],
      // Programs found missing (or found): a line each, short and true for the whole session; they
      // give way after the commands and errors whose runs found them out.
      // Lines that fit in the identifiers' room are kept as long as the current work, in that room.
      [SECTIONS.environment, ledger.environment, environmentTokens > 0 ? 1 : ENVIRONMENT_WEIGHT, true],
      // Files changed give way after errors, decisions and commands: they are the state of the code.
      [SECTIONS.files, ledger.files, 1.5, true],
      // Ranked best first: the budget drops the least used names early, their best line as late as errors.
      [SECTIONS.names, names, nameLineCount() > 1 ? NAMES_WEIGHT : NAMES_LAST_LINE_WEIGHT, false],
      [SECTIONS.focus, focused, 2, false],
      // What the agent found and told the person: oldest dropped first, after decisions, commands and the earlier summary.
      [SECTIONS.answers, answers, 1.1, true],
      [SECTIONS.decisions, decisions, 3, true],
      [SECTIONS.commands, ledger.commands, 3, true],
      // Commits are named where the room allows: they give way first (`git log` lists them again).
      [SECTIONS.commits, ledger.commits, COMMITS_WEIGHT, true],
      // A recorded agent's summary is kept whole while it fits and shrinks by sentences; it weighs a little
      // less than the files changed, so a long one cannot push the state of the code out of the summary.
      // Work followed the quoted summary: what it calls next may be done since, and the reader is told.
      [
        scan.afterEarlier > 0
          ? `${SECTIONS.earlier}\n${EARLIER_AS_WRITTEN}later work may have done what it calls next.)`
          : SECTIONS.earlier,
        earlier,
        1.2,
        false,
      ],
      [SECTIONS.state, state, 4, false],
    ];
    const render = () =>
      sections
        .filter(([, lines]) => lines.length > 0)
        .map(([h, lines]) => `${h}\n${lines.join('\n')}`)
        .join('\n\n');
    // The notes are counted after every trim: line by line with counts kept (see line-count.ts), so a
    // trim costs the lines it touches, not the whole text again.
    const additive = this.options.lineAdditive === true;
    // The same lines (ledger, decisions) come back in every summary of a session: counted once.
    if (additive && lineStoreFull(this.lineStore)) this.lineStore = newLineStore();
    const lines = new LineCounter(this.countText, additive, this.lineStore);
    // A trim changes one section: the others' counts are kept; the sum is `countBlocks`'s over all.
    type Section = (typeof sections)[number];
    const counted = new Map<Section, { sum: number; last: string } | undefined>();
    const sectionPart = (sec: Section) => {
      if (counted.has(sec)) return counted.get(sec);
      const all = [sec[0], ...sec[1]];
      let sum: number | undefined = 0;
      for (let i = 0; i < all.length - 1 && sum !== undefined; i++) {
        const t = lines.itemTokens(all[i], false);
        sum = t === undefined ? undefined : sum + t;
      }
      const part = sum === undefined ? undefined : { sum, last: all[all.length - 1] };
      counted.set(sec, part);
      return part;
    };
    const tokens = (): number => {
      const live = sections.filter(([, l]) => l.length > 0);
      let total = 0;
      for (let b = 0; b < live.length; b++) {
        const part = sectionPart(live[b]);
        const end = part && lines.blockEndTokens(part.last, b === live.length - 1);
        if (part === undefined || end === undefined) return this.countText(render());
        total += part.sum + end;
      }
      return total;
    };
    const size = (list: string[]) => list.reduce((n, l) => n + l.length, 0);
    // Characters per section, kept up to date as the victim changes (the sort reads them often).
    const sizes = new Map(sections.map((sec) => [sec, size(sec[1])]));
    const before = new Map(sections.map(([h, l]) => [h, l.length]));
    let guard = 0;
    let filesLeftOut = 0;
    let readLeftOut = false;
    let namesOnly = false;
    const filesSection = sections.find((sec) => sec[1] === ledger.files)!;
    // Whether the files section names a changed file that "Files edited most recently" does not.
    const recent = new Set(ledger.edited.slice(-RECENT_FILES).map((p) => shortPath(roots, p)));
    const namesBeyondRecent = () =>
      expandFolderLines(ledger.files.join('\n'))
        .split('\n')
        .some((l) => {
          const named = FOLDER_NAME_LINE.exec(l)?.[1];
          return named !== undefined && !recent.has(named);
        });
    const rulesSection = sections.find((sec) => sec[1] === rules)!;
    // The current work's lines by label before the budget, to name those it drops (a plan, an answer).
    const currentLabels = current.map(currentLabel);
    let count = tokens();
    while (count > maxTokens && guard++ < 10_000) {
      // The section with the most characters per weight loses lines first; rules and current work last.
      // The files named only by folder are the last list to lose lines before the current work: each
      // name left out is a file changed that the agent would not know of.
      const lists = sections.filter(([, l, w]) => l.length > 0 && w > 1);
      const others: Section[] = namesOnly ? lists.filter((sec) => sec[1] !== ledger.files) : lists;
      const candidates = others.length ? others : lists;
      // Current-state lines stay whatever the budget: the section loses its other lines first.
      const removable = (l: string[]) => (l === current ? l.filter((x) => !CURRENT_STATE.test(x)) : l);
      // The files named only by folder keep a floor of the notes (about 4 characters a token): below
      // it, the standing rules give their newest lines first (the first stays), so a small summary
      // still says which files changed rather than only what was asked.
      const filesFloored: boolean =
        namesOnly &&
        others.length === 0 &&
        rules.length > 1 &&
        sizes.get(filesSection)! / 4 <= maxTokens * FILES_FLOOR_SHARE &&
        sizes.get(rulesSection)! / 4 > maxTokens * RULES_FLOOR_SHARE;
      // With no list left to shorten, the current work's other lines go before a standing rule does.
      const left = candidates.length ? candidates : sections.filter(([, l]) => removable(l).length > 0);
      const notRules = left.filter((sec) => sec[1] !== rules);
      const pool: Section[] = filesFloored
        ? sections.filter((sec) => sec[1] === rules)
        : candidates.length || notRules.length === 0
          ? left
          : notRules;
      // Before a file's name goes, a line about an earlier request than the latest (its verification,
      // its plan) goes, and a long quote of the current work is halved (its short lines stay).
      // (Also before a file's line loses what changed in it: the files are the only list left.)
      const lastNames =
        !filesFloored && (namesOnly ? others.length === 0 : lists.length === 1 && lists[0][1] === ledger.files);
      const agedAt = lastNames
        ? current.findIndex(
            (l) =>
              AGED_LINE.test(l) ||
              (namesOnly && ANSWERED_EARLIER.test(l) && dropsNameNext(ledger.files) && namesBeyondRecent()),
          )
        : -1;
      const longQuote: number = agedAt >= 0 ? agedAt : lastNames ? longestQuote(current) : -1;
      const victim: Section | undefined =
        longQuote >= 0
          ? sections.find((sec) => sec[1] === current)
          : pool.sort((a, b) => sizes.get(b)! * b[2] - sizes.get(a)! * a[2])[0];
      if (!victim) break;
      if (victim[1] === current) {
        let k = longQuote >= 0 ? longQuote : current.length - 1;
        while (k > 0 && CURRENT_STATE.test(current[k])) k--;
        // Halved at a sentence or word end (never mid-word), with a marker; a line whose content
        // would be gone (a label with nothing after it) goes whole.
        const half =
          current[k].length > LONG_LINE && k !== agedAt
            ? shortenLine(current[k], Math.floor(current[k].length / 2))
            : undefined;
        if (half !== undefined) current[k] = half;
        else current.splice(k, 1);
        sizes.set(victim, size(victim[1]));
        counted.delete(victim);
        count = tokens();
        continue;
      }
      if (victim[1] === earlier) {
        // Sentences naming causes, fixes and files stay longest; a marker says what was left out.
        const many = count / maxTokens > 2 ? Math.max(1, Math.floor(quotedSentences(earlier) / 2)) : 1;
        if (shrinkQuoted(earlier, many)) {
          sizes.set(victim, size(victim[1]));
          counted.delete(victim);
          count = tokens();
          continue;
        }
      }
      if (victim[1] === ledger.files) {
        // A file's symbol list shortens before any file is dropped: every file changed stays named longest.
        const k = longestSymbolList(ledger.files);
        if (k >= 0) ledger.files[k] = shortenSymbols(ledger.files[k]);
        else {
          // Then fewer words per file (see file-names.ts): the files only read go, then each file's
          // detail, then files are named only, by folder; a file goes only when its name cannot stay.
          const gone = shortenFiles(ledger.files, count / maxTokens > 2);
          filesLeftOut += gone.files;
          readLeftOut ||= gone.read;
          // Named only, by folder, the files give way after every other list (see the victim's choice).
          namesOnly = !ledger.files.some((l) => isFileLine(l) || l.startsWith('- read only:'));
        }
        sizes.set(victim, size(victim[1]));
        counted.delete(victim);
        count = tokens();
        continue;
      }
      // Drop in halves when far over, one line when close: keeps this loop short on huge spans.
      const over = count / maxTokens;
      const n = over > 2 ? Math.max(1, Math.floor(victim[1].length / 2)) : 1;
      // A rule is never cut mid-sentence: it is dropped whole like any other line.
      if (victim[1].length === 1 && victim[1][0].length > 200 && victim[1] !== rules) {
        // A line many times the whole budget (a ledger line naming 40k files) is halved again
        // without counting each half: counting 478k, 239k, 120k... characters cost more than all
        // the rest of a 100k-message summary, and no such half could fit.
        let line: string | undefined = victim[1][0];
        do line = shortenLine(line, Math.floor(line.length / 2));
        while (line !== undefined && line.length > UNCOUNTED_HALVING_CHARS_PER_TOKEN * maxTokens);
        // A line whose content would be gone goes whole, never as a label with nothing after it.
        if (line !== undefined) victim[1][0] = line;
        else victim[1].splice(0, 1);
      } else if (victim[1] === names) {
        // The names' last line counts those left out: the lowest ranked names go before it, and it
        // goes with the last of them.
        if (!namesNoted) {
          names.push('');
          namesNoted = true;
        }
        const k = Math.min(n, nameLineCount());
        names.splice(nameLineCount() - k, k);
        if (nameLineCount() === 0) {
          names.length = 0;
          namesNoted = false;
        } else names[names.length - 1] = namesLeftOutLine(nameCount - listedNames());
      } else victim[1].splice(victim[3] ? 0 : victim[1].length - n, n);
      if (victim[1] === names && nameLineCount() <= 1) victim[2] = NAMES_LAST_LINE_WEIGHT;
      sizes.set(victim, size(victim[1]));
      counted.delete(victim);
      count = tokens();
    }
    let out = render();
    // Say what was left out, so a reader never takes a list for everything that happened.
    let noted = false;
    // Sections the budget emptied and the plan or agent's message it dropped from the current work
    // are named in one line of the current work (the rules count theirs apart, below): a section
    // never disappears in silence.
    const leftOutNote = (): string | undefined => {
      // Lines earlier summaries left out are named again, with those this one leaves out.
      const earlierOut = new Map(scan.sectionsLeftOut);
      const parts: string[] = [];
      for (const sec of sections) {
        // The code names repeat names the other lists and the identifiers hold: not worth the tokens.
        if (sec[1] === rules || sec[1] === names) continue;
        const name = sectionName(sec[0]);
        const n = (sec[1].length === 0 ? (before.get(sec[0]) ?? 0) : 0) + (earlierOut.get(name) ?? 0);
        earlierOut.delete(name);
        if (n > 0) parts.push(`${name} (${n} line${n === 1 ? '' : 's'})`);
      }
      for (const [name, n] of earlierOut) parts.push(`${name} (${n} line${n === 1 ? '' : 's'})`);
      const nowLabels = current.map(currentLabel);
      const dropped = currentLabels.filter(
        (l, k) => currentLabels.indexOf(l) === k && NAMED_WHEN_DROPPED.test(l) && !nowLabels.includes(l),
      );
      if (dropped.length) parts.push(`from the current work: ${dropped.join('; ')}`);
      return parts.length ? leftOutLine(parts) : undefined;
    };
    // Added beyond the budget, as the other notes about the lists are: the summary's composition
    // gives a small excess back from the longest lines (compose-summary.ts).
    const note = leftOutNote();
    if (note !== undefined) {
      current.push(note);
      noted = true;
    }
    // Standing rules left out here or by an earlier summary: counted in one line, kept in every later
    // summary (read back by `SpanScan`), never dropped in silence. The rules that stand are counted,
    // not those a later request superseded.
    const rulesLeft =
      scan.rulesLeftOut + (before.get(SECTIONS.rules) ?? 0) - rules.length - supersededDropped(scan.rules, rules);
    if (rulesLeft > 0) {
      rules.push(rulesLeftOutLine(rulesLeft));
      noted = true;
    }
    for (const s of sections) {
      if (s[1] === ledger.files) {
        // Lines of this section are folded, not only dropped: the marker counts the files left out.
        if (s[1].length > 0 && (filesLeftOut > 0 || readLeftOut)) {
          s[1].unshift(filesLeftOut > 0 ? FILES_LEFT_OUT(filesLeftOut) : '- … the files only read are not listed here');
          noted = true;
        }
        continue;
      }
      const left = (before.get(s[0]) ?? 0) - s[1].length;
      if (left > 0 && s[1].length > 0 && s[3]) {
        s[1].unshift(`- … ${left} older line${left === 1 ? '' : 's'} not kept`);
        noted = true;
      }
    }
    if (noted) out = render();
    return out || `${SECTIONS.current}\n- ${items.length} earlier messages with no text content.`;
  }
}
