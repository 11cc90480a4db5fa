/**
 * Whether a tool call failed, decided from what the recording says before how its output reads:
 *
 * 1. the success flag the recording carries (`tool-outcomes.ts`: Claude Code's and Cline's
 *    `is_error`, Codex's `success` or `exit_code`, OpenHands' error observations);
 * 2. the exit status the output states (`exit code 2`, `"exit_code": 1`);
 * 3. only then the output's wording (`looksLikeError`), and never for output that is content: a
 *    command or tool that shows a file or a listing (`cat`, `head`, `sed -n`, `type`, a read tool)
 *    prints the file, and a file holding `error TEXT` or a logged `ERROR:` line is not a failure;
 *    such a call failed only when it could not read what it was asked to show.
 *
 * A probe is a command that asks a yes/no question (`grep`, `rg`, `findstr`, `which`, `test`,
 * `diff`, `ls` of a path that may not exist): by POSIX convention exit status 1 answers "no" (no
 * match, not found, files differ) and is not a failure. A command that only shows files (`cat`,
 * `type`, `sed -n`) asks whether they exist when it finds none. Either outcome is `ok` with
 * `answer` set ("no match", "not found"), unless an error line says the command could not run.
 *
 * Pure: no I/O.
 */
import { errorLines, looksLikeError } from '../../text';

/** The outcome of one run: `ok` false only for a failure; `answer` for a probe that answered "no". */
export interface RunOutcome {
  ok: boolean;
  /** Exit status, when the recording or the output states one. */
  exit?: number;
  /** "no match" / "not found": a probe's negative answer (then `ok` is true). */
  answer?: string;
}

/** A command's segments (`a && b | c; d`), each trimmed, `cd X` prefixes dropped. */
export function commandSegments(command: string): string[] {
  return command
    .split(/&&|\|\||;|\n/)
    .map((s) => s.trim())
    .filter((s) => s && !/^(cd|pushd|set|export)\b/i.test(s));
}

/** Programs that show a file or a listing: their output is content, not a report. */
const SHOW_PROGRAM =
  /^(cat|head|tail|less|more|nl|bat|type|sed\s+-n|ls|dir|find|tree|wc|stat|file|awk|jq|xxd|od|git\s+(show|diff|log|status|blame|grep)|Get-Content|gc)\b/i;
/** Programs whose exit status 1 answers "no" (POSIX grep, diff, test, which; Windows findstr, where). */
const PROBE_PROGRAM =
  /^(grep|egrep|fgrep|rg|ag|ack|findstr|which|where|command\s+-v|type\s+-p|test|\[|\[\[|diff|cmp|pgrep|ls|dir|stat|git\s+(diff|grep|rev-parse|show-ref|ls-files)|Test-Path|docker\s+(ps|images|inspect)|kill\s+-0)\b/i;
/** A line saying a shown file or a probed path could not be read. */
const COULD_NOT_READ =
  /No such file or directory|cannot (open|access|find)|not found|Permission denied|Is a directory|does not exist|The system cannot find/i;

/** The program words of a command segment (`sudo`, env assignments and `npx` left out). */
function program(segment: string): string {
  return segment
    .replace(/^(?:sudo\s+|time\s+|env\s+|[A-Z_][A-Z0-9_]*=\S*\s+)+/, '')
    .replace(/^\(+\s*/, '')
    .trim();
}

/** True when every segment of `command` only shows content (a file, a listing, a search). */
export function showsContent(command: string): boolean {
  const parts = command
    .split(/\|\||&&|;|\n|\|/)
    .map((s) => program(s.trim()))
    .filter((s) => s && !/^(cd|pushd|echo|printf|set|export)\b/i.test(s));
  return parts.length > 0 && parts.every((p) => SHOW_PROGRAM.test(p) || PROBE_PROGRAM.test(p));
}

/**
 * True when the exit status of `command` is that of a probe: the last pipeline stage of its last
 * segment is a probe program (`… | grep x`, `which mvn`, `ls a b`).
 */
export function endsInProbe(command: string): boolean {
  const segments = commandSegments(command);
  const last = segments.at(-1);
  if (!last) return false;
  const stage = program(last.split('|').at(-1) ?? '');
  // `ls x 2>&1 | head` exits with head's status: the probe is the stage before a pager.
  const stages = last.split('|').map((s) => program(s));
  const meaningful = stages.filter((s) => !/^(head|tail|sort|uniq|wc|cut|tr|cat|more|less)\b/.test(s));
  return PROBE_PROGRAM.test(stage) || (meaningful.length > 0 && PROBE_PROGRAM.test(meaningful.at(-1)!));
}

/**
 * True when a non-zero exit of `command` can be a probe's "no": its exit status is a probe's
 * ({@link endsInProbe}), or it is a chain whose other segments only show content or probe
 * (`which mvn && mvn -version`, `ls a; ls b; which java`): a failed probe stops or ends it.
 */
function asksQuestion(command: string): boolean {
  if (endsInProbe(command) || showsContent(command)) return true;
  const segments = command
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

/** Exit status stated in a tool result, when it states one. */
export function exitStatus(text: string): number | undefined {
  // Every pattern names an exit: a text without the word has none (one cheap scan for most results).
  if (!/exit/i.test(text.length > 2400 ? `${text.slice(0, 2000)}\n${text.slice(-400)}` : text)) return undefined;
  const m =
    /(?:exit(?:ed)? (?:with )?code|exit status|Exit code:|"exit_code":\s*|Process exited with code)\s*(-?\d+)/i.exec(
      text.slice(0, 2000),
    ) ?? /(?:exit(?:ed)? (?:with )?code|exit status|Exit code:)\s*(-?\d+)/i.exec(text.slice(-400));
  return m ? Number(m[1]) : undefined;
}

/** The error lines of an output that are more than a bare exit status. */
function tellingErrors(output: string): string[] {
  return errorLines(output, 5).filter(
    (l) =>
      !/^(?:Command failed with exit code|Exit code|exit(?:ed)? (?:with )?(?:code|status))\s*:?\s*-?\d+\.?$/i.test(l),
  );
}

/**
 * The outcome of running `command`, whose output is `output` (undefined: not answered yet) and
 * whose recorded success flag is `recorded` (undefined: the recording has none). Rules in the
 * module comment; a probe's exit 1 with no error line but "not found" is a negative answer.
 */
export function commandOutcome(command: string, output: string | undefined, recorded?: boolean): RunOutcome {
  if (output === undefined) return { ok: recorded ?? true };
  const exit = exitStatus(output);
  output = printedText(output);
  if ((exit === undefined || exit === 1 || exit === 2) && recorded !== true && asksQuestion(command)) {
    const head = output.length > 4000 ? output.slice(0, 4000) : output;
    const notFound = COULD_NOT_READ.test(head);
    // A probe that could not run at all (a bad pattern, a bad option) says so in an error line.
    const telling = tellingErrors(head).filter((l) => !COULD_NOT_READ.test(l));
    if (telling.length === 0 && (exit !== undefined || recorded === false || notFound))
      return { ok: true, exit, answer: notFound ? 'not found' : 'no match' };
  }
  if (recorded !== undefined) return { ok: recorded, exit };
  if (exit !== undefined) return { ok: exit === 0, exit };
  // Content shown (its words are the file's, not a report): never a failure by its wording.
  if (showsContent(command)) return { ok: true };
  return { ok: !looksLikeError(output) };
}

/**
 * The outcome of a file tool call (read, write, edit) whose result is `output`: the recorded flag
 * when there is one; a read failed only when its result's first lines say that the file could not
 * be read (its content is the file, whatever words it holds); a write or an edit when its short
 * result reads as a failure.
 */
export function fileOutcome(read: boolean, output: string | undefined, recorded?: boolean): RunOutcome {
  if (recorded !== undefined) return { ok: recorded };
  if (output === undefined) return { ok: true };
  if (read) {
    const head = output.split('\n').slice(0, 2).join('\n');
    return { ok: !(COULD_NOT_READ.test(head) && output.length < 2000) };
  }
  // An edit tool echoes a snippet of the edited file after its report: judge the report, not the snippet.
  const head = output.length > 600 ? output.slice(0, 600) : output;
  return {
    ok:
      !looksLikeError(head) &&
      !/\bNo replacement was performed\b|\bdid not appear verbatim\b|\bnot found in\b/i.test(head),
  };
}

/**
 * What a command runs, for telling that a later run of it succeeded although its arguments changed:
 * the program of its last segment's first pipeline stage (`cd`, `sudo`, `npx`, env assignments left
 * out) and its first plain argument (a subcommand or a script: `terraform plan`, `python
 * /testbed/reproduce.py`, `npx tsc` → `tsc`), or its first option when that argument is quoted code
 * (`node -e`).
 */
export function commandSignature(command: string): string {
  const last = commandSegments(command).at(-1) ?? command.trim();
  const stage = program(last.split('|')[0] ?? '').replace(/^(?:npx|bunx|pnpm exec|uv run|poetry run)\s+/, '');
  const words = stage.split(/\s+/).filter(Boolean);
  if (words.length === 0) return '';
  const prog = words[0].replace(/^.*[\\/]/, '');
  const arg = words.slice(1).find((w) => !w.startsWith('-') && !w.includes('='));
  if (arg && /^[\w./:@\\-]+$/.test(arg)) return `${prog} ${arg}`;
  const flag = words.slice(1).find((w) => w.startsWith('-'));
  return flag ? `${prog} ${flag}` : prog;
}

/**
 * The text a tool printed, out of the envelope some recordings wrap it in: Codex records a shell
 * call's output as the JSON text `{"output": "…", "metadata": {"exit_code": n}}`. Other text is
 * returned as it is.
 */
export function printedText(result: string): string {
  if (!result.startsWith('{"output":')) return result;
  try {
    const v = JSON.parse(result) as { output?: unknown };
    return typeof v.output === 'string' ? v.output : result;
  } catch {
    return result;
  }
}
