/**
 * What a shell script does to files, read from its text: the files it writes (redirections `>`/`>>`,
 * `tee`, `sed -i`, `perl -i`, `cp`, `mv`, `touch`, `apply_patch` bodies, Python `open(…, 'w')` and
 * `write_text`; a copy's sources (`cp`, `copy`, `Copy-Item`) are read, its destination created), moves and deletes (`mv`, `rm`, `git mv`/`git rm`, Windows `ren`/`move`/`del`/`erase`,
 * PowerShell `Move-Item`/`Rename-Item`/`Remove-Item`; also inside `bash -lc "…"`, `cmd /c` and
 * `powershell -Command`) and reads (`cat`, `sed -n`, `head`, `tail`, `nl`, `less`). Used for
 * agents that edit by running commands (Codex `exec`/`shell`, OpenHands `terminal`, Cline
 * `execute_command`, Claude Code `Bash`). Heuristic by nature: a script that writes through a
 * program of its own (a build, a generator) is not seen. Pure.
 */

/** One effect of a script on a file. */
export interface ShellEffect {
  path: string;
  action: 'created' | 'edited' | 'deleted' | 'moved' | 'read';
}

/**
 * Patch bodies in the apply_patch format (Codex): `*** Add File: p` (created), `*** Update File: p`
 * (edited), `*** Delete File: p` (deleted), `*** Move to: p` (moved: the new path).
 */
export function patchEffects(text: string): ShellEffect[] {
  const out: ShellEffect[] = [];
  for (const m of text.matchAll(/^\*\*\* (Add File|Update File|Delete File|Move to): (.+?)\s*$/gm)) {
    const action =
      m[1] === 'Add File' ? 'created' : m[1] === 'Delete File' ? 'deleted' : m[1] === 'Move to' ? 'moved' : 'edited';
    out.push({ path: m[2], action });
  }
  return out;
}

/** Here-document bodies removed (their command lines kept), and the bodies returned apart. */
function splitHeredocs(script: string): { commands: string; bodies: string[] } {
  const lines = script.split('\n');
  const keep: string[] = [];
  const bodies: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    keep.push(line);
    const tags = [...line.matchAll(/<<-?\s*(?:'([^']+)'|"([^"]+)"|\\?([A-Za-z_][\w]*))/g)].map(
      (m) => m[1] ?? m[2] ?? m[3],
    );
    for (const tag of tags) {
      const body: string[] = [];
      i++;
      while (i < lines.length && lines[i].trim() !== tag) body.push(lines[i++]);
      bodies.push(body.join('\n'));
    }
  }
  return { commands: keep.join('\n'), bodies };
}

/** Shell words of one command line: quotes removed, operators (`;`, `&&`, `||`, `|`, `>`, `>>`) as their own words. */
export function shellWords(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let has = false;
  const flush = () => {
    if (has) out.push(cur);
    cur = '';
    has = false;
  };
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === "'" || ch === '"') {
      const end = line.indexOf(ch, i + 1);
      if (end < 0) {
        cur += line.slice(i + 1);
        has = true;
        break;
      }
      cur += line.slice(i + 1, end);
      has = true;
      i = end;
    } else if (/\s/.test(ch)) flush();
    else if (ch === ';' || ch === '|' || ch === '&' || ch === '(' || ch === ')') {
      // `2>&1` and `&>` stay redirections of descriptors, not files.
      if (ch === '&' && cur.endsWith('>')) {
        cur += ch;
        has = true;
        continue;
      }
      flush();
      let op = ch;
      while (i + 1 < line.length && line[i + 1] === ch) op += line[++i];
      out.push(op);
    } else if (ch === '>' || ch === '<') {
      // A descriptor number before `>` belongs to the operator (`2>`).
      const fd = /^\d$/.test(cur) ? cur : '';
      if (!fd) flush();
      else {
        cur = '';
        has = false;
      }
      let op = fd + ch;
      while (i + 1 < line.length && (line[i + 1] === '>' || line[i + 1] === '<' || line[i + 1] === '&'))
        op += line[++i];
      out.push(op);
    } else {
      cur += ch;
      has = true;
    }
  }
  flush();
  return out;
}

const SEPARATORS = new Set([';', ';;', '&&', '||', '|', '&', '(', ')']);
/** A word that can name a file written by a script: not an option, a variable or a descriptor. */
function fileWord(w: string | undefined): w is string {
  return (
    !!w &&
    !w.startsWith('-') &&
    !w.startsWith('$') &&
    !w.startsWith('&') &&
    !/^\/dev\//.test(w) &&
    !/^nul$/i.test(w) &&
    /[\w]/.test(w) &&
    !/[*?{}`]/.test(w)
  );
}

/** Python in a script body or `-c` string: `open("p", "w")`, `Path("p").write_text(…)`. */
function pythonWrites(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\bopen\(\s*(?:r|f)?(['"])([^'"\n]+)\1\s*,\s*(['"])[wax]b?\+?\3/g)) out.push(m[2]);
  for (const m of text.matchAll(/\bPath\(\s*(?:r|f)?(['"])([^'"\n]+)\1\s*\)\s*\.write_(?:text|bytes)\(/g))
    out.push(m[2]);
  return out;
}

/**
 * The files a shell script writes, deletes or reads. `script` is the command as run (a multi-line
 * script is fine). Paths are given as written (relative ones stay relative).
 */
export function shellEffects(script: string): ShellEffect[] {
  const out: ShellEffect[] = [...patchEffects(script)];
  const { commands, bodies } = splitHeredocs(script);
  for (const body of bodies) for (const p of pythonWrites(body)) out.push({ path: p, action: 'edited' });
  for (const p of pythonWrites(commands)) out.push({ path: p, action: 'edited' });
  const vars = new Map<string, string>();
  for (const line of commands.split('\n')) {
    const words = shellWords(line);
    // Segments between separators are simple commands.
    let seg: string[] = [];
    const segments: string[][] = [];
    for (const w of words) {
      if (SEPARATORS.has(w)) {
        segments.push(seg);
        seg = [];
      } else seg.push(w);
    }
    segments.push(seg);
    for (const s of segments) if (!assigns(s, vars)) commandEffects(expanded(s, vars), out);
  }
  return out;
}

/** A plain shell variable assignment (`SRC=/a/b.txt`): name and value. */
const ASSIGNMENT = /^([A-Za-z_]\w*)=(.*)$/;

/**
 * Records the assignments of a command made only of assignments (`SRC=a DST=b`) in `vars` and says
 * whether it was one: a script that names its files through variables (`cp "$SRC" "$DST"`) copies
 * the files the variables hold.
 */
function assigns(words: readonly string[], vars: Map<string, string>): boolean {
  if (words.length === 0 || !words.every((w) => ASSIGNMENT.test(w))) return false;
  for (const w of words) {
    const m = ASSIGNMENT.exec(w);
    if (m) vars.set(m[1], expandWord(m[2], vars));
  }
  return true;
}

/** `word` with the known variables (`$NAME`, `${NAME}`) replaced by their values; unknown ones stay. */
function expandWord(word: string, vars: ReadonlyMap<string, string>): string {
  return word.replace(/\$\{(\w+)\}|\$(\w+)/g, (all, a: string | undefined, b: string | undefined) => {
    return vars.get(a ?? b ?? '') ?? all;
  });
}

function expanded(words: readonly string[], vars: ReadonlyMap<string, string>): string[] {
  return vars.size === 0 ? [...words] : words.map((w) => expandWord(w, vars));
}

const READERS = new Set(['cat', 'head', 'tail', 'nl', 'less', 'more', 'bat', 'view']);

/** A shell that runs its argument as a script: `bash -lc "…"`, `sh -c`, `cmd /c`, `powershell -Command`, `pwsh -c`. */
const WRAPPER = /^(?:(?:ba|z|da)?sh|cmd(?:\.exe)?|pwsh(?:\.exe)?|powershell(?:\.exe)?)$/i;
/** The option after which a wrapper's script starts (`-c`, `-lc`, `/c`, `/k`, `-Command`). */
const SCRIPT_OPTION = /^(?:-\w*c|\/[ck]|-command)$/i;

/**
 * The script a wrapper shell runs (`bash -lc "rm x"` → `rm x`), or undefined when `words` is no such
 * call. A quoted script is one word; an unquoted one (`cmd /c del x`) is the words after the option.
 */
function wrappedScript(words: readonly string[]): string | undefined {
  const [cmd, ...rest] = words;
  if (!cmd || !WRAPPER.test(cmd.split(/[\\/]/).pop() ?? '')) return undefined;
  const at = rest.findIndex((w) => SCRIPT_OPTION.test(w));
  if (at < 0 || at === rest.length - 1) return undefined;
  return rest.slice(at + 1).join(' ');
}

/** The folder part of `path` (with its separator), '' for a bare name. */
function folderOf(path: string): string {
  const at = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return at < 0 ? '' : path.slice(0, at + 1);
}

/** PowerShell parameters that take a value (the rest of `-Name` words are switches). */
const PS_VALUE = new Set([
  'path',
  'literalpath',
  'destination',
  'newname',
  'filter',
  'include',
  'exclude',
  'erroraction',
]);

/** A PowerShell command's named values (`-Path p`, lower-cased names) and positional words; `-WhatIf` runs nothing. */
function psArgs(args: readonly string[]): { named: Map<string, string>; positional: string[]; whatIf: boolean } {
  const named = new Map<string, string>();
  const positional: string[] = [];
  let whatIf = false;
  for (let i = 0; i < args.length; i++) {
    const w = args[i];
    const m = /^-(\w+)(?::(.+))?$/.exec(w);
    if (!m) positional.push(w);
    else if (m[2] !== undefined) named.set(m[1].toLowerCase(), m[2]);
    else if (PS_VALUE.has(m[1].toLowerCase()) && i + 1 < args.length) named.set(m[1].toLowerCase(), args[++i]);
    else if (/^whatif$/i.test(m[1])) whatIf = true;
  }
  return { named, positional, whatIf };
}

/** Effects of a move of `from` to `to` (`to` a folder keeps the name): the new path moved, the old one deleted. */
function moveEffects(from: string, to: string, out: ShellEffect[]): void {
  out.push({ path: to, action: 'moved' }, { path: from, action: 'deleted' });
}

/** Effects of a copy of `from` to `to`: the sources read, the destination created. */
function copyEffects(from: readonly string[], to: string, out: ShellEffect[]): void {
  out.push({ path: to, action: 'created' });
  for (const f of from) if (fileWord(f)) out.push({ path: f, action: 'read' });
}

/** Windows and PowerShell deletions, moves and renames (`del`, `erase`, `rd`, `ren`, `move`, `Remove-Item`, …). */
function windowsEffects(cmd: string, args: string[], out: ShellEffect[]): boolean {
  const name = cmd.toLowerCase();
  // cmd.exe switches are `/x` words (`/q`, `/s`, `/y`), never files.
  const plain = args.filter((a) => fileWord(a) && !/^\/[a-z-]{1,2}$/i.test(a));
  switch (name) {
    case 'del':
    case 'erase':
    case 'rd':
      for (const f of plain) out.push({ path: f, action: 'deleted' });
      return true;
    case 'ren':
    case 'rename':
      // Perl's rename takes an expression first (`rename 's/a/b/' *.txt`): not a rename of one file.
      if (plain.length !== 2 || /^s\W/.test(plain[0])) return name === 'ren';
      moveEffects(plain[0], folderOf(plain[0]) + plain[1], out);
      return true;
    case 'move':
      if (plain.length === 2) moveEffects(plain[0], plain[1], out);
      return true;
    case 'copy':
      // cmd.exe `copy a b`: a is read, b written (`copy a+b c` joins files into c).
      if (plain.length === 2) copyEffects(plain[0].split('+'), plain[1], out);
      return true;
    case 'copy-item':
    case 'cpi': {
      const a = psArgs(args);
      if (a.whatIf) return true;
      const pos = a.positional.filter(fileWord);
      const from = a.named.get('path') ?? a.named.get('literalpath') ?? pos.shift();
      const to = a.named.get('destination') ?? pos.shift();
      if (fileWord(from) && fileWord(to)) copyEffects(from.split(','), to, out);
      return true;
    }
    case 'remove-item':
    case 'ri': {
      const a = psArgs(args);
      if (a.whatIf) return true;
      const paths = [a.named.get('path') ?? a.named.get('literalpath'), ...a.positional].filter(fileWord);
      for (const p of paths) for (const f of p.split(',')) if (fileWord(f)) out.push({ path: f, action: 'deleted' });
      return true;
    }
    case 'move-item':
    case 'mi':
    case 'rename-item':
    case 'rni': {
      const a = psArgs(args);
      if (a.whatIf) return true;
      const pos = a.positional.filter(fileWord);
      const from = a.named.get('path') ?? a.named.get('literalpath') ?? pos.shift();
      const to = a.named.get(name.startsWith('r') ? 'newname' : 'destination') ?? pos.shift();
      if (!fileWord(from) || !fileWord(to)) return true;
      moveEffects(from, name.startsWith('r') && !/[\\/]/.test(to) ? folderOf(from) + to : to, out);
      return true;
    }
    default:
      return false;
  }
}

function commandEffects(words: string[], out: ShellEffect[]): void {
  const plain: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (/^\d?>>?$|^&>>?$/.test(w)) {
      const target = words[i + 1];
      if (fileWord(target)) out.push({ path: target, action: w.endsWith('>>') ? 'edited' : 'created' });
      i++;
    } else if (/^\d?<$/.test(w) || /^<<-?$/.test(w) || /^\d?>&\d?$/.test(w)) i++;
    else plain.push(w);
  }
  // `sudo`, `env`, `time` prefixes run the next word.
  while (plain.length && /^(sudo|env|time|command|nohup)$/.test(plain[0])) plain.shift();
  const [cmd, ...args] = plain;
  if (!cmd) return;
  const script = wrappedScript(plain);
  if (script !== undefined) {
    for (const e of shellEffects(script)) out.push(e);
    return;
  }
  if (windowsEffects(cmd, args, out)) return;
  const files = args.filter(fileWord);
  switch (cmd.split('/').pop()) {
    case 'tee':
      for (const f of files) out.push({ path: f, action: 'edited' });
      break;
    case 'sed':
    case 'perl':
      if (args.some((a) => /^-\w*i/.test(a) || a === '--in-place')) {
        const last = files[files.length - 1];
        // The script is the first non-option word (unless given with -e); files follow it.
        const scripts = args.some((a) => a === '-e') ? 0 : 1;
        if (last && files.length > scripts) out.push({ path: last, action: 'edited' });
      } else if (cmd === 'sed' && args.includes('-n')) {
        const last = files[files.length - 1];
        if (last && files.length > 1) out.push({ path: last, action: 'read' });
      }
      break;
    case 'cp':
    case 'install':
      // A copy reads its sources and writes its destination only.
      if (files.length >= 2) {
        out.push({ path: files[files.length - 1], action: 'created' });
        for (const f of files.slice(0, -1)) out.push({ path: f, action: 'read' });
      }
      break;
    case 'mv':
      if (files.length >= 2) {
        out.push({ path: files[files.length - 1], action: 'moved' });
        for (const f of files.slice(0, -1)) out.push({ path: f, action: 'deleted' });
      }
      break;
    case 'touch':
      for (const f of files) out.push({ path: f, action: 'created' });
      break;
    case 'rm':
    case 'rmdir':
      // cmd.exe's `rmdir /s /q dir`: its switches are no files.
      for (const f of files) if (!/^\/[a-z]$/i.test(f)) out.push({ path: f, action: 'deleted' });
      break;
    case 'git': {
      // `git -C dir mv …`: the subcommand is the first word that is no option (nor an option's value).
      const sub = args.findIndex((a, i) => !a.startsWith('-') && !/^-[Cc]$/.test(args[i - 1] ?? ''));
      const rest = args.slice(sub + 1).filter(fileWord);
      if (args[sub] === 'mv' && rest.length >= 2) {
        out.push({ path: rest[rest.length - 1], action: 'moved' });
        for (const f of rest.slice(0, -1)) out.push({ path: f, action: 'deleted' });
      }
      // `git rm --cached` only stops tracking: the file stays.
      if (args[sub] === 'rm' && !args.includes('--cached'))
        for (const f of rest) out.push({ path: f, action: 'deleted' });
      break;
    }
    default:
      if (READERS.has(cmd)) for (const f of files) if (/[./]/.test(f)) out.push({ path: f, action: 'read' });
  }
}
