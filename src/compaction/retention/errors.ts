/**
 * Error signatures of a span, each labelled open or resolved at a point, and the commands that never
 * failed. Rules (see {@link errorSignatures}) are written for measurement and share no code with the
 * summary writer. Pure.
 */
import { agentCalls, commandOf, resultHead, type AgentCall, type RetentionEntry } from './calls';
import { fileTouches, pathKey } from './files';
import { MessageMemo, messageMemosKept } from '../message-memo';
import { checkHead, editFailed, endsInProbe, expectsFailure, failureLine, showsContent } from './outcome';
import { textWithPlaceholders } from '../content-text';
import { agentWords } from '../harness-text';

/** One failure of the agent's tool calls and its state at the point. */
export interface ErrorSignature {
  /** Index of the message holding the failed call. */
  index: number;
  /** `command` for a shell command, else the tool name. */
  tool: string;
  /** The command's key (see {@link commandKey}), or `tool path` for a failed edit/read. */
  key: string;
  /** First failure line of the result (see {@link FAILURE_LINE}), cut to 160 characters; '' when none. */
  line: string;
  /** Files named by the command or the first 60 lines of its output (path keys). */
  files: string[];
  state: 'open' | 'resolved';
  /** Index of the message whose call resolved it. */
  resolvedAt?: number;
  /** How it was resolved (see {@link LaterSuccesses} for the command rules). */
  resolvedBy?:
    | 'same command succeeded'
    | 'same command with options added succeeded'
    | 'worked around by another command'
    | 'signed in later'
    | 'same check without the input file succeeded'
    | 'file edited and check passed'
    | 'same edit succeeded'
    | 'the agent expected the failure';
}

/** {@link ErrorSignature.resolvedBy} of each {@link CommandFix}. */
const RESOLVED_BY = {
  'same command succeeded': 'same command succeeded',
  'options added': 'same command with options added succeeded',
  'worked around': 'worked around by another command',
  'signed in': 'signed in later',
  'input file left out': 'same check without the input file succeeded',
} as const satisfies Record<CommandFix['by'], NonNullable<ErrorSignature['resolvedBy']>>;

export { FAILURE_LINE, failureLine } from './outcome';

/**
 * Key of a command as a person would name it: first non-empty line, `cd DIR &&` prefixes (`cd /d
 * "C:\\a b" &&`, `pushd DIR &&` too) and
 * trailing `2>&1 | tail -N`-style plumbing removed, whitespace collapsed, cut to 120 characters.
 */
export function commandKey(command: string): string {
  // The ledger and the scorecard key every command of the span at every compaction: kept (bounded).
  let key = commandKeys.get(command);
  if (key === undefined) {
    key = readCommandKey(command);
    if (commandKeys.size >= KEPT_COMMAND_TARGETS) commandKeys.clear();
    commandKeys.set(command, key);
  }
  return key;
}
const commandKeys = new Map<string, string>();

function readCommandKey(command: string): string {
  return commandLine(command).slice(0, COMMAND_KEY_CHARS);
}

/** A command's first line, `cd DIR &&` prefixes and trailing `2>&1 | tail -N` plumbing removed, whitespace collapsed. */
function commandLine(command: string): string {
  // A line break, or the mark a summary shows in its place (` ⏎ `), ends the first line.
  let c = command.split(/\n| ⏎ /).find((l) => l.trim() !== '') ?? '';
  c = c.replace(/\s+/g, ' ').trim();
  for (;;) {
    const next = c.replace(/^(?:cd|pushd)\s+(?:\/d\s+)?(?:"[^"]*"|'[^']*'|\S+)\s*(?:&&|;)\s*/, '');
    if (next === c) break;
    c = next;
  }
  return c.replace(/\s*2>&1\b/g, '').replace(/\s*\|\s*(?:tail|head)(?:\s+-n?\s*\d+|\s+-\d+)?\s*$/, '');
}

/** Longest command key, in characters: a key this long was cut from a longer command. */
export const COMMAND_KEY_CHARS = 120;

/**
 * Options that change how a command shows or paces its run, not what it runs (long names without
 * their dashes): verbosity (`--quiet`, `--verbose`, `--silent`), colour and layout (`--color`,
 * `--no-color`, `--format`, `--reporter`, `--tb`, `--pretty`, `--progress`), watching and stopping
 * early (`--watch`, `--watchAll`, `--ci`, `--bail`, `--exitfirst`, `--maxfail`, `--runInBand`). A run
 * with or without them runs the same check.
 */
export const DISPLAY_OPTIONS: ReadonlySet<string> = new Set([
  'quiet',
  'verbose',
  'silent',
  'verbosity',
  'color',
  'colors',
  'colour',
  'no-color',
  'no-colors',
  'no-colour',
  'format',
  'reporter',
  'tb',
  'pretty',
  'no-pretty',
  'progress',
  'no-progress',
  'watch',
  'watchAll',
  'no-watch',
  'no-watchman',
  'ci',
  'bail',
  'exitfirst',
  'maxfail',
  'fail-fast',
  'runInBand',
  'no-header',
  'no-summary',
  'disable-warnings',
  'log-level',
  'loglevel',
]);
/** Short options of {@link DISPLAY_OPTIONS}' kind, alone or clustered (`-q`, `-vv`, `-xq`): quiet, verbose, stop at the first failure. */
const DISPLAY_SHORT = /^-[qvx]+$/;

/**
 * What a command does, values aside: its {@link commandKey} with option values (`--key=value` →
 * `--key`), redirections (`2>nul`, `>out.txt`), the `--` separator and the display options
 * ({@link DISPLAY_OPTIONS}, `-q`, `-v`, `-x`) left out; quoted words kept whole. Option names stay:
 * for a command such as `gcloud sql instances patch db --assign-ip` the option is the operation, and
 * `… patch db --database-flags=x=on` is another one. Two runs with the same target run the same
 * program, subcommand, target and options, with or without environment assignments before the
 * program (`COREPACK_ENABLE_PROJECT_SPEC=0 pnpm --version` and `pnpm --version`): `pytest -x -q tests/a.py` and `pytest tests/a.py`; `npm
 * test -- --watch=false` and `npm test`; `terraform plan -var-file=dev.tfvars` and `terraform plan
 * -var-file=prod.tfvars`. A value given as a separate word (`-n 10`) is kept, as a plain word is.
 */
export function commandTarget(command: string): string {
  // Every compaction's ledger and scorecard read every command of the span again: kept (bounded).
  let target = commandTargets.get(command);
  if (target === undefined) {
    target = readCommandTarget(command);
    if (commandTargets.size >= KEPT_COMMAND_TARGETS) commandTargets.clear();
    commandTargets.set(command, target);
  }
  return target;
}
const commandTargets = new Map<string, string>();
/** Most command targets kept. */
const KEPT_COMMAND_TARGETS = 50_000;

function readCommandTarget(command: string): string {
  return targetWords(launchedRun(command) ?? command).join(' ');
}

/**
 * A launcher's words before the program it starts in the background or in another window: cmd's
 * `start` with its switches and window title (`start /B`, `start "Proxy" /MIN`), `Start-Process`,
 * `nohup`, `setsid`.
 */
const LAUNCHER = /^(?:start(?:\s+\/[A-Za-z]+(?::\S+)?|\s+"[^"]*")*|Start-Process|nohup|setsid)\s+(?=\S)/i;

/**
 * The run a command launches in the background or in another window, launcher aside, when its
 * last step is one (`taskkill … & start /B proxy.exe --port=5432`, `cd x && start "Proxy" proxy.exe
 * --port=5432`, `nohup node server.js > log 2>&1 &` → `proxy.exe --port=5432`, `node server.js >
 * log 2>&1`); undefined for any other command. The steps before it prepare the launch: two launches
 * of the same run, however started, run the same thing, and a later one that started fixes an
 * earlier one that failed.
 */
export function launchedRun(command: string): string | undefined {
  // The whole line: a long launch's key is cut before the options that tell what it runs.
  const key = commandLine(command).replace(/\s*(?<![&>])&\s*$/, '');
  // Separators inside quotes are the program's: positions are read on a copy with quotes blanked.
  const blanked = key.replace(/"[^"]*"|'[^']*'/g, (q) => `${q[0]}${' '.repeat(q.length - 2)}${q[0]}`);
  let from = 0;
  for (const m of blanked.matchAll(/&&|\|\||;|(?<![\d>&])&(?![&>])/g)) from = m.index + m[0].length;
  const last = key.slice(from).trim();
  const launcher = LAUNCHER.exec(last);
  return launcher ? last.slice(launcher[0].length) : undefined;
}

/** The words of {@link commandTarget}, in order (a quoted word with spaces is one word). */
function targetWords(command: string): string[] {
  // A word runs to the next unquoted space (`--format="value(a b)"` is one word).
  // Environment assignments before the program (`COREPACK_ENABLE_PROJECT_SPEC=0 pnpm --version`,
  // `env CI=1 npm test`) set how it runs, not what runs: the program and its words are the target.
  const out: string[] = [];
  for (const w of commandWords(command)) {
    if (/^(?:\d*|&)>/.test(w) || w === '--') continue;
    if (!w.startsWith('-')) {
      // An installed program named by its full path (`~/.nvm/…/bin/pnpm`, `node_modules/.bin/tsc`)
      // is the program a bare `pnpm` or `tsc` runs: one target, so a later bare run can fix it.
      out.push(out.length === 0 ? installedProgram(w) : w);
      continue;
    }
    const name = w.replace(/=.*$/s, '');
    if (DISPLAY_SHORT.test(name) || DISPLAY_OPTIONS.has(name.replace(/^--?/, ''))) continue;
    out.push(name);
  }
  return out;
}

/** `DIR/bin/NAME` or `DIR/.bin/NAME` (either slash, quotes removed) → `NAME`; any other word unchanged. */
function installedProgram(word: string): string {
  const m = /^["']?(?:.*[\\/])?\.?bin[\\/]([^\\/"']+)["']?$/.exec(word);
  return m ? m[1] : word;
}

/** The words of a command's {@link commandKey}, environment assignments before the program left out. */
function commandWords(command: string): string[] {
  const key = commandKey(command).replace(/^(?:env\s+)?(?:[A-Za-z_][A-Za-z0-9_]*=(?:"[^"]*"|'[^']*'|\S*)\s+)+/, '');
  return key.match(/(?:[^\s"']+|"(?:[^"\\]|\\.)*"?|'[^']*'?)+/g) ?? [];
}

/**
 * The {@link commandTarget} of the last segment of a chain `a && b` when that segment is a check
 * ({@link isCheckCommand}) that neither only shows content nor probes; undefined for any other
 * command (one segment, `;` or `||` between segments, a last segment such as `cat x | grep y`).
 * A failed chain stopped at the segment that failed, most often its last (the step the earlier
 * ones prepare, `node --version && pnpm --version`), and a later passing run of that step alone
 * reaches what the chain was for: it fixes the chain's failure as a run of the whole chain would.
 */
export function chainTailTarget(command: string): string | undefined {
  return chainTailOf(command)?.target;
}

/** The segment whose {@link commandTarget} {@link chainTailTarget} gives; undefined when it gives none. */
function chainTail(command: string): string | undefined {
  return chainTailOf(command)?.segment;
}

/**
 * The last segment of a chain ending in a check, with its {@link commandTarget}; null when there is
 * none. Read for every command of the span at every compaction, as targets are: kept (bounded).
 */
function chainTailOf(command: string): { segment: string; target: string } | null {
  let tail = chainTails.get(command);
  if (tail === undefined) {
    const segment = readChainTail(command);
    tail = segment === undefined ? null : { segment, target: commandTarget(segment) };
    if (chainTails.size >= KEPT_COMMAND_TARGETS) chainTails.clear();
    chainTails.set(command, tail);
  }
  return tail;
}
const chainTails = new Map<string, { segment: string; target: string } | null>();

function readChainTail(command: string): string | undefined {
  const line = commandKey(command);
  let quote = '';
  let tail = -1;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      if (ch === quote) quote = '';
      else if (ch === '\\' && quote === '"') i++;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === ';' || (ch === '|' && line[i + 1] === '|')) return undefined;
    else if (ch === '&' && line[i + 1] === '&') tail = i + 2;
  }
  if (tail < 0) return undefined;
  const last = line.slice(tail).trim();
  if (!last || !isCheckCommand(last) || showsContent(last) || endsInProbe(last)) return undefined;
  return last;
}

/** How a later success resolved a failed command (see {@link LaterSuccesses}). */
export type CommandFix =
  | { at: number; by: 'same command succeeded' }
  | { at: number; by: 'options added'; added: string[] }
  | { at: number; by: 'worked around' }
  | { at: number; by: 'signed in' }
  | { at: number; by: 'input file left out'; dropped: string[] };

/**
 * Options that only point a run at an input file (`terraform plan -var-file=x.tfvars`, `docker run
 * --env-file`, `helm template --values`): a run that fails reading it and a later run without it.
 */
const INPUT_FILE_OPTION = /^--?(?:var-file|env-file|values|backend-config|config-file|input-file)$/i;
/** Subcommands that check or plan without changing anything: their later pass shows the work goes on without the file. */
const CHECK_SUBCOMMAND = /^(?:plan|validate|check|lint|test|build|diff|template|fmt)$/i;
/**
 * Sign-ins for credentials the program itself does not use (`gcloud auth application-default login`
 * signs in Application Default Credentials, read by libraries and tools such as Terraform, never by
 * gcloud's own commands): no later run of that program shows them signed in, and which later runs
 * read them cannot be told from the command, so such a failure stays unresolved by later work.
 */
const OTHER_CREDENTIALS_WORD = /^application-default$/i;

/**
 * Options whose addition makes a run do less than the failed one did (select fewer tests, only
 * plan, only print): a run with them passing says nothing of the failed run's goal.
 */
const NARROWING_OPTIONS = new Set([
  '-k',
  '-t',
  '-m',
  '-g',
  '-n',
  '-h',
  '--help',
  '--version',
  '-V',
  '--grep',
  '--filter',
  '--only',
  '--skip',
  '--ignore',
  '--deselect',
  '--exclude',
  '--testNamePattern',
  '--testPathPattern',
  '--testPathIgnorePatterns',
  '--dry-run',
  '--dryrun',
  '--collect-only',
  '--list',
  '--listTests',
]);

/** Checks and program runs: a failure of one is fixed only by that check passing, never worked around. */
const CHECK_RUN =
  /^(?:npx\s+|pnpm\s+exec\s+|bunx\s+|uv\s+run\s+|poetry\s+run\s+)?(?:pytest|jest|vitest|mocha|tsc|eslint|prettier|ruff|mypy|flake8|pylint|tox|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:test|build|lint|typecheck|check|dev|start)|cargo\s+(?:test|build|check|clippy|run)|go\s+(?:test|build|vet|run)|make|mvn|gradle|\.\/\S+|node|python\d?(?:\.\d+)?|deno|bun|ruby|php|java|dotnet|curl|wget|ping|nc|telnet|psql|mysql|sqlite3|timeout)\b/i;
/** Subcommand words of a command that only reads state: a success of one does no failed action's work. */
const READ_ONLY_WORD =
  /^(?:list|ls|describe|get|show|status|info|view|inspect|logs?|cat|version|help|whoami|search|find|print-[\w-]+|check|validate|history)$/i;
/**
 * Words of a sign-in command (`gcloud auth login`, `az login`, `npm login`, `gh auth login`); `auth`
 * alone is not one (`gcloud auth revoke`, `gh auth status`).
 */
const SIGN_IN_WORD = /^(?:login|signin|sign-in|authenticate)$/i;
/** Words of a command that signs in, sets configuration or reports a version: its success shows no signed-in work. */
const NOT_SIGNED_IN_WORK =
  /^(?:auth|login|logout|signin|sign-in|config|configure|version|--version|-v|help|--help|-h|info)$/i;

/** Words of a command that removes, stops or revokes. */
const REMOVE_WORD =
  /^(?:rm|rmdir|del|delete|remove|uninstall|kill|taskkill|stop|destroy|drop|revoke|unset|purge|prune|erase|detach)$/i;

/** What {@link LaterSuccesses} reads of a command, once per command text. */
interface RunShape {
  /** {@link commandTarget}. */
  target: string;
  /** The program (its path and `npx`-style launchers aside). */
  program: string;
  /** The target's plain words (option values given as separate words among them), joined. */
  base: string;
  /** The target's option names. */
  options: string[];
  /** Distinctive arguments the command names (see {@link distinctiveWords}), option values too. */
  named: Set<string>;
  /** Distinctive plain arguments: what a workaround must name again. */
  distinct: string[];
  /** One segment, not a check or a program run, not a read-only query: an action a workaround can do. */
  action: boolean;
  /** Only reads state ({@link READ_ONLY_WORD}) or shows content. */
  readOnly: boolean;
  /** Signs in ({@link SIGN_IN_WORD}) for credentials the program's own later runs use ({@link OTHER_CREDENTIALS_WORD}). */
  signIn: boolean;
  /** Its success shows work done signed in ({@link NOT_SIGNED_IN_WORK} names none of its words). */
  signedInWork: boolean;
  /** Removes or stops what it names ({@link REMOVE_WORD}): never a workaround for making it. */
  removes: boolean;
}

/**
 * An argument distinctive enough to name one thing: 4+ characters holding a `/`, `\\`, `:`, `.`,
 * `@`, `_`, `-` or a digit beside letters (a URL, a path, a bucket, a project or instance name), not an
 * option; quotes and a trailing slash aside. Common words (`install`, `create`) are not distinctive.
 */
function distinctiveWords(words: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of words) {
    if (raw.startsWith('-') || /^(?:\d*|&)>/.test(raw)) continue;
    const w = raw.replace(/^["']|["']$/g, '').replace(/[\\/]+$/, '');
    if (w.length >= 4 && /[A-Za-z]/.test(w) && /[/\\:.@_\d-]/.test(w) && !/\s/.test(w) && !/^[\d.]+$/.test(w))
      out.push(w);
  }
  return out;
}

const shapes = new Map<string, RunShape>();

function shapeOf(command: string): RunShape {
  let shape = shapes.get(command);
  if (shape === undefined) {
    shape = readShape(command);
    if (shapes.size >= KEPT_COMMAND_TARGETS) shapes.clear();
    shapes.set(command, shape);
  }
  return shape;
}

/**
 * Output hidden or a failure ignored (`2>nul`, `2>/dev/null`, `|| true`, `; exit 0`,
 * `-ErrorAction SilentlyContinue`): such a run passing says nothing of what failed without it.
 */
const SILENCED =
  /\d?>\s*(?:nul|\$null|\/dev\/null)\b|\|\|\s*(?:true|:|exit\s+0|echo\b)|;\s*(?:true|exit\s+0)\s*$|-ErrorAction\s+(?:SilentlyContinue|Ignore)/i;

function readShape(command: string): RunShape {
  // A launch is read as the run it starts (see launchedRun).
  command = launchedRun(command) ?? command;
  const words = targetWords(command);
  // A run that hides its errors is another target than the same run showing them: its success fixes nothing.
  const hidden = SILENCED.test(command) ? ' (errors hidden)' : '';
  const plain = words.filter((w) => !w.startsWith('-'));
  const options = words.filter((w) => w.startsWith('-'));
  const program = (plain[0] ?? '').replace(/^.*[\\/]/, '').replace(/\.(?:exe|cmd|bat)$/i, '');
  // Every word with option values split off: a workaround may give as `--project=X` what the failed run gave as `-p X`.
  const all = commandWords(command).flatMap((w) =>
    w.startsWith('-') && w.includes('=') ? [w.slice(w.indexOf('=') + 1)] : [w],
  );
  const key = commandKey(command);
  const oneSegment = !/&&|\|\||;|\|/.test(key.replace(/"[^"]*"|'[^']*'/g, ''));
  const readOnly = showsContent(key) || endsInProbe(key) || plain.slice(1, 4).some((w) => READ_ONLY_WORD.test(w));
  return {
    target: words.join(' ') + hidden,
    program,
    base: plain.join(' ') + hidden,
    options,
    named: new Set(distinctiveWords(all)),
    distinct: distinctiveWords(plain.slice(1)),
    action: oneSegment && !readOnly && !CHECK_RUN.test(key),
    readOnly,
    signIn:
      plain.slice(1, 4).some((w) => SIGN_IN_WORD.test(w)) &&
      !plain.slice(1, 4).some((w) => OTHER_CREDENTIALS_WORD.test(w)) &&
      !readOnly,
    signedInWork:
      plain.slice(1, 4).every((w) => !NOT_SIGNED_IN_WORK.test(w)) && options.every((o) => !NOT_SIGNED_IN_WORK.test(o)),
    removes: plain.slice(0, 4).some((w) => REMOVE_WORD.test(w)),
  };
}

/** Later successes scanned at most per question (the nearest first). */
const SCAN = 200;

/**
 * Positions appended in ascending order under keys, with a value per position, that can be cut back
 * to the positions below a point: the forward indexes of a list that grows at its end ({@link
 * LaterSuccesses}, {@link LaterPaths}) keep their postings across readings of the list grown, and
 * drop those of its changed tail.
 */
class Postings {
  /** Every list appended to, once per position appended, in the order of the appends. */
  private readonly appended: Array<{ ats: number[]; vals: unknown[] }> = [];
  /** The position of each append in {@link appended}. */
  private readonly appendedAt: number[] = [];

  /** Appends position `at` (not below any appended before) with `val` to the list of `key` in `map`. */
  push<T>(map: Map<string, { ats: number[]; vals: T[] }>, key: string, at: number, val: T): void {
    let list = map.get(key);
    if (!list) map.set(key, (list = { ats: [], vals: [] }));
    list.ats.push(at);
    list.vals.push(val);
    this.appended.push(list);
    this.appendedAt.push(at);
  }

  /** Drops every position at or after `n`. */
  cut(n: number): void {
    const { appended, appendedAt } = this;
    while (appendedAt.length && appendedAt[appendedAt.length - 1] >= n) {
      appendedAt.pop();
      const list = appended.pop()!;
      list.ats.pop();
      list.vals.pop();
    }
  }
}

/** Index in `ats` (ascending) of the first position after `after`; `ats.length` when none. */
function firstAfter(ats: readonly number[], after: number): number {
  let lo = 0;
  let hi = ats.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ats[mid] <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first of `ats` (ascending positions) after `after` and before `before`; undefined when none. */
function nextAt(ats: readonly number[] | undefined, after: number, before: number): number | undefined {
  if (ats === undefined) return undefined;
  const i = firstAfter(ats, after);
  return i < ats.length && ats[i] < before ? ats[i] : undefined;
}

/**
 * The successful runs of a list of calls or actions, added in the order of their positions ({@link
 * add}), answering "which success after a failure at a position (and before another) resolves its
 * command" ({@link fix}), one rule read by the retention scorecard (`errorSignatures`) and the
 * summary's ledger alike. Each answer is looked up in lists of positions per key, so a list that
 * grows at its end is indexed once for every question asked of it (see {@link cut}). In order:
 * 1. **The same command**: same {@link commandTarget}, or of a chain `a && b` ending in a check, that
 *    check alone ({@link chainTailTarget}).
 * 2. **Options added**: the same program, subcommand and arguments, with every option the failed
 *    run gave and more (`npm install` fixed by `npm install --legacy-peer-deps`, `terraform plan` by
 *    `terraform -chdir=infra plan`); not options that make a run do less ({@link NARROWING_OPTIONS}).
 *    Options are the operation in some commands, so a run with other options than the failed one's
 *    (`… patch db --assign-ip`, then `… patch db --database-flags=…`) is not it.
 * 3. **Worked around**: a failed action (one command, not a check, a program run or a read-only query)
 *    that names a URL or a path, whose distinctive arguments ({@link distinctiveWords}: the URL or
 *    path, resource names) a later successful action (not one that removes or stops) names all
 *    again, by another program or subcommand (`gsutil mb -p proj gs://b`, then `gcloud storage
 *    buckets create gs://b --project=proj`). A resource name alone is not enough: later actions on
 *    the same instance (`gcloud sql connect db`, then `gcloud sql instances patch db`) do other work.
 * 4. **Signed in**: a failed sign-in (`gcloud auth login`, `az login`) is resolved by a later success of
 *    the same program doing signed-in work (not signing in, configuring or printing a version): the
 *    person completed the sign-in themselves. Not a sign-in for credentials the program itself does
 *    not use ({@link OTHER_CREDENTIALS_WORD}).
 * 5. **Input file left out**: a failed check or plan ({@link CHECK_SUBCOMMAND}) whose options missing
 *    later only point at an input file ({@link INPUT_FILE_OPTION}) is resolved by a later pass of the
 *    same program and subcommand without them (`terraform plan -var-file=x.tfvars` failing to read
 *    the file, then `terraform -chdir=infra plan -out=tfplan` passing).
 * Among successes of one kind the nearest after the failure wins; rule 2 and 3 look at the
 * {@link SCAN} nearest runs of the same arguments or name.
 */
export class LaterSuccesses {
  private readonly postings = new Postings();
  private readonly byTarget = new Map<string, { ats: number[]; vals: undefined[] }>();
  private readonly byBase = new Map<string, { ats: number[]; vals: string[][] }>();
  private readonly byName = new Map<string, { ats: number[]; vals: RunShape[] }>();
  private readonly byProgram = new Map<string, { ats: number[]; vals: undefined[] }>();

  /** Records a successful run of `command` at position `at` (positions never decrease from call to call). */
  add(command: string, at: number): void {
    const s = shapeOf(command);
    const p = this.postings;
    p.push(this.byTarget, s.target, at, undefined);
    const tail = chainTail(command);
    // Of one run, the chain's tail is met before the whole chain (as the nearest-first scans read them).
    if (tail !== undefined) {
      const t = shapeOf(tail);
      p.push(this.byBase, t.base, at, t.options);
    }
    p.push(this.byBase, s.base, at, s.options);
    if (s.action && !s.removes) for (const w of s.named) p.push(this.byName, w, at, s);
    if (s.signedInWork && s.program) p.push(this.byProgram, s.program, at, undefined);
  }

  /** Forgets the runs at positions `n` and after (the list they were read from changed there). */
  cut(n: number): void {
    this.postings.cut(n);
  }

  /**
   * The nearest success after position `after` (and before `before`) that resolves the failed
   * `command` (see the class comment); undefined when none.
   */
  fix(command: string, after = -1, before = Infinity): CommandFix | undefined {
    const s = shapeOf(command);
    const tailTarget = chainTailTarget(command);
    const same =
      nextAt(this.byTarget.get(s.target)?.ats, after, before) ??
      (tailTarget === undefined ? undefined : nextAt(this.byTarget.get(tailTarget)?.ats, after, before));
    if (same !== undefined) return { at: same, by: 'same command succeeded' };
    const tail = chainTail(command);
    for (const r of tail === undefined ? [s] : [s, shapeOf(tail)]) {
      const list = this.byBase.get(r.base);
      if (!list) continue;
      for (let i = firstAfter(list.ats, after), seen = 0; i < list.ats.length && seen < SCAN; i++, seen++) {
        const at = list.ats[i];
        if (at >= before) break;
        const later = list.vals[i];
        const added = later.filter((o) => !r.options.includes(o));
        if (added.length && r.options.every((o) => later.includes(o)) && !added.some((o) => NARROWING_OPTIONS.has(o)))
          return { at, by: 'options added', added };
        // A check or plan that failed with an input-file option passes later without it (other
        // options added, none narrowing): the work goes on without that file.
        const dropped = r.options.filter((o) => !later.includes(o));
        if (
          dropped.length &&
          dropped.every((o) => INPUT_FILE_OPTION.test(o)) &&
          CHECK_SUBCOMMAND.test(r.base.split(' ')[1] ?? '') &&
          !added.some((o) => NARROWING_OPTIONS.has(o))
        )
          return { at, by: 'input file left out', dropped };
      }
    }
    if (s.action && s.distinct.some((w) => /[/\\]/.test(w))) {
      const list = this.byName.get(s.distinct[0]);
      if (list)
        for (let i = firstAfter(list.ats, after), seen = 0; i < list.ats.length && seen < SCAN; i++, seen++) {
          if (list.ats[i] >= before) break;
          const shape = list.vals[i];
          if (shape.base !== s.base && s.distinct.every((w) => shape.named.has(w)))
            return { at: list.ats[i], by: 'worked around' };
        }
    }
    if (s.signIn) {
      const at = nextAt(this.byProgram.get(s.program)?.ats, after, before);
      if (at !== undefined) return { at, by: 'signed in' };
    }
    return undefined;
  }

  /** Whether some recorded success after position `after` (and before `before`) resolves the failed `command`. */
  fixes(command: string, after = -1, before = Infinity): boolean {
    return this.fix(command, after, before) !== undefined;
  }
}

/** Commands that check work (tests, builds, type checks, linters, running a program). */
const CHECK =
  /\b(?:test|tests|pytest|jest|vitest|mocha|tsc|build|lint|eslint|cargo|go (?:test|build|vet|run)|make|mvn|gradle|npm|npx|pnpm|yarn|node|python\d?|ruff|mypy|flake8|terraform|docker|curl|deno|bun)\b/;

/** Whether the call failed: as `calls.ts` read it (`outcome.ts`), else a failure line at the head of a command's result. */
function failedCall(c: AgentCall): boolean {
  let failed = failedOf.get(c);
  if (failed === undefined) failedOf.set(c, (failed = readFailed(c)));
  return failed;
}

/** Each call's {@link failedCall}, read once (a read call never changes). */
const failedOf = new MessageMemo<AgentCall, boolean>();
/**
 * Each call's command key, by its arguments object: the calls of one message share theirs between
 * readings of the span (calls.ts), so a command is keyed once in its life.
 */
const keyOf = new MessageMemo<object, CommandFacts>();

/** What the error rules read of a call's command, once per arguments object. */
interface CommandFacts {
  name: string;
  /** {@link commandKey}; null when the call runs no command. */
  key: string | null;
  target: string;
  /** The command checks work ({@link isCheckCommand}). */
  check: boolean;
}

/** {@link commandKey} of the call's command; undefined when it runs none. */
function callKey(c: AgentCall): string | undefined {
  return keysOf(c).key ?? undefined;
}

/** {@link commandTarget} of the call's command; undefined when it runs none. */
function callTarget(c: AgentCall): string | undefined {
  const known = keysOf(c);
  return known.key === null ? undefined : known.target;
}

function keysOf(c: AgentCall): CommandFacts {
  let known = keyOf.get(c.args);
  if (known === undefined || known.name !== c.name) {
    const cmd = commandOf(c);
    known = {
      name: c.name,
      key: cmd === undefined ? null : commandKey(cmd),
      target: cmd === undefined ? '' : commandTarget(cmd),
      check: cmd !== undefined && isCheckCommand(cmd),
    };
    keyOf.set(c.args, known);
  }
  return known;
}

/**
 * Calls that hand the turn to the person (a completion report, a plan, a question: Cline's
 * `attempt_completion`, `plan_mode_respond`, `ask_followup_question`, Claude Code's `ExitPlanMode`,
 * `AskUserQuestion`, OpenHands' `finish`, SWE-agent's `submit`): their result holds the person's reply (feedback, a pasted error), never a failure
 * of the call itself, so none is an error signature.
 */
const HAND_OVER_CALL =
  /^(?:attempt_completion|plan_mode_respond|ask_followup_question|ask_?user(?:_?question)?|AskUserQuestion|ExitPlanMode|exit_plan_mode|finish|submit)$/i;

function readFailed(c: AgentCall): boolean {
  if (HAND_OVER_CALL.test(c.name)) return false;
  if (c.failed !== undefined) return c.failed;
  if (c.result === undefined) return false;
  // An edit whose recording states no flag (SWE-agent's `str_replace_editor`) failed when its report
  // says it changed nothing: the rule the files changed and the summary's ledger read (`editFailed`).
  if (commandOf(c) === undefined) return fileTouches(c).some((t) => t.action !== 'read') && editFailed(c.result);
  // No recorded status (SWE-agent, Aider): the output's first lines decide (read once per result).
  return resultHead(c, failureLine) !== '';
}

const PATHISH =
  /(?:[\w.@~-]*\/)+[\w.@-]+\.\w+|\b[\w-]+\.(?:py|ts|tsx|js|jsx|mjs|cjs|rs|go|java|rb|php|c|h|cpp|json|ya?ml|toml|sql|sh|css|html|md|tf)\b/g;

/**
 * Paths named in `texts` (path keys): a path with a folder and an extension, or a file name with a
 * known source extension.
 */
export function namedFiles(...texts: string[]): string[] {
  const out = new Set<string>();
  for (const t of texts) for (const m of t.matchAll(PATHISH)) out.add(pathKey(m[0]));
  return [...out];
}

/**
 * A failed call's signature fields, before resolution: read once per call arguments and result text
 * (both shared between readings of a span, see calls.ts); `index` is the call's own.
 */
function signatureOf(c: AgentCall): Omit<ErrorSignature, 'state'> {
  const known = signatureMemo.get(c.args);
  if (known && known.name === c.name && known.result === c.result) return { ...known.sig, index: c.index };
  const sig = readSignature(c);
  signatureMemo.set(c.args, { name: c.name, result: c.result, sig });
  return sig;
}

const signatureMemo = new MessageMemo<
  object,
  { name: string; result: string | undefined; sig: Omit<ErrorSignature, 'state'> }
>();

function readSignature(c: AgentCall): Omit<ErrorSignature, 'state'> {
  const command = commandOf(c);
  const line = failureLine(c.result ?? '');
  if (command !== undefined) {
    // The files the failure names: in the command, and in the output's first 60 lines (traceback frames, compiler locations).
    const head = (c.result ?? '').split('\n').slice(0, 60).join('\n');
    return { index: c.index, tool: 'command', key: commandKey(command), line, files: namedFiles(command, head) };
  }
  const touched = fileTouches(c).map((t) => pathKey(t.path));
  return { index: c.index, tool: c.name, key: `${c.name} ${touched[0] ?? ''}`.trim(), line, files: touched };
}

/**
 * Error signatures of the failed calls of messages `from` ≤ index < `to`, each labelled at `point`
 * (a message index: calls at or after it are not seen). A failure is a call whose recorded success
 * flag says so (`toolOk`, an exit code), or, where nothing is recorded, a command whose output begins
 * with a failure line. It is resolved when, before `point`:
 * - the same command (same {@link commandTarget}: program, subcommand, target and options, values and
 *   display options aside) later
 *   succeeded; or
 * - a file it names was edited later and a check command (test, build, lint, run) then succeeded; or
 * - for a failed edit or read, the same tool later succeeded on the same file.
 * Otherwise it is open. Several failures of the same command (same target) give one signature (the
 * latest).
 * `all`: `agentCalls(entries)` when the caller has read them already.
 */
export function errorSignatures(
  entries: readonly RetentionEntry[],
  from: number,
  to: number,
  point: number = to,
  all: readonly AgentCall[] = agentCalls(entries),
): ErrorSignature[] {
  // Most callers label at the end of what they read: every call is before the point, no copy.
  const calls = (all.at(-1)?.index ?? -1) < point ? all : all.filter((c) => c.index < point);
  const n = calls.length;
  // Each failure's resolution looks at the calls after it, in indexes of the calls' successes, edits
  // and passing checks by position (see `CallIndex`): the cost is in the failures, not in calls ×
  // failures, and a grown span's calls are indexed once.
  const index = CallIndex.of(calls);
  const resolution = new Array<Pick<ErrorSignature, 'resolvedAt' | 'resolvedBy'> | undefined>(n);
  const signatures = new Array<Omit<ErrorSignature, 'state'> | undefined>(n);
  // Each check's latest failed run the agent's next words took as intended (read from the end, so a
  // failure is resolved by its own words or those after a later run of the same check).
  const expectedAt = new Map<string, number>();
  const { failures, passingChecks } = index;
  for (let f = firstAfter(failures, n - 1) - 1; f >= 0; f--) {
    const k = failures[f];
    const c = calls[k];
    if (c.index < from || c.index >= to) continue;
    const sig = signatureOf(c);
    signatures[k] = sig;
    if (sig.tool === 'command') {
      const fix = index.successes.fix(commandOf(c) ?? sig.key, k, n);
      if (fix !== undefined) resolution[k] = { resolvedAt: calls[fix.at].index, resolvedBy: RESOLVED_BY[fix.by] };
      else {
        const edit = index.edits.first('', sig.files, k, n);
        if (edit !== undefined) {
          // The first passing check in a message after the edit's.
          let after = edit + 1;
          while (after < n && calls[after].index <= calls[edit].index) after++;
          const check = nextAt(passingChecks, after - 1, n);
          if (check !== undefined)
            resolution[k] = { resolvedAt: calls[check].index, resolvedBy: 'file edited and check passed' };
        }
      }
      // A deliberate negative check: the agent's next words take the failure as the outcome it
      // meant, after this run or a later run of the same check (`checkHead`).
      if (resolution[k] === undefined) {
        const words = nextWordsAt(entries, c, point);
        const head = checkHead(commandOf(c) ?? sig.key);
        if (words !== undefined && expectsFailure(words.text)) expectedAt.set(head, words.index);
        const at = expectedAt.get(head);
        if (at !== undefined) resolution[k] = { resolvedAt: at, resolvedBy: 'the agent expected the failure' };
      }
    } else {
      const same = index.sameTool.first(c.name, sig.files, k, n);
      if (same !== undefined) resolution[k] = { resolvedAt: calls[same].index, resolvedBy: 'same edit succeeded' };
    }
  }
  const byKey = new Map<string, ErrorSignature>();
  for (let k = 0; k < n; k++) {
    const sig = signatures[k];
    if (!sig) continue;
    const resolved = resolution[k];
    byKey.set(
      `${sig.tool}\u0000${sig.tool === 'command' ? (callTarget(calls[k]) ?? sig.key) : sig.key}`,
      resolved ? { ...sig, state: 'resolved', ...resolved } : { ...sig, state: 'open' },
    );
  }
  return [...byKey.values()];
}

/**
 * The agent's words right after `call`'s result (or after the call, when it has none): the text of
 * the next assistant message before `point` that has words of the agent's (messages of tool calls
 * alone and harness notices are passed over), with its index; undefined when there is none.
 */
export function nextWordsAt(
  entries: readonly RetentionEntry[],
  call: AgentCall,
  point: number,
): { text: string; index: number } | undefined {
  const end = Math.min(point, entries.length);
  for (let j = Math.max(call.index, call.resultIndex ?? call.index) + 1; j < end; j++) {
    const m = entries[j].message;
    if (m.role !== 'assistant') continue;
    // A message of tool calls alone says nothing yet: the agent's next words speak of every run since it last spoke.
    const text = agentWords(textWithPlaceholders(m.content));
    if (text) return { text, index: j };
  }
  return undefined;
}

/** A passing check: a check command (see {@link isCheckCommand}) that did not fail. */
function isPassingCheck(c: AgentCall): boolean {
  return keysOf(c).check && !failedCall(c) && !c.denied;
}

/** Whether `command` checks work: runs tests, a build, a type check, a linter or a program. */
export function isCheckCommand(command: string): boolean {
  return CHECK.test(command);
}

/**
 * The calls naming each path (per group: a tool name, or '' for all), added in the order of their
 * positions, answering "the first call after a point (and before another) whose path is {@link
 * samePath} as one of these": equal, or one the other's suffix at a folder boundary. A path is filed
 * under itself and every such suffix of it, so both directions are a lookup; {@link cut} drops the
 * calls of a changed tail, as {@link LaterSuccesses} does.
 */
export class LaterPaths {
  private readonly postings = new Postings();
  /** Per group and path: positions of the calls naming exactly that path. */
  private readonly exact = new Map<string, { ats: number[]; vals: undefined[] }>();
  /** Per group and suffix: positions of the calls whose path is it or ends with `/` and it. */
  private readonly suffix = new Map<string, { ats: number[]; vals: undefined[] }>();

  /**
   * Records a call in `group` naming `path` at position `at` (positions never decrease from call to
   * call); `suffixes`: {@link pathSuffixes} of `path` when the caller has them.
   */
  add(group: string, path: string, at: number, suffixes: readonly string[] = pathSuffixes(path)): void {
    const p = this.postings;
    p.push(this.exact, `${group}\u0000${path}`, at, undefined);
    p.push(this.suffix, `${group}\u0000${path}`, at, undefined);
    for (const s of suffixes) p.push(this.suffix, `${group}\u0000${s}`, at, undefined);
  }

  /** Forgets the calls at positions `n` and after. */
  cut(n: number): void {
    this.postings.cut(n);
  }

  /**
   * Position of the first call in `group` after position `after` (and before `before`) naming one of
   * `paths`; undefined when none.
   */
  first(group: string, paths: readonly string[], after = -1, before = Infinity): number | undefined {
    let best: number | undefined;
    const take = (at: number | undefined) => {
      if (at !== undefined && (best === undefined || at < best)) best = at;
    };
    for (const f of paths) {
      // A later path that is `f` or ends with `/f`.
      take(nextAt(this.suffix.get(`${group}\u0000${f}`)?.ats, after, before));
      // A later path that `f` ends with (after a `/`).
      for (let i = f.indexOf('/'); i >= 0; i = f.indexOf('/', i + 1))
        take(nextAt(this.exact.get(`${group}\u0000${f.slice(i + 1)}`)?.ats, after, before));
    }
    return best;
  }
}

/** The parts of `path` after each of its `/` (`a/b/c` → `b/c`, `c`): the suffixes {@link LaterPaths} files it under. */
export function pathSuffixes(path: string): string[] {
  const out: string[] = [];
  for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) out.push(path.slice(i + 1));
  return out;
}

/** What {@link CallIndex} reads of one call. */
interface ScanFacts {
  /** {@link commandOf}. */
  command: string | undefined;
  /** {@link failedCall}. */
  failed: boolean;
  /** {@link isPassingCheck}. */
  passingCheck: boolean;
  /** Its {@link fileTouches}: path key, its {@link pathSuffixes}, and whether it changed the file. */
  touches: Array<{ path: string; suffixes: string[]; edit: boolean }>;
}

/**
 * What the failures of a list of calls are resolved from, by position in the list: the successes
 * ({@link LaterSuccesses}), the files changed (by any call) and those a tool changed without failing
 * (by tool, {@link LaterPaths}), the passing checks and the failures. A grown span's calls are the
 * same objects as last time (see `agentCalls`) and a call's facts never change, so the index of the
 * calls read last is kept: cut where a new list differs from it (a call at the end given its result
 * is a new object), then extended by the calls after, so a grown span indexes its new calls only.
 */
class CallIndex {
  /** The calls indexed, in order. */
  readonly calls: AgentCall[] = [];
  readonly successes = new LaterSuccesses();
  readonly edits = new LaterPaths();
  readonly sameTool = new LaterPaths();
  /** Positions of the passing checks ({@link isPassingCheck}), ascending. */
  readonly passingChecks: number[] = [];
  /** Positions of the failed calls ({@link failedCall}), ascending. */
  readonly failures: number[] = [];

  /** The index of `calls`: the kept one cut and extended when memos are kept and the list is long. */
  static of(calls: readonly AgentCall[]): CallIndex {
    if (!messageMemosKept()) keptIndex = undefined;
    if (calls.length < KEEP_SCAN_FROM || !messageMemosKept()) return new CallIndex().update(calls);
    keptIndex = (keptIndex ?? new CallIndex()).update(calls);
    return keptIndex;
  }

  /** Cuts the index where `calls` differs from the calls indexed, then indexes the calls after. */
  private update(calls: readonly AgentCall[]): this {
    const own = this.calls;
    const upTo = Math.min(own.length, calls.length);
    let same = 0;
    while (same < upTo && own[same] === calls[same]) same++;
    if (same < own.length) {
      own.length = same;
      this.successes.cut(same);
      this.edits.cut(same);
      this.sameTool.cut(same);
      while ((this.passingChecks.at(-1) ?? -1) >= same) this.passingChecks.pop();
      while ((this.failures.at(-1) ?? -1) >= same) this.failures.pop();
    }
    for (let k = same; k < calls.length; k++) {
      const c = calls[k];
      own.push(c);
      const f = readScanFacts(c);
      if (f.passingCheck) this.passingChecks.push(k);
      if (f.failed) this.failures.push(k);
      if (f.command !== undefined && !f.failed && !c.denied) this.successes.add(f.command, k);
      for (const t of f.touches) {
        if (t.edit) this.edits.add('', t.path, k, t.suffixes);
        if (!f.failed) this.sameTool.add(c.name, t.path, k, t.suffixes);
      }
    }
    return this;
  }
}

/** Lists with fewer calls are indexed apart (cheap), so they do not push a long span's index out. */
const KEEP_SCAN_FROM = 128;
/** The index {@link CallIndex.of} kept for the next, grown span. */
let keptIndex: CallIndex | undefined;

function readScanFacts(c: AgentCall): ScanFacts {
  const failed = failedCall(c);
  return {
    command: commandOf(c),
    failed,
    passingCheck: isPassingCheck(c),
    touches: fileTouches(c).map((t) => {
      const path = pathKey(t.path);
      return { path, suffixes: pathSuffixes(path), edit: t.action !== 'read' };
    }),
  };
}

/** Same file named two ways: equal, or one is the other's suffix at a folder boundary. */
export function samePath(a: string, b: string): boolean {
  if (a === b) return true;
  const [s, l] = a.length < b.length ? [a, b] : [b, a];
  return s.includes('/') ? l.endsWith(`/${s}`) : l.endsWith(`/${s}`) || l === s;
}

/**
 * Commands run in messages `from` ≤ index < `to` that never failed there or later before `point`
 * (by {@link commandKey}): a summary that shows one as failing is wrong. `all`: `agentCalls(entries)`
 * when the caller has read them already.
 */
export function neverFailedCommands(
  entries: readonly RetentionEntry[],
  from: number,
  to: number,
  point: number = to,
  all: readonly AgentCall[] = agentCalls(entries),
): string[] {
  // Most callers label at the end of what they read: every call is before the point, no copy.
  const calls = (all.at(-1)?.index ?? -1) < point ? all : all.filter((c) => c.index < point);
  // Runs counted from the span's start, a grown span's most often: the reading of the calls before continues.
  if (from <= 0 && calls.length >= KEEP_SCAN_FROM) return neverFailedFromStart(calls, to);
  const ran = new Set<string>();
  const failed = new Set<string>();
  readRuns(calls, 0, calls.length, from, to, ran, failed);
  return [...ran].filter((k) => !failed.has(k) && k.length >= 4);
}

/**
 * Reads `calls[i]`, i from `start` to `end`, into the commands that `ran` (calls in messages `from`
 * ≤ index < `to`, not refused, that did not fail) and those that `failed` (by command key).
 */
function readRuns(
  calls: readonly AgentCall[],
  start: number,
  end: number,
  from: number,
  to: number,
  ran: Set<string>,
  failed: Set<string>,
): void {
  for (let i = start; i < end; i++) {
    const c = calls[i];
    const key = callKey(c);
    if (key === undefined) continue;
    if (failedCall(c)) failed.add(key);
    else if (c.index >= from && c.index < to && !c.denied) ran.add(key);
  }
}

/**
 * {@link neverFailedCommands} of `calls` (ordered by message) with runs counted in messages before
 * `to`: the reading of the calls the last span had there (the same objects, see `agentCalls`) is
 * kept and continued; the calls after `to` (the messages after the span, which may be the span's
 * own next time) and the calls of the span at its end still without a result (theirs may come next
 * time, as a new object) are read apart each time.
 */
function neverFailedFromStart(calls: readonly AgentCall[], to: number): string[] {
  let k = keptRuns;
  if (k && k.calls.length <= calls.length && (k.calls.at(-1)?.index ?? -1) < to) {
    for (let i = 0; i < k.calls.length; i++)
      if (k.calls[i] !== calls[i]) {
        k = undefined;
        break;
      }
  } else k = undefined;
  k ??= { calls: [], ran: new Set(), failed: new Set() };
  let settled = k.calls.length;
  while (settled < calls.length && calls[settled].index < to) settled++;
  while (settled > k.calls.length && calls[settled - 1].result === undefined) settled--;
  readRuns(calls, k.calls.length, settled, 0, Infinity, k.ran, k.failed);
  for (let i = k.calls.length; i < settled; i++) k.calls.push(calls[i]);
  keptRuns = messageMemosKept() ? k : undefined;
  const ran = new Set<string>();
  const failed = new Set<string>();
  readRuns(calls, settled, calls.length, 0, to, ran, failed);
  // In the order of a reading of all the calls at once: the kept runs first, then the new ones.
  const out: string[] = [];
  for (const key of k.ran) if (!k.failed.has(key) && !failed.has(key) && key.length >= 4) out.push(key);
  for (const key of ran)
    if (!k.ran.has(key) && !k.failed.has(key) && !failed.has(key) && key.length >= 4) out.push(key);
  return out;
}

/** The calls {@link neverFailedFromStart} read last (those with a result) and the commands they ran and failed. */
let keptRuns: { calls: AgentCall[]; ran: Set<string>; failed: Set<string> } | undefined;
