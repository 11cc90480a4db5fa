/**
 * Stack traces in tool output, read for the one line that says what failed. A Python traceback
 * opens with `Traceback (most recent call last):` and ends with the exception (`KeyError: 'a'`);
 * Node and Java print the error first (`TypeError: x is not a function`, `Exception in thread "main"
 * java.lang.IllegalStateException: …`) and then `at …` frames. The head of a traceback and a frame
 * say where, never what: a summary that quotes one tells the reader nothing of the failure.
 *
 * Read by the error lines a summary quotes (`text.ts` errorLines) and by the scorecard's failure line
 * (`retention/outcome.ts` failureLine), so both name a failure by the same line. Pure: no I/O.
 */

/** The head of a Python traceback. */
const TRACEBACK_HEAD = /^\s*Traceback \(most recent call last\):?\s*$/;
/** The lines that join chained Python tracebacks: the exception that matters ends the last one. */
const CHAINED = /^(?:During handling of the above exception|The above exception was the direct cause)/;
/**
 * A frame of a stack trace: a Node or Java `at …` frame (with a `file:line` location, `(native)`,
 * `<anonymous>`, `(Native Method)`, `(Unknown Source)`), a Python `File "…", line N` frame, or a
 * Java `... 12 more` line.
 */
const FRAME =
  /^\s*(?:at\s+\S.*(?::\d+(?::\d+)?\)?|\((?:native|<anonymous>|Native Method|Unknown Source)\))\s*$|File ".*", line \d+|\.\.\. \d+ more\s*$)/;
/** Lines searched around a frame or a traceback head, at most. */
const REACH = 200;

/** Whether `line` is a frame of a stack trace (see {@link FRAME}): it says where code ran, not what failed. */
export function isStackFrame(line: string): boolean {
  return FRAME.test(line);
}

/** Whether `line` opens a Python traceback (`Traceback (most recent call last):`). */
export function isTracebackHead(line: string): boolean {
  return TRACEBACK_HEAD.test(line);
}

/**
 * The exception line that ends the Python traceback whose head is `lines[at]`: the first line after
 * it that is not indented (frames and source lines are) and not blank, taken from the last traceback
 * of a chain ("During handling of the above exception…"); trimmed. Undefined when the output ends
 * before one (a cut traceback).
 */
export function exceptionAfter(lines: readonly string[], at: number): string | undefined {
  let found: string | undefined;
  const end = Math.min(lines.length, at + 1 + REACH);
  for (let j = at + 1; j < end; j++) {
    const line = lines[j];
    if (!line.trim() || /^\s/.test(line) || isStackFrame(line)) continue;
    if (CHAINED.test(line) || TRACEBACK_HEAD.test(line)) {
      found = undefined;
      continue;
    }
    found = line.trim();
    // A chain goes on after a blank line with one of its joining lines: the next traceback's end counts.
    let k = j + 1;
    while (k < end && !lines[k].trim()) k++;
    if (k < end && CHAINED.test(lines[k])) {
      j = k;
      continue;
    }
    return found;
  }
  return found;
}

/**
 * The line a frame `lines[at]` belongs to: the nearest line before it that is neither blank nor a
 * frame (Node's and Java's error line, or `Caused by: …`), trimmed; undefined when the frames start
 * the output.
 */
export function statementBefore(lines: readonly string[], at: number): string | undefined {
  for (let j = at - 1; j >= Math.max(0, at - REACH); j--) {
    const line = lines[j];
    if (!line.trim() || isStackFrame(line)) continue;
    return line.trim();
  }
  return undefined;
}

/**
 * The line that says what failed, for a line picked from `lines` (index `at`) as a failure line:
 * the exception ending a traceback for its head, the error line before them for a frame, the line
 * itself otherwise; undefined when a head or frame has none in reach (the reader then takes the
 * next candidate).
 */
export function whatFailed(lines: readonly string[], at: number): string | undefined {
  const line = lines[at];
  if (TRACEBACK_HEAD.test(line)) return exceptionAfter(lines, at);
  if (isStackFrame(line)) return statementBefore(lines, at);
  return line.trim();
}

/** A line naming an error or exception class (`java.lang.NullPointerException`, `TypeError`). */
const EXCEPTION_MENTION = /\b[A-Z]\w*(?:Error|Exception)\b/;

/**
 * The first line of `text` that names an error or exception class and is no stack frame (12 to 400
 * characters, trimmed): what failed, for output whose error line has no `Error:`-style colon (a bare
 * `java.lang.NullPointerException`); undefined when none.
 */
export function exceptionLine(text: string): string | undefined {
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (t.length >= 12 && t.length <= 400 && EXCEPTION_MENTION.test(t) && !isStackFrame(line)) return t;
  }
  return undefined;
}
