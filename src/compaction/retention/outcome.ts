/**
 * How a run of a command or a tool turned out, by one rule read by both the summary's ledger
 * (`summary/ledger/run-outcome.ts`) and the retention scorecard (`calls.ts`, `errors.ts`), so that
 * what the summary calls failed, denied or fine is what the scorecard counts:
 *
 * 1. **Denied.** A result that says the person refused the call (Cline "The user denied this
 *    operation.", Claude Code "The user doesn't want to proceed with this tool use", Codex "exec
 *    command rejected by user", OpenHands "Action has been rejected by the user") is its own outcome:
 *    the call did not run, so it neither failed nor succeeded ({@link isDenial}).
 * 2. **A probe's "no".** For the programs in {@link PROBE_PROGRAM} exit status 1 answers "no": grep,
 *    egrep, fgrep, rg, ag, ack, git grep and Windows findstr (no match); diff, cmp and git diff (the
 *    files differ); test/`[`, which, where, command -v, pgrep, ls, dir, stat, Test-Path, docker
 *    ps/images/inspect (not found). When the command's exit status is a probe's (its last pipeline
 *    stage, pagers aside: `npx tsc | findstr "error TS"`), or it chains only probes and displays,
 *    exit 1 (or 2 with a "not found" line) and no error line saying the probe could not run is an
 *    answer, not a failure ({@link probeAnswer}).
 *    2b. **A filter's status.** A run piped into filters (`npx tsc 2>&1 | findstr "error TS"`, `pytest
 *    | tail -3`) exits with the last filter's status: when the lines it let through hold a compiler's
 *    or test runner's error lines, the run failed, whatever that status ({@link filteredRun}); so did
 *    one whose lines open a failure report ({@link failureReport}) with no success after it, or a
 *    version query they answer with no version number ({@link unansweredVersion}).
 * 3. **An exit status stated.** Non-zero fails. Zero is fine unless the output reports a failure
 *    ({@link failureReport}): a script that catches its error and prints `Error: read ECONNRESET`
 *    exits 0 and still failed.
 *    3a. **A status the command printed.** A command that echoes its run's status (`…; echo
 *    "exit=$?"`, `echo EXIT:%ERRORLEVEL%`, `$LASTEXITCODE`) exits with the echo's 0: the status it
 *    printed (`exit=2`, `exit code: 1`) is the run's, and wins over the recorded one and the flag
 *    ({@link echoedStatus}). After a pipe into a filter (`… | head; echo $?`) it is the filter's.
 *    3b. **A masked status.** A command whose status cannot tell a failure (`|| true`, `; echo done`,
 *    cmd's `a & b`, `start /B`, `nohup`, a trailing `&`, a filter's: {@link masksStatus}) failed when
 *    its output opens or ends on a fatal error line (`Error starting proxy: …`, `fatal: …`, `bind:
 *    address already in use`, a traceback: {@link fatalLine}), log timestamps aside.
 *    3c. **A cleanup that found nothing.** A kill or removal whose failure the command ignores
 *    (`taskkill /F /IM node.exe || true`, `pkill vite; npm run dev`, `rm x 2>/dev/null`:
 *    {@link ignoredCleanup}) meant "if it is there": its "not found" / "no such process" lines are
 *    no failure of the command; any other error line still is.
 * 4. **A success flag of the tool's own** (Claude Code's `is_error`, OpenHands' error observations,
 *    Codex's `success`), where no exit status is stated, wins over the output's wording.
 * 5. **Nothing recorded** (SWE-agent, Aider, a bare "Command executed."): a failure line among the
 *    output's first or last 40 lines ({@link failureLine}).
 *
 * 0. **Keys sent to a hung command.** Interrupt or end-of-input keys sent to the terminal (OpenHands'
 *    `C-c`, `C-d`, `C-z` with `is_input`, a lone `^C` or control character) stop a command that hung:
 *    the terminal's "exit code 1. CTRL+C was sent." is that stop, not a failure of its own
 *    ({@link isInterruptKeys}).
 *
 * A collapsed tool result's record states the verdict this rule gave when it was collapsed
 * ({@link collapsedVerdict}); it is read back as stated.
 *
 * The output of a command that only shows content (`cat`, `type`, `sed -n`, `git log`, a search:
 * {@link showsContent}) is the content's words, never a failure report, and the content of a file
 * that was read is never one either (reads are judged by `fileOutcome`).
 *
 * Pure: no I/O.
 */
import { errorLines, looksLikeError, withoutAnsi } from '../text';
import { whatFailed } from '../stack-trace';

/** What one run came to. */
export interface RunVerdict {
  failed: boolean;
  /** The exit status the command printed for its run (rule 3a), when it printed one. */
  printedExit?: number;
  /** The person refused the call: it did not run ({@link isDenial}); `failed` is false. */
  denied?: true;
  /** A probe's negative answer ("no match", "not found", "differs"); `failed` is false. */
  answer?: 'no match' | 'no match, or an earlier part failed' | 'not found' | 'differs';
}

/** How a collapsed tool result's record opens (`rewrite/collapse.ts`). */
const COLLAPSED = '[tool result collapsed] ';
/** The outcome a collapsed record states after its tool and arguments. */
const COLLAPSED_STATE =
  / → (error|denied by the user|ok(?: \((no match(?:, or an earlier part failed)?|not found|differs)\))?), \d+ characters?, /g;

/**
 * The verdict a collapsed tool result's one-line record states (`[tool result collapsed] NAME ARGS →
 * STATE, N characters, …`: `error`, `ok`, `ok (no match)`, `denied by the user`), decided when the
 * result was collapsed by this module's rule; undefined for any other text.
 */
export function collapsedVerdict(text: string): RunVerdict | undefined {
  if (!text.startsWith(COLLAPSED)) return undefined;
  const end = text.indexOf('\n');
  const states = [...(end < 0 ? text : text.slice(0, end)).matchAll(COLLAPSED_STATE)];
  const m = states.at(-1);
  if (!m) return undefined;
  if (m[1] === 'error') return { failed: true };
  if (m[1] === 'denied by the user') return { failed: false, denied: true };
  return m[2] ? { failed: false, answer: m[2] as RunVerdict['answer'] } : { failed: false };
}

/** The person refused the call, as each agent words it (at the start of the result, after a Cline result label). */
const DENIAL =
  /^(?:The user denied this operation|The user doesn't want to (?:proceed with|take) this (?:tool use|action)|The tool use was rejected|(?:exec command|command|patch|tool call) (?:was )?rejected by (?:the )?user|Action has been rejected by the user|User (?:denied|rejected) (?:this|the) (?:operation|action|command|tool call|request))/i;

/** True when `result` (a tool result's text) says the person refused the call. */
export function isDenial(result: string): boolean {
  const body = result.trimStart().replace(/^\[[A-Za-z0-9_.:-]+(?: for '[\s\S]*?')?\] Result:\s*/, '');
  return DENIAL.test(body.slice(0, 200));
}

/** Programs that show a file or a listing: their output is content, not a report. */
export const SHOW_PROGRAM =
  /^(cat|head|tail|less|more|nl|bat|type|sed\s+-n|ls|dir|find|tree|wc|stat|file|awk|jq|xxd|od|git\s+(show|diff|log|status|blame|grep)|Get-Content|gc)\b/i;
/** Programs whose exit status 1 answers "no" (see the module comment, rule 2). */
export const PROBE_PROGRAM =
  /^(grep|egrep|fgrep|rg|ag|ack|findstr|which|where|command\s+-v|type\s+-p|test|\[|\[\[|diff|cmp|pgrep|ls|dir|stat|git\s+(diff|grep|rev-parse|show-ref|ls-files)|Test-Path|docker\s+(ps|images|inspect)|kill\s+-0)\b/i;
/** A line saying a shown file or a probed path could not be read. */
export const COULD_NOT_READ =
  /No such file or directory|cannot (open|access|find)|not found|Permission denied|Is a directory|does not exist|The system cannot find/i;

/** The program words of a command segment (`sudo`, env assignments and `npx` left out). */
export function program(segment: string): string {
  return segment
    .replace(/^(?:sudo\s+|time\s+|env\s+|[A-Z_][A-Z0-9_]*=\S*\s+)+/, '')
    .replace(/^\(+\s*/, '')
    .trim();
}

/**
 * `command` with each quoted string's inside blanked (`findstr /i "a\\|b"` → `findstr /i "…"`): the
 * separators and pipes a pattern holds are not the shell's.
 */
function unquoted(command: string): string {
  return command.replace(/"(?:[^"\\\n]|\\.)*"|'[^'\n]*'/g, '"…"');
}

/** A command's segments (`a && b | c; d`, outside quotes), each trimmed, `cd X` prefixes dropped. */
export function commandSegments(command: string): string[] {
  return unquoted(command)
    .split(/&&|\|\||;|\n/)
    .map((s) => s.trim())
    .filter((s) => s && !/^(cd|pushd|set|export)\b/i.test(s));
}

/** True when every segment of `command` only shows content (a file, a listing, a search). */
export function showsContent(command: string): boolean {
  const parts = unquoted(command)
    .split(/\|\||&&|;|\n|\|/)
    .map((s) => program(s.trim()))
    .filter((s) => s && !/^(cd|pushd|echo|printf|set|export)\b/i.test(s));
  return parts.length > 0 && parts.every((p) => SHOW_PROGRAM.test(p) || PROBE_PROGRAM.test(p));
}

/**
 * True when the exit status of `command` is that of a probe: the last pipeline stage of its last
 * segment is a probe program (`… | grep x`, `which mvn`, `ls a b`), pagers after it aside.
 */
export function endsInProbe(command: string): boolean {
  const last = commandSegments(command).at(-1);
  if (!last) return false;
  const stages = last.split('|').map((s) => program(s));
  // `ls x 2>&1 | head` exits with head's status: the probe is the stage before a pager.
  const meaningful = stages.filter((s) => !/^(head|tail|sort|uniq|wc|cut|tr|cat|more|less)\b/.test(s));
  return PROBE_PROGRAM.test(stages.at(-1) ?? '') || (meaningful.length > 0 && PROBE_PROGRAM.test(meaningful.at(-1)!));
}

/**
 * True when a non-zero exit of `command` can be a probe's "no": its exit status is a probe's
 * ({@link endsInProbe}), or it is a chain whose other segments only show content or probe
 * (`which mvn && mvn -version`, `ls a; ls b; which java`): a failed probe stops or ends it.
 */
export function asksQuestion(command: string): boolean {
  if (endsInProbe(command) || showsContent(command)) return true;
  const segments = unquoted(command)
    .split(/&&|\|\||;|\n/)
    .map((s) => program(s.trim()))
    .filter(Boolean);
  return (
    segments.some((s) => PROBE_PROGRAM.test(s)) &&
    segments.every(
      (s) =>
        PROBE_PROGRAM.test(s) ||
        SHOW_PROGRAM.test(s) ||
        /^\S+\s+(?:-{1,2}version|-v)\b/.test(s) ||
        /^(cd|echo|printf|pushd|popd)\b/i.test(s),
    )
  );
}

/** The error lines of an output that are more than a bare exit status. */
function tellingErrors(output: string): string[] {
  return errorLines(output, 5).filter((l) => !EXIT_STATUS_LINE.test(l.trim()));
}

/**
 * A line that only states a run's exit status, as a harness adds it after the output: "Exit code 1",
 * "Command failed with exit code 1", "exited with code 1", OpenHands' "[The command completed with
 * exit code 1.]", "Process exited with code 1". It tells no error of its own: the status decides.
 */
const EXIT_STATUS_LINE =
  /^\[?(?:the command (?:completed|finished|failed|exited) with exit code|(?:command|process) (?:failed|exited|finished|completed) with (?:exit )?code|Exit code|exit(?:ed)? (?:with )?(?:code|status))\s*:?\s*-?\d+\.?\]?$/i;

/**
 * A probe's negative answer (rule 2 of the module comment): "no match", "not found" or "differs" when
 * `command` asks a question and its run (exit status `exit`, the tool's flag `recorded`, printed
 * `output`) answered "no"; undefined otherwise.
 */
export function probeAnswer(
  command: string,
  output: string,
  exit: number | undefined,
  recorded: boolean | undefined,
): RunVerdict['answer'] {
  if (!(exit === undefined || exit === 1 || exit === 2) || recorded === true || !asksQuestion(command))
    return undefined;
  const head = output.length > 4000 ? output.slice(0, 4000) : output;
  const notFound = COULD_NOT_READ.test(head);
  // A probe that could not run at all (a bad pattern, a bad option) says so in an error line.
  const telling = tellingErrors(head).filter((l) => !COULD_NOT_READ.test(l));
  if (telling.length > 0 || (exit === 2 && !notFound)) return undefined;
  if (exit === undefined && recorded !== false && !notFound) return undefined;
  if (notFound) return 'not found';
  const segments = commandSegments(command);
  const last = program(segments.at(-1) ?? '');
  if (/^(?:diff|cmp|git\s+diff)\b/.test(last)) return 'differs';
  // Only `&&` passes an earlier step's failure on as the chain's status (after `;` the last step's decides).
  const chained = unquoted(command).includes('&&');
  return !chained || ranBefore(segments.slice(0, -1), head) ? 'no match' : 'no match, or an earlier part failed';
}

/**
 * Whether the output shows that the segments before a chain's last one ran: true when each only
 * shows content, probes or echoes, or is a version query whose version the output's first line
 * prints. Another step (`pnpm install && grep x log`) that exits 1 stops the chain with the same
 * status as a search that found nothing: the exit status alone cannot tell which one it was.
 */
function ranBefore(before: readonly string[], output: string): boolean {
  // The first printed line, past a status line the recording adds (Claude Code's "Exit code 1").
  const first =
    output
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l && !/^(?:Exit code|exit(?:ed)? (?:with )?(?:code|status))\b/i.test(l)) ?? '';
  return before.every((segment) => {
    const p = program(segment);
    if (/^(cd|pushd|popd|echo|printf)\b/i.test(p) || SHOW_PROGRAM.test(p) || PROBE_PROGRAM.test(p)) return true;
    return /^\S+\s+(?:-{1,2}version|-v)\b/.test(p) && /^v?\d+\.\d+/.test(first.trim());
  });
}

/** Programs that pass on or pick out lines of what the stage before them printed (their status is their own). */
const FILTER_PROGRAM =
  /^(grep|egrep|fgrep|rg|ag|ack|findstr|Select-String|sls|head|tail|sort|uniq|cut|tr|sed|awk|wc|tee|more|less|cat|Out-String|Select-Object)\b/i;

/** Programs whose output is a log of other runs: the errors it holds are not this run's. */
const LOG_PROGRAM =
  /^(journalctl|docker(?:-compose|\s+compose)?\s+logs|kubectl\s+logs|heroku\s+logs|pm2\s+logs|git)\b/i;

/** True when a segment of `command` runs a program whose output is a log of other runs ({@link LOG_PROGRAM}). */
function printsLog(command: string): boolean {
  // `git` itself runs work (`git push` ending on `fatal: …` failed); its logs are shown content.
  return commandSegments(command).some((s) => {
    const p = program(s.split('|')[0]);
    return LOG_PROGRAM.test(p) && !/^git\b/.test(p);
  });
}

/**
 * True when the exit status of `command` is a filter's, not its run's: the last segment pipes a
 * program that runs something (`npx tsc --noEmit`, `npm test`, `pytest`; no program that shows
 * content, probes or prints a log) into filters alone (`| findstr /c:"error TS"`, `| grep error`,
 * `| tail -5`). Such a run exits 0 when the filter printed lines, whatever the run did.
 */
export function filteredRun(command: string): boolean {
  const last = commandSegments(command).at(-1);
  if (!last?.includes('|')) return false;
  const stages = last.split('|').map((s) => program(s.trim()));
  const [first, ...rest] = stages;
  if (!first || rest.length === 0 || SHOW_PROGRAM.test(first) || PROBE_PROGRAM.test(first) || LOG_PROGRAM.test(first))
    return false;
  if (/^(?:echo|printf|cat|type|Get-Content|gc)\b/i.test(first)) return false;
  return rest.every((s) => FILTER_PROGRAM.test(s));
}

/** A query of a program's version alone: `pnpm --version`, `node -v`, `java -version`, `go version`. */
const VERSION_QUERY = /^\S+\s+(?:--?version|-[vV]|version)$/;
/** A version number as programs print it: `10.4.1`, `v22.16.0`, `17.0.2+8`, `1.22`. */
const VERSION_NUMBER = /\d+\.\d+/;

/**
 * True when `command` pipes a version query ({@link VERSION_QUERY}, redirections aside) into filters
 * and `output` (what they let through, not empty) holds no version number ({@link VERSION_NUMBER}):
 * the program printed why it could not answer (corepack's "This project is configured to use yarn
 * …", a shim's "No version is set"), and the filter's exit status hid it.
 */
export function unansweredVersion(command: string, output: string): boolean {
  if (!filteredRun(command) || !output.trim()) return false;
  const last = commandSegments(command).at(-1) ?? '';
  const query = program(last.split('|')[0])
    .replace(/\s*\d?>&?\s*\S+/g, '')
    .trim();
  return VERSION_QUERY.test(query) && !VERSION_NUMBER.test(output);
}

/**
 * A line a compiler, type checker or test runner prints for an error or a failed test: TypeScript's
 * `error TS2559`, Rust's `error[E0308]`, `file:line:col: error`, a test runner's `FAIL`/`FAILED` or
 * `N failed`, pytest's `=== FAILURES ===`, a Python traceback, `npm ERR!`, tsc's `Found N errors`.
 */
const TOOL_ERROR_LINE =
  /\berror TS\d+\b|\berror\[E\d{4}\]|^\S+?:\d+(?::\d+)?:\s*(?:fatal\s+)?error\b|^(?:FAIL|FAILED)\b|^=+ (?:FAILURES|ERRORS) =+|Traceback \(most recent call last\)|\b[1-9]\d* (?:failed|failing)\b|npm ERR!|\bFound [1-9]\d* errors?\b|^error(?:\[\w+\])?:\s/;

/**
 * The first line of `output` among its first and last 60 lines that a compiler or test runner
 * prints for an error ({@link TOOL_ERROR_LINE}), trimmed and cut to 160 characters; '' when none.
 */
export function toolErrorLine(output: string): string {
  const lines = output.split('\n');
  const seen = lines.length > 120 ? [...lines.slice(0, 60), ...lines.slice(-60)] : lines;
  for (const line of seen) {
    const l = line.trim();
    if (l.length <= 600 && TOOL_ERROR_LINE.test(l)) return l.replace(/\s+/g, ' ').slice(0, 160);
  }
  return '';
}

/**
 * A line that reports a failure: an error or exception class with a colon (`TypeError: x`), a
 * traceback head, `error:`/`fatal:` prefixes, `error TS2322`, a test runner's FAIL/FAILED, npm's
 * `npm ERR!`, a Rust panic, a shell's "command not found" / "No such file or directory", a `Cannot
 * find module`, "N failed" (N ≥ 1). A column named `error` or a class merely imported is not one.
 */
export const FAILURE_LINE =
  /\b[A-Z]\w*(?:Error|Exception)\b:|^E\s+\w*(?:Error|Exception)\b|Traceback \(most recent call last\)|(?:^|\s)(?:error|ERROR|Error|fatal|FATAL)(?:\[[\w-]+\])?:|\berror TS\d+|(?:^|\s)(?:FAIL|FAILED)\b|npm ERR!|panicked at|command not found|No such file or directory|Cannot find module|\b[1-9]\d* (?:failed|failing)\b/;

/**
 * The first failure line ({@link FAILURE_LINE}) of `text`, trimmed and cut to 160 characters; '' when
 * none. A stack trace is named by the line that says what failed (`stack-trace.ts`): a traceback's
 * head by the exception ending it, a frame by the error line before the frames.
 */
export function failureLine(text: string): string {
  const lines = text.split('\n');
  // A traceback cut before its exception is named by its head when no other line says more.
  let bare = '';
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i].trim();
    if (l.length < 6 || l.length > 600 || !FAILURE_LINE.test(l)) continue;
    const said = whatFailed(lines, i);
    if (said) return said.replace(/\s+/g, ' ').slice(0, 160);
    bare ||= l.replace(/\s+/g, ' ').slice(0, 160);
  }
  return bare;
}

/**
 * A line that opens a failure report: it begins with an error or exception (`Error: read
 * ECONNRESET`, `TypeError: …`, `java.io.IOException: …`, `Uncaught Error: …`), `error:`, `ERROR:`,
 * `fatal:`, a traceback head, `panic:`, `npm ERR!`, `Exception in thread`.
 */
const REPORT_LINE =
  /^(?:Uncaught\s+)?(?:[A-Za-z_$][\w$]*\.)*[A-Za-z_$]*(?:Error|Exception)(?:\s*\[[\w-]+\])?:\s|^(?:error|ERROR|fatal|FATAL)(?:\[[\w-]+\])?:\s|^Traceback \(most recent call last\):|^panic:\s|^thread '[^']*' panicked at|^npm (?:ERR!|error)\s|^Exception in thread\b/;
/** A line that reports a run's success (a verdict after an error logged on the way). */
const SUCCESS_LINE = /\b(?:[1-9]\d* passed|passed|succeeded|successfully|Success|Done|Compiled)\b|✓|✔/;

/**
 * The line of `output` that reports the run failed although its exit status was 0 (rule 3): a
 * line beginning a failure report ({@link REPORT_LINE}) with no success verdict after it, among the
 * output's first and last 60 lines; '' when none.
 */
export function failureReport(output: string): string {
  const lines = output.split('\n');
  const seen = lines.length > 120 ? [...lines.slice(0, 60), ...lines.slice(-60)] : lines;
  let found = '';
  for (const line of seen) {
    const l = line.trim();
    if (!l) continue;
    if (REPORT_LINE.test(l)) found = found || l.replace(/\s+/g, ' ').slice(0, 160);
    else if (found && SUCCESS_LINE.test(l)) found = '';
  }
  return found;
}

/**
 * The verdict on running `command` (rules in the module comment): `output` its printed text
 * (undefined: not answered yet), `exit` the exit status the recording states (undefined: none; then
 * one stated on the output's last lines counts),
 * `flag` the tool's own success flag (undefined: none; a flag derived from a stated exit status is
 * not one).
 */
export function commandVerdict(
  command: string,
  output: string | undefined,
  exit: number | undefined,
  flag: boolean | undefined,
): RunVerdict {
  if (isInterruptKeys(command)) return { failed: false };
  if (output === undefined) return { failed: flag === false };
  const stated = collapsedVerdict(output);
  if (stated) return stated;
  if (isDenial(output)) return { failed: false, denied: true };
  exit ??= tailExit(output);
  output = printedOutput(output);
  // A status the command printed for its run is the run's (rule 3a); the echo is no part of the run.
  const echoed = echoedStatus(command, output);
  if (echoed) {
    command = echoed.run;
    if (echoed.status !== undefined) {
      const v = commandVerdict(command, output, echoed.status, undefined);
      return { ...v, printedExit: echoed.status };
    }
  }
  // A cleanup whose failure the command ignores says only that there was nothing to clean (rule 3c).
  if (output && ignoredCleanup(command)) output = withoutNothingToClean(output);
  // A filter's status is not the run's: what the run printed decides (rule 2b).
  if (filteredRun(command) && toolErrorLine(output) !== '') return { failed: true };
  const answer = exit !== 0 ? probeAnswer(command, output, exit, flag) : undefined;
  if (answer) return { failed: false, answer };
  // A status that cannot tell a failure: a fatal error the output opens or ends on does (rule 3b).
  // Content shown or a log printed is never the run's own error (a grep's hits, a log `cat`-ed).
  const shown = command.replace(/\s*\|\|\s*(?:true|:|exit\s+0)\s*$/, '');
  if ((exit === 0 || flag === true) && masksStatus(command) && !showsContent(shown) && !printsLog(command))
    if (fatalLine(output) !== '') return { failed: true };
  // A filter's status is not the run's: a failure report or a version query answered without a
  // version is what the run printed, and it failed (rule 2b).
  if ((exit === undefined || exit === 0) && filteredRun(command))
    if (failureReport(output) !== '' || unansweredVersion(command, output)) return { failed: true };
  if (exit !== undefined)
    return { failed: exit !== 0 || (!showsContent(command) && !printsLog(command) && failureReport(output) !== '') };
  if (flag !== undefined) return { failed: !flag };
  if (showsContent(command)) return { failed: false };
  return { failed: outputFailure(output) !== '' };
}

/**
 * Programs that stop or remove something that may not be there: `kill`, `pkill`, `killall`,
 * `taskkill`, `Stop-Process`, `fuser -k`, `rm -f`, `rmdir`, `del`, `Remove-Item`, `docker rm`/`stop`/
 * `kill`/`rmi`, `docker compose down`, `pm2 delete`/`stop`, `npm uninstall`/`pip uninstall -y`.
 */
const CLEANUP_PROGRAM =
  /^(?:kill|pkill|killall|taskkill|tskill|Stop-Process|spps|fuser\s+-k|rm|rmdir|rd|del|erase|Remove-Item|ri|docker\s+(?:rm|rmi|stop|kill|network\s+rm|volume\s+rm)|docker(?:-compose|\s+compose)\s+(?:down|rm|stop)|pm2\s+(?:delete|stop|kill)|(?:npm|pnpm|yarn)\s+(?:uninstall|remove|rm)|pip3?\s+uninstall)\b/i;

/**
 * True when `command` runs a cleanup ({@link CLEANUP_PROGRAM}) whose failure it does not pass on:
 * one followed by `|| …`, by `;`, cmd's `&` or a line break (the next step's status is the
 * command's), or with its errors silenced (`2>/dev/null`, `-ErrorAction SilentlyContinue`): the
 * person meant "stop it if it runs", "remove it if it is there".
 */
export function ignoredCleanup(command: string): boolean {
  const bare = unquoted(command);
  if (
    !/\b(?:kill|pkill|killall|taskkill|tskill|Stop-Process|spps|fuser|rm|rmdir|rd|del|erase|Remove-Item|ri|docker|pm2|uninstall|remove)\b/i.test(
      bare,
    )
  )
    return false;
  // Each step with the separator after it ('' at the end).
  const steps = [...bare.matchAll(/([^;&|\n]+?)\s*(\|\||&&|;|\n|\||(?<![>&\d])&(?![&>])|$)/g)];
  return steps.some((m, k) => {
    const step = program(m[1].trim());
    if (!CLEANUP_PROGRAM.test(step)) return false;
    const after = m[2];
    if (after === '||' || after === ';' || after === '\n' || after === '&') return true;
    if (/\d?>\s*(?:nul|\$null|\/dev\/null)\b|-ErrorAction\s+(?:SilentlyContinue|Ignore)/i.test(m[1])) return true;
    // The last step of a chain whose status is masked otherwise (`a || true` is read above).
    return after === '' && k > 0 && steps[k - 1][2] === '||';
  });
}

/**
 * A line saying a cleanup found nothing to act on: taskkill's `ERROR: The process "node.exe" not
 * found.`, kill's `No such process`, killall's `no process found`, rm's `No such file or directory`,
 * del's `Could Not Find …`, PowerShell's `Cannot find a process …` / `Cannot find path … because it
 * does not exist`, docker's `No such container`, pm2's `Process or Namespace x not found`.
 */
const NOTHING_TO_CLEAN = new RegExp(
  [
    /^ERROR: The process .{1,200} (?:not found|could not be found)\.?$/,
    /^(?:\S*sh: (?:line \d+: )?)?kill: .{0,80}(?:No such process|no such job)$/,
    /^\S+: no process found$/,
    /^(?:rm|rmdir|unlink): cannot remove .{1,300}: No such file or directory$/,
    /^Could Not Find .{1,300}$/,
    /^(?:(?:Stop-Process|Remove-Item|spps|ri)\s*:\s*)?Cannot find (?:a process with the (?:name|process identifier)\b|path\b.{1,300}\bbecause it does not exist).{0,200}$/,
    /^(?:Error(?: response from daemon)?: )?No such (?:container|image|network|volume|object)\b.{0,200}$/,
    /^\[PM2\]\[(?:ERROR|WARN)\] Process or Namespace \S+ not found$/,
  ]
    .map((r) => `(?:${r.source})`)
    .join('|'),
  'i',
);

/**
 * `output` without the lines saying a cleanup found nothing to act on ({@link NOTHING_TO_CLEAN}),
 * nor the lines PowerShell writes under such an error (`At line:1 char:1`, `+ …`).
 */
function withoutNothingToClean(output: string): string {
  const lines = output.split('\n');
  const kept: string[] = [];
  let underError = false;
  for (const line of lines) {
    const t = line.trim();
    if (NOTHING_TO_CLEAN.test(t)) {
      underError = true;
      continue;
    }
    if (
      underError &&
      (/^(?:At line:\d+|At .+:\d+ char:\d+|\+ |CategoryInfo|FullyQualifiedErrorId)/.test(t) || t === '+')
    )
      continue;
    underError = false;
    kept.push(line);
  }
  return kept.length === lines.length ? output : kept.join('\n');
}

/**
 * An echo of the status of the run before it: `echo "exit=$?"`, `printf 'rc=%s' $?`, `echo
 * EXIT:%ERRORLEVEL%`, `Write-Host $LASTEXITCODE`, after `;`, `&`, `&&`, `||` or a line break.
 */
const STATUS_ECHO =
  /^([\s\S]*\S)\s*(?:;|&&?|\|\||\n)\s*(?:echo|printf|Write-Host|Write-Output)\b[^;&|\n]*(?:\$\?|\$\{\?\}|%ERRORLEVEL%|!ERRORLEVEL!|\$LASTEXITCODE)[^;&|\n]*$/i;

/** A line that prints an exit status alone: `exit=2`, `exit code: 1`, `EXIT:1`, `Exit status 2`, `rc=1`, `[exit 1]`. */
const PRINTED_STATUS =
  /^[\s[(]*(?:exit(?:[ _-]?(?:code|status))?|rc|return[ _-]?code|errorlevel|status)\s*[:=]?\s*(-?\d{1,3})\s*[\])]*\s*$/i;

/**
 * When `command` ends by echoing the status of the run before it ({@link STATUS_ECHO}): that run
 * (`run`, the command without the echo) and the status `output` printed for it (the last line
 * {@link PRINTED_STATUS} reads; undefined when none, or when the run pipes into a filter, whose
 * status that is). Undefined for any other command.
 */
export function echoedStatus(command: string, output: string): { run: string; status?: number } | undefined {
  // Most commands name no status variable: one cheap scan before the pattern's search.
  if (!/\$\?|\$\{\?\}|ERRORLEVEL|\$LASTEXITCODE/i.test(command)) return undefined;
  const m = STATUS_ECHO.exec(command.trim());
  if (!m) return undefined;
  const run = m[1].trim();
  if (filteredRun(run)) return { run };
  const lines = output.split('\n');
  for (let i = lines.length - 1; i >= Math.max(0, lines.length - 40); i--) {
    const s = PRINTED_STATUS.exec(lines[i].trim());
    if (s) return { run, status: Number(s[1]) };
  }
  return { run };
}

/**
 * True when the exit status of `command` cannot tell that its run failed (rule 3b): a failure
 * ignored (`|| true`, `|| :`, `|| exit 0`, `|| echo …`, `; true`), a last step that only prints
 * after `;` or cmd's `&` (`; echo done`), a run started in the background or in another window
 * (`start /B x`, `start "title" x`, `Start-Process`, `nohup x`, `setsid x`, `x &`), cmd's `a & b`
 * (`a`'s status is lost), or a run piped into filters ({@link filteredRun}).
 */
export function masksStatus(command: string): boolean {
  const bare = unquoted(command).trim();
  if (/\|\|\s*(?:true|:|exit\s+0|echo\b|cd\b)|;\s*(?:true|exit\s+0)\s*$/i.test(bare)) return true;
  if (/(?:^|[^&])&\s*$|(?:^|[^&>])&(?!&|>)\s*\S/.test(bare.replace(/\d?>&\d?/g, ''))) return true;
  if (/(?:;|\n)\s*(?:echo|printf|Write-Host|Write-Output)\b[^;&|\n]*$/i.test(bare)) return true;
  const programs = bare.split(/&&|\|\||;|\n|&/).map((s) => program(s.trim()));
  if (programs.some((p) => /^(?:start|Start-Process|nohup|setsid|disown)\b/i.test(p))) return true;
  return filteredRun(command);
}

/**
 * A line that says a run stopped on a fatal error, past a log's timestamp and level: one opening a
 * failure report ({@link REPORT_LINE}), `Error <doing> …:` (`Error starting proxy: …`), a port
 * already bound (`bind: address already in use`, `EADDRINUSE`, Windows' "Only one usage of each
 * socket address"), a shell's "command not found" or cmd's "is not recognized as an internal or
 * external command".
 */
const FATAL_LINE =
  /^(?:Error|ERROR|Fatal|FATAL) [a-z]+ing\b[^:]{0,80}:|\bbind: (?:address already in use|Only one usage of each socket address)|\bEADDRINUSE\b|: command not found$|is not recognized as an internal or external command/;

/** A log line's timestamp and level before its message (`2026/04/28 16:37:32 `, `[12:00:01] `, `time=… level=error msg=`). */
const LOG_PREFIX =
  /^(?:\[?\d{4}[-/]\d\d[-/]\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?\s+|\[\d\d:\d\d:\d\d(?:[.,]\d+)?\]\s+)(?:\[?(?:ERROR|FATAL|CRITICAL)\]?\s+)?/;

/** Lines of an output read for a fatal error at each end ({@link fatalLine}). */
const FATAL_END_LINES = 4;

/**
 * The first fatal error line ({@link FATAL_LINE}, or one opening a failure report) among the first
 * and last {@link FATAL_END_LINES} non-blank lines of `output` (printed status lines aside), with no
 * success verdict after it; trimmed and cut to 160 characters; '' when none. Only the ends are
 * read: a run that logged an error on the way and went on does not end on it.
 */
export function fatalLine(output: string): string {
  const lines = output
    .split('\n')
    .map((l) => l.trim().replace(LOG_PREFIX, ''))
    .filter((l) => l && !PRINTED_STATUS.test(l));
  const n = FATAL_END_LINES;
  const ends = lines.length > 2 * n ? [...lines.slice(0, n), ...lines.slice(-n)] : lines;
  let found = '';
  for (const l of ends) {
    if (l.length <= 600 && (REPORT_LINE.test(l) || FATAL_LINE.test(l))) found ||= l.replace(/\s+/g, ' ').slice(0, 160);
    else if (found && SUCCESS_LINE.test(l)) found = '';
  }
  return found;
}

/**
 * Keys sent to a running command rather than a command: one or more of tmux-style `C-c`/`C-d`/`C-z`/
 * `C-\\` (OpenHands' terminal input), caret notation (`^C`) or the control characters themselves
 * (ETX, EOT, SUB, FS), separated by spaces. Rule 0 of the module comment.
 */
export function isInterruptKeys(command: string): boolean {
  return /^(?:(?:C-[cdz\\]|\^[CDZ\\]|[\x03\x04\x1a\x1c])\s*)+$/i.test(command.trim());
}

/**
 * A terminal's note that the command never finished: it gave no new output for a while and is left
 * running (OpenHands "[The command has no new output after 30 seconds. …]"), it timed out ("[The
 * command timed out after 15.0 seconds…]", a shell's "command timed out") or was interrupted.
 */
const NEVER_FINISHED =
  /^\[?(?:The command (?:has no new output after|timed out after|was interrupted)|command timed out\b)/im;

/**
 * True when `output` (a command's result) notes that the command never finished ({@link NEVER_FINISHED}):
 * what its redirections were to write (a heredoc waiting for its end marker) is not known to be written.
 */
export function neverFinished(output: string): boolean {
  return NEVER_FINISHED.test(output);
}

/** An exit status stated on the last lines of an output (`Command exited with status 1`, `{"exit_code": 2}`). */
const TAIL_EXIT =
  /(?:exit(?:ed)? (?:with )?(?:code|status)|exit status|Exit code:?|"exit_?code":\s*|Process exited with code)\s*(-?\d+)/gi;

/** The last exit status {@link TAIL_EXIT} finds in the last 400 characters of `output`; undefined when none. */
function tailExit(output: string): number | undefined {
  const found = [...output.slice(-400).matchAll(TAIL_EXIT)].at(-1);
  return found ? Number(found[1]) : undefined;
}

/**
 * What a command printed, out of the envelope a recording wraps it in: Codex's JSON text
 * (`{"output": "…", "metadata": {…}}`), Cline's result label (`[execute_command for '…'] Result:`,
 * the command may span lines) and its status line ("Command executed successfully (exit code 0)."),
 * without terminal escape sequences.
 */
export function printedOutput(raw: string): string {
  return withoutAnsi(unwrapped(raw));
}

function unwrapped(raw: string): string {
  let text = raw;
  if (text.startsWith('{"output"')) {
    try {
      const v = JSON.parse(text) as { output?: unknown };
      if (typeof v.output === 'string') text = v.output;
    } catch {
      // not the envelope after all: read as printed
    }
  }
  if (!text.startsWith('[')) return text;
  return text
    .replace(/^\[[A-Za-z0-9_.:-]+(?: for '[\s\S]*?')?\] Result:\s*/, '')
    .replace(
      /^Command (?:executed successfully \(exit code -?\d+\)|executed|failed with exit code -?\d+)\.?\s*(?:Output:\s*)?/,
      '',
    );
}

/** The failure line of a run with no status recorded (rule 5): among its first or last 40 lines; '' when none. */
export function outputFailure(output: string): string {
  const lines = output.split('\n');
  if (lines.length <= 80) return failureLine(output);
  return failureLine(lines.slice(0, 40).join('\n')) || failureLine(lines.slice(-40).join('\n'));
}

/**
 * Whether the result of an edit or write tool (no command) reports that it changed nothing, for a
 * call whose recording states no success flag: its report (the first 600 characters, before the
 * snippet of the file some editors echo) reads as an error, or says the text to replace was not
 * found ("No replacement was performed", "did not appear verbatim", "String to replace not found",
 * apply_patch's "Failed to find expected lines"). Read by the summary's ledger (`fileOutcome`) and
 * the scorecard's files (`files.ts`) alike, so a failed edit is a change in neither.
 */
export function editFailed(output: string): boolean {
  const head = printedOutput(output.length > 600 ? output.slice(0, 600) : output);
  return looksLikeError(head) || EDIT_FAILED.test(head);
}
const EDIT_FAILED =
  /\bNo replacement was performed\b|\bdid not appear verbatim\b|\bnot found in\b|\bto replace not found\b|\bFailed to find expected lines\b|\bverification failed\b|\bdoes not match anything in the file\b/i;

/**
 * Words that take a failure as the outcome the agent meant to see: "as expected", "the expected
 * error", "exit codes work", "correctly rejects", "fails as it should". A deliberate negative check
 * (a fake address, a missing argument) fails on purpose, and the agent's next words say so.
 */
const EXPECTED_FAILURE =
  /\b(?:as (?:expected|intended|designed)|(?:the |an? )?expected (?:error|failure|exit|result|behaviou?r|output|rejection|message|refusal)|(?:exit (?:codes?|status(?:es)?)|error (?:handling|paths?|cases?|messages?)|the (?:guard|check|validation|negative (?:case|path|check|test)|failure path)) (?:works?|is working|behaves? correctly|(?:is|are) correct)|works? (?:correctly|as (?:expected|intended))|correctly (?:rejects?|refuses?|fails?|errors?|exits?|reports?|flags?|catches?|returns? (?:an? )?(?:error|non-?zero))|fails? (?:as|like) (?:it should|expected|intended)|(?:rejected|refused|failed|errored|exited) as (?:expected|intended))/i;
/** A negation in the same sentence before the words: "not the expected error", "doesn't work as expected". */
const NEGATED_BEFORE = /(?:\bnot\b|n't\b|\bnever\b|\bno longer\b|\binstead of\b)[^.!?\n]{0,40}$/i;
/** Characters of the agent's next words read: the opening sentences react to what just ran. */
const NEXT_WORDS_CHARS = 240;

/**
 * Whether the agent's words right after a failed run (`words`: the text of its next message, its
 * opening sentences read) take the failure as the outcome it meant to see ({@link EXPECTED_FAILURE},
 * not negated in the same sentence). Such a failure is no open work: the summary's ledger and the
 * scorecard both read it so (`ledger.ts`, `errors.ts`).
 */
export function expectsFailure(words: string): boolean {
  const head = words.slice(0, NEXT_WORDS_CHARS);
  const m = EXPECTED_FAILURE.exec(head);
  return m !== null && !NEGATED_BEFORE.test(head.slice(0, m.index));
}

/**
 * The check a command runs, plumbing aside: its first segment before any pipe (`node s.mjs BAD | head
 * -5; echo "exit=$?"` → `node s.mjs BAD`), whitespace collapsed. Two runs with the same head run the
 * same check, shown another way; the agent's words after the later one speak of both. A head holding a
 * quoted argument is the whole command (`python -c "…"` runs many different checks).
 */
export function checkHead(command: string): string {
  const first = (commandSegments(command)[0] ?? '').split('|')[0];
  return first.includes('"…"') ? command.replace(/\s+/g, ' ').trim() : program(first).replace(/\s+/g, ' ').trim();
}
