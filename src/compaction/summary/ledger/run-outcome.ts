/**
 * Whether a tool call failed, was denied, or answered "no": for commands by the rule the retention
 * scorecard reads too (`retention/outcome.ts`, where the rule and the probes it knows are listed),
 * so the summary and its scorecard agree; for file tools from the recorded flag, else from the
 * result's wording, and never from the content of a file that was read (a file holding `error TEXT`
 * or a logged `ERROR:` line is not a failure; a read failed only when it could not read).
 *
 * Pure: no I/O.
 */
import {
  collapsedVerdict,
  commandSegments,
  commandVerdict,
  COULD_NOT_READ,
  editFailed,
  isDenial,
  program,
} from '../../retention/outcome';
import { withoutAnsi } from '../../text';

export { asksQuestion, commandSegments, endsInProbe, showsContent } from '../../retention/outcome';

/**
 * The outcome of one run: `ok` false for a failure or a denial; `answer` for a probe that answered
 * "no" (then `ok` is true) or "denied by the user" (with `denied`).
 */
export interface RunOutcome {
  ok: boolean;
  /** The person refused the call: it did not run, and it is no failure to fix. */
  denied?: true;
  /** Exit status, when the recording or the output states one. */
  exit?: number;
  /** "no match" / "not found": a probe's negative answer (then `ok` is true); "denied by the user". */
  answer?: string;
}

/** Exit status stated in a tool result, when it states one. */
export function exitStatus(text: string): number | undefined {
  // Every pattern names an exit: a text without the word has none (one cheap scan for most results).
  if (!/exit/i.test(text.length > 2400 ? `${text.slice(0, 2000)}\n${text.slice(-400)}` : text)) return undefined;
  const m =
    /(?:exit(?:ed)? (?:with )?(?:code|status)|exit status|Exit code:|"exit_code":\s*|Process exited with code)\s*(-?\d+)/i.exec(
      text.slice(0, 2000),
    ) ??
    /(?:exit(?:ed)? (?:with )?(?:code|status)|exit status|Exit code:|"exit_code":)\s*(-?\d+)/i.exec(text.slice(-400));
  return m ? Number(m[1]) : undefined;
}

/**
 * The outcome of running `command`, whose output is `output` (undefined: not answered yet) and
 * whose recorded success flag is `recorded` (undefined: the recording has none), by the rule the
 * retention scorecard reads too (`retention/outcome.ts`, `commandVerdict`): a denial is its own
 * outcome, a probe's exit 1 is an answer, a stated exit status decides (0 fails only when the output
 * reports a failure), then the recorded flag, then the output's wording. A flag recorded beside an
 * exit status stated in the output (Cline words one as the other) is read as that status.
 */
export function commandOutcome(command: string, output: string | undefined, recorded?: boolean): RunOutcome {
  if (output === undefined) return { ok: recorded ?? true };
  const exit = exitStatus(output);
  const v = commandVerdict(command, printedText(output), exit, exit === undefined ? recorded : undefined);
  if (v.denied) return { ok: false, denied: true, answer: 'denied by the user' };
  // A status the command printed for its run (`echo "exit=$?"`) is the run's, not the echo's.
  // A masked status (0, the echo's or the launcher's) that the output proved wrong says nothing.
  const status = v.printedExit ?? (v.failed && exit === 0 ? undefined : exit);
  return {
    ok: !v.failed,
    ...(status !== undefined ? { exit: status } : {}),
    ...(v.answer ? { answer: v.answer } : {}),
  };
}

/**
 * The outcome of a file tool call (read, write, edit) whose result is `output`: denied when the
 * result says the person refused it (`retention/outcome.ts`, `isDenial`); else the recorded flag
 * when there is one; a read failed only when its result's first lines say that the file could not
 * be read (its content is the file, whatever words it holds); a write or an edit when its short
 * result reads as a failure.
 */
export function fileOutcome(read: boolean, output: string | undefined, recorded?: boolean): RunOutcome {
  const stated = output === undefined ? undefined : collapsedVerdict(output);
  if (stated?.denied || (output !== undefined && isDenial(output)))
    return { ok: false, denied: true, answer: 'denied by the user' };
  if (stated) return { ok: !stated.failed };
  if (recorded !== undefined) return { ok: recorded };
  if (output === undefined) return { ok: true };
  if (read) {
    const head = output.split('\n').slice(0, 2).join('\n');
    return { ok: !(COULD_NOT_READ.test(head) && output.length < 2000) };
  }
  // An edit tool echoes a snippet of the edited file after its report: judged on the report (the scorecard's rule).
  return { ok: !editFailed(output) };
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
 * call's output as the JSON text `{"output": "…", "metadata": {"exit_code": n}}`; terminal escape
 * sequences are removed. Other text is returned as it is.
 */
export function printedText(raw: string): string {
  const result = withoutAnsi(raw);
  if (!result.startsWith('{"output":')) return result;
  try {
    const v = JSON.parse(result) as { output?: unknown };
    return typeof v.output === 'string' ? withoutAnsi(v.output) : result;
  } catch {
    return result;
  }
}
