/**
 * The programs a span's commands found missing (`bash: mvn: command not found`, `which: no mvn in …`,
 * `No module named pytest`) or found (a version query that printed a version, a `which` that printed
 * the program's path): what the agent can run next, which a summary's environment section keeps.
 *
 * Read from the calls by this file's own rules, narrower than the summary writer's
 * (`summary/ledger/environment.ts`), so the scorecard judges the writer rather than repeating it.
 * Pure.
 */
import { commandOf, type AgentCall } from './calls';

const NAME = String.raw`[\w][\w.+-]{0,40}`;
/** Lines in which a shell says a program is missing; the program in the first group. */
const MISSING: readonly RegExp[] = [
  new RegExp(String.raw`^(?:\S+: )?(?:line \d+: )?(${NAME}): command not found$`),
  new RegExp(String.raw`command not found: (${NAME})$`),
  new RegExp(String.raw`^\S*sh: \d+: (${NAME}): not found$`),
  new RegExp(String.raw`^which: no (${NAME}) in \(`),
  new RegExp(String.raw`^(${NAME}) not found$`),
];
const NO_MODULE = /\bNo module named ['"]?([\w.]+)['"]?/;
const VERSION_QUERY = /^(\S+)\s+(?:--version|-version|-v|-V|version)\b/;
const WHERE_QUERY = /^(?:which|command\s+-v|type\s+-p)\s+(\S+)\s*$/;
const VERSION = /\d+\.\d+/;
/** Lines of an output read: a probe answers at its start. */
const LINES_READ = 40;

/** The segments of `command`, split at `&&`, `||`, `;`, pipes and line ends. */
function segments(command: string): string[] {
  return command
    .split(/&&|\|\||;|\||\n/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The program a segment runs: its first word, without its folder. */
function programOf(segment: string): string {
  return (segment.split(/\s+/)[0] ?? '').replace(/^.*[\\/]/, '');
}

/**
 * The programs (and Python modules) the commands of `calls` found missing or found, each once, in
 * order, the latest probe deciding; a program found missing and later run by a call that did not
 * fail is left out (it was installed or found since).
 */
export function spanEnvironment(calls: readonly AgentCall[]): string[] {
  const state = new Map<string, boolean>();
  const set = (subject: string, found: boolean) => {
    state.delete(subject);
    state.set(subject, found);
  };
  for (const call of calls) {
    const command = commandOf(call);
    if (command === undefined || call.result === undefined) continue;
    const words = new Set(command.match(/[\w.+-]+/g) ?? []);
    const lines = call.result
      .split('\n', LINES_READ)
      .map((l) => l.trim())
      .filter(Boolean);
    const said = new Set<string>();
    for (const line of lines) {
      const missing = MISSING.map((re) => re.exec(line)?.[1]).find((n) => n !== undefined && words.has(n));
      const module = NO_MODULE.exec(line)?.[1];
      const subject = missing ?? (module !== undefined && command.includes(module) ? module : undefined);
      if (subject === undefined) continue;
      said.add(subject);
      set(subject, false);
    }
    for (const segment of segments(command)) {
      const where = WHERE_QUERY.exec(segment)?.[1];
      if (where && !said.has(where) && lines.some((l) => new RegExp(`[\\\\/]${escape(where)}$`).test(l)))
        set(where, true);
      const version = VERSION_QUERY.exec(segment)?.[1]?.replace(/^.*[\\/]/, '');
      if (version && !said.has(version) && !call.failed && lines.some((l) => VERSION.test(l))) set(version, true);
      // A program found missing that a later call runs without failing is there now.
      const ran = programOf(segment);
      if (!call.failed && !said.has(ran) && state.get(ran) === false) state.delete(ran);
    }
  }
  return [...state.keys()];
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
