/**
 * The error lines of a command's output that a summary quotes as the latest failure: only from a
 * run that reads as failed. A command that shows a file or a listing (`cat`, `head`, `sed -n`, `ls`)
 * prints content: a file that names an exception class or holds a `FAILED` enum value is not a
 * failure; such a command failed only when it could not read what it was asked to show.
 *
 * Pure: no I/O.
 */
import { errorLines, isWarningLine, looksLikeError } from '../../text';
import { isStackFrame, whatFailed } from '../../stack-trace';

/** A line naming an error or exception class ("BusinessException", "TypeError"), beyond `errorLines`' patterns. */
const EXCEPTION_MENTION = /\b[A-Z]\w*(?:Error|Exception)\b/;
/** A command that shows a file or a listing, in a call's JSON arguments (`"command": "cat …"`, Codex's `["cat", …]`). */
const SHOWS =
  /"(?:command|cmd)"\s*:\s*\[?\s*"(?:cd [^"&;]+&&\s*)?(?:cat|head|tail|less|more|nl|bat|sed -n|ls|find|tree|wc)\b/;
/** A line that only states an exit status. */
const EXIT_ONLY = /^(?:Process exited with code|exit(?:ed)?(?: with)? (?:code|status)|Exit code):?\s*-?\d+\.?$/i;
/** A line saying a shown file could not be read. */
const COULD_NOT_READ =
  /No such file or directory|cannot (?:open|access)|Permission denied|command not found|Is a directory/;

/**
 * At most two failure lines of `output`, the output of a call with JSON arguments `args`, verbatim
 * (whitespace trimmed): for a display command the lines saying it could not read; for another
 * command that reads as failed (`looksLikeError`), `errorLines`' failure lines other than a bare exit
 * status (warnings only when no other line is there), else lines that name an error or exception class, else the exit status line; none for a
 * run that did not fail.
 */
export function failureLines(args: string, output: string): string[] {
  const lines = output.split('\n').map((l) => l.trim());
  if (SHOWS.test(args)) return lines.filter((l) => COULD_NOT_READ.test(l)).slice(0, 2);
  if (!looksLikeError(output)) return [];
  const found = errorLines(output, 5);
  // "exit code 1" says that it failed, not what failed: the last resort.
  const telling = found.filter((l) => !EXIT_ONLY.test(l));
  // A warning is not what failed: quoted only when no error line is there.
  const errors = telling.filter((l) => !isWarningLine(l));
  if (telling.length) return (errors.length ? errors : telling).slice(0, 2);
  // A stack frame naming an exception class (`at com.acme.OrderException.<init>(…)`) says where, not what.
  const named = output
    .split('\n')
    .filter((l) => !isStackFrame(l))
    .map((l) => l.trim())
    .filter((l) => l.length >= 12 && l.length <= 400 && EXCEPTION_MENTION.test(l));
  if (named.length) return named.slice(0, 2);
  // Only an exit status was found: the last line the program printed tells what stopped it (for a
  // stack trace, the error line its frames belong to).
  const printed = lines.filter((l) => l && !EXIT_ONLY.test(l) && l.length <= 400);
  const last = printed.length ? (whatFailed(printed, printed.length - 1) ?? printed.at(-1)) : undefined;
  return last && found.length ? [last] : found.slice(0, 2);
}
