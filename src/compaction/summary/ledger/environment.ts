/**
 * What the commands of a span found out about the machine they ran on: a program or runtime that is
 * not installed or not on the PATH (`which mvn` → "mvn not found", `java -version` → "Unable to locate
 * a Java Runtime", `bash: cargo: command not found`, `No module named pytest`), or one found with its
 * version (`node --version` → `v20.11.0`) or its path (`which java` → `/usr/bin/java`).
 *
 * Such facts are short and stay true for the whole session: an agent that loses them probes again or
 * assumes the tool is there. The summary keeps them in their own section, one line per program, the
 * latest probe deciding; a program found later (a probe after installing it, or any successful run of
 * it) is no longer listed as missing.
 *
 * Pure: no I/O.
 */
import { commandSegments, printedOutput, program } from '../../retention/outcome';
import { withoutAnsi } from '../../text';
import { MessageMemo } from '../../message-memo';

/** One fact a command's output stated about a program (or a language's module). */
export interface EnvFact {
  /** What was probed: a program's name (`mvn`, `java`), or a module (`python module numpy`). */
  subject: string;
  /** False: not installed, not on the PATH, or present but unable to run. */
  found: boolean;
  /** The output's own words for it, one line of at most {@link SAID_CHARS} characters (`mvn not found`, `v20.11.0`). */
  said: string;
}

/** Characters of an output line a fact quotes. */
const SAID_CHARS = 90;
/** Output lines read for facts (a probe prints a few; a long output is a run, not a probe). */
const LINES_READ = 200;
/** Characters of an output read (a probe's answer is at its start). */
const HEAD_CHARS = 20_000;
/** Programs listed at most in the section (the newest facts). */
const MAX_SUBJECTS = 20;

/** A program's name as a shell prints it: no spaces, no quotes. */
const NAME = String.raw`[\w][\w.+-]{0,40}`;

/**
 * Lines in which a shell or a launcher says that a program is missing, the program's name in the
 * first group: bash (`bash: mvn: command not found`, `/bin/sh: line 1: mvn: command not found`),
 * dash (`sh: 1: mvn: not found`), zsh (`zsh: command not found: mvn`, and its `which`: `mvn not
 * found`), GNU which (`which: no mvn in (/usr/bin:…)`), env (`env: 'node': No such file or
 * directory`), cmd (`'mvn' is not recognized as an internal or external command`) and PowerShell
 * (`The term 'mvn' is not recognized as the name of a cmdlet`).
 */
const MISSING_LINES: readonly RegExp[] = [
  new RegExp(String.raw`^(?:\S+: )?(?:line \d+: )?(${NAME}): command not found$`),
  new RegExp(String.raw`^(?:zsh|bash|fish): command not found: (${NAME})$`),
  new RegExp(String.raw`^(?:\S*sh): \d+: (${NAME}): not found$`),
  new RegExp(String.raw`^which: no (${NAME}) in \(`),
  new RegExp(String.raw`^env: ['‘]?(${NAME})['’]?: No such file or directory$`),
  new RegExp(String.raw`^['"](${NAME})['"] is not recognized as an internal or external command`),
  new RegExp(String.raw`The term ['"](${NAME})['"] is not recognized as (?:the )?name of a cmdlet`),
];

/** A runtime's stub that is on the PATH but finds no runtime to start (macOS's `java` without a JDK). */
const NO_RUNTIME: ReadonlyArray<[RegExp, string]> = [
  [/Unable to locate a Java Runtime|No Java runtime present/, 'java'],
];

/** Python's answer to an import of a module that is not installed. */
const NO_MODULE = /\bNo module named ['"]?([\w.]+)['"]?/;
/** A command that asks Python to import or run a module: its "No module named" is about the environment. */
const PYTHON_IMPORT = /\bpython[\d.]*(?:\.exe)?\s+(?:-\S+\s+)*-[cm]\b/;

/** A segment that asks where a program is: `which a b`, `command -v a`, `type -p a`, `where a`, `whereis a`. */
const WHERE_PROBE = /^(?:which|command\s+-v|type\s+-[pP]|where(?:\.exe)?|whereis|Get-Command)\s+(.+)$/i;
/** A segment that asks a program its version: `node --version`, `java -version`, `npm -v`, `go version`. */
const VERSION_QUERY = /^(\S+)\s+(?:--version|-version|-v|-V|version|--ver)\b/;
/** A version number in a line: `v20.11.0`, `3.11.4`, `"17.0.2"`, `go1.21.5`. */
const VERSION = /(?:^|[\s"'(v]|go)\d+\.\d+(?:\.\d+)?/;
/** Programs whose "version" argument is no question about themselves. */
const NOT_A_PROGRAM = /^(?:echo|printf|cat|grep|rg|sed|awk|cd|which|command|type|test|\[)$/;

/**
 * The facts `output` (what `command` printed; a recording's envelope and terminal escapes are
 * removed) states about programs and modules: those it says are missing ({@link MISSING_LINES}, a
 * runtime stub that finds no runtime, Python's "No module named" for `python -c`/`-m`), the path a
 * `which`-like probe printed, the version a version query printed. `failed` is true when the run
 * failed or its probe answered "no": then a `which` that printed no path for a program says it is
 * not on the PATH. A program the output says is missing is never also listed as found. Each
 * subject once, in the order the output names them.
 */
export function environmentFacts(command: string, output: string, failed: boolean): EnvFact[] {
  const lines = withoutAnsi(printedOutput(output.length > HEAD_CHARS ? output.slice(0, HEAD_CHARS) : output))
    .split('\n', LINES_READ)
    .map((l) => l.trim())
    .filter(Boolean);
  const facts = new Map<string, EnvFact>();
  const words = new Set(command.match(/[\w.+-]+/g) ?? []);
  const missing = (subject: string, said: string) => {
    if (!facts.get(subject) || facts.get(subject)!.found)
      facts.set(subject, { subject, found: false, said: clip(said) });
  };
  const found = (subject: string, said: string) => {
    if (!facts.has(subject)) facts.set(subject, { subject, found: true, said: clip(said) });
  };
  const used = new Set<number>();
  lines.forEach((line, k) => {
    for (const re of MISSING_LINES) {
      const m = re.exec(line);
      // The program named must be one the command ran or asked about ("File not found" is no program).
      if (m && words.has(m[1])) {
        missing(m[1], line);
        used.add(k);
        return;
      }
    }
    for (const [re, subject] of NO_RUNTIME) {
      const m = re.exec(line);
      if (m) {
        missing(subject, m[0]);
        used.add(k);
        return;
      }
    }
    const module = NO_MODULE.exec(line);
    if (module && PYTHON_IMPORT.test(command) && command.includes(module[1])) {
      missing(`python module ${module[1]}`, module[0]);
      used.add(k);
    }
  });
  const segments = commandSegments(command).map((s) => program(s.split('|')[0] ?? ''));
  for (const segment of segments) {
    const where = WHERE_PROBE.exec(segment);
    if (!where) continue;
    for (const name of where[1].split(/\s+/).filter((w) => new RegExp(`^${NAME}$`).test(w) && !w.startsWith('-'))) {
      const at = lines.findIndex((l) => isPathOf(l, name));
      // zsh's `which` says so in words: `mvn not found`.
      const said = lines.find((l) => l === `${name} not found`);
      if (said !== undefined) missing(name, said);
      else if (at >= 0) {
        used.add(at);
        found(name, lines[at]);
      } else if (failed) missing(name, `not found on the PATH (${clip(segment, 40)})`);
    }
  }
  for (const segment of segments) {
    const query = VERSION_QUERY.exec(segment);
    if (!query) continue;
    const name = query[1].replace(/^.*[\\/]/, '').replace(/\.exe$/i, '');
    if (NOT_A_PROGRAM.test(name) || facts.get(name)?.found === false) continue;
    // The line naming the program, else the first version line no other query took.
    const own = (l: string, k: number) =>
      !used.has(k) && VERSION.test(l) && l.toLowerCase().includes(name.toLowerCase());
    let at = lines.findIndex(own);
    if (at < 0) at = lines.findIndex((l, k) => !used.has(k) && VERSION.test(l) && !/\berror\b/i.test(l));
    if (at < 0) continue;
    used.add(at);
    facts.set(name, { subject: name, found: true, said: clip(lines[at]) });
  }
  return [...facts.values()];
}

/** True when `line` is a path to the program `name` (`/usr/bin/java`, `C:\Tools\mvn.cmd`, `mvn: /usr/bin/mvn`). */
function isPathOf(line: string, name: string): boolean {
  const path = line.replace(new RegExp(`^${escape(name)}:\\s*`), '').split(/\s+/)[0] ?? '';
  if (!/^(?:[A-Za-z]:)?[\\/~]/.test(path)) return false;
  const base = path.replace(/^.*[\\/]/, '').replace(/\.(?:exe|cmd|bat)$/i, '');
  return base === name;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function clip(s: string, n = SAID_CHARS): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
}

/** What {@link environmentLines} reads of an action (`actions.ts`): a command, its outcome and its facts. */
interface Run {
  kind: string;
  command?: string;
  ok?: boolean;
  answer?: string;
  env?: readonly EnvFact[];
}

/** How a line of a program the commands found missing begins. */
const MISSING_LABEL = '- not available: ';
/** How a line of a program the commands found begins. */
const FOUND_LABEL = '- available: ';
/** A line of the environment section ({@link environmentLines}): its label, program and quote. */
const ENV_LINE = /^- (not available|available): (.+?) \("(.*)"\)$/;

/** The line of one fact: `- not available: mvn ("mvn not found")`, `- available: node ("v20.11.0")`. */
function factLine(f: EnvFact): string {
  return `${f.found ? FOUND_LABEL : MISSING_LABEL}${f.subject} ("${f.said.replace(/"/g, "'")}")`;
}

/**
 * The environment section's lines for `actions` (the span's, in order), after the `earlier` lines of
 * the summaries folded into it (the lines this function wrote then): one line per program or module,
 * the latest fact deciding, oldest first, at most {@link MAX_SUBJECTS}. A program listed as missing
 * goes when a later fact finds it or a later successful run uses it (its version printed after an
 * install, its build run). `later` are the actions kept after the summary: read only to drop what
 * they found since, never to add their facts (the context still holds them).
 */
export function environmentLines(
  actions: readonly Run[],
  earlier: readonly string[] = [],
  later: readonly Run[] = [],
): string[] {
  const state = new Map<string, EnvFact>();
  for (const l of earlier) {
    const m = ENV_LINE.exec(l);
    if (m) state.set(m[2], { subject: m[2], found: m[1] === 'available', said: m[3] });
  }
  const apply = (a: Run, add: boolean) => {
    if (a.kind !== 'command' || a.command === undefined) return;
    const own = new Set<string>();
    for (const f of a.env ?? []) {
      own.add(f.subject);
      if (add) {
        state.delete(f.subject);
        state.set(f.subject, f);
      } else if (f.found && state.get(f.subject)?.found === false) state.delete(f.subject);
    }
    if (!a.ok || a.answer !== undefined || state.size === 0) return;
    // A program the run used without a word of it missing is there (installed since, or on the PATH now).
    for (const name of programsOf(a, a.command))
      if (!own.has(name) && state.get(name)?.found === false) state.delete(name);
  };
  for (const a of actions) apply(a, true);
  for (const a of later) apply(a, false);
  return [...state.values()].slice(-MAX_SUBJECTS).map(factLine);
}

/**
 * {@link programsRun} of the command of `run` (an action, kept per message by `actions.ts` and never
 * changed): read once in its life, where each compaction reads every successful command of its span.
 */
function programsOf(run: Run, command: string): string[] {
  const kept = programsOfRun.get(run);
  if (kept !== undefined && kept.command === command) return kept.programs;
  return programsOfRun.set(run, { command, programs: programsRun(command) }).programs;
}
const programsOfRun = new MessageMemo<Run, { command: string; programs: string[] }>();

/** The programs the segments of `command` run (the first word of each pipeline stage, without its folder). */
function programsRun(command: string): string[] {
  const out: string[] = [];
  for (const segment of commandSegments(command))
    for (const stage of segment.split('|')) {
      const word = program(stage)
        .split(/\s+/)[0]
        ?.replace(/^.*[\\/]/, '');
      if (word && !out.includes(word)) out.push(word);
    }
  return out;
}
