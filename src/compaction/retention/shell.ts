/**
 * What a shell script does to files, read from its text: the files it writes (redirections `>`/`>>`,
 * `tee`, `sed -i`, `perl -i`, `cp`, `mv`, `touch`, `apply_patch` bodies, Python `open(…, 'w')` and
 * `write_text`), deletes (`rm`) and reads (`cat`, `sed -n`, `head`, `tail`, `nl`, `less`). Used for
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
function shellWords(line: string): string[] {
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
    for (const s of segments) commandEffects(s, out);
  }
  return out;
}

const READERS = new Set(['cat', 'head', 'tail', 'nl', 'less', 'more', 'bat', 'view']);

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
      if (files.length >= 2) out.push({ path: files[files.length - 1], action: 'created' });
      break;
    case 'mv':
    case 'git-mv':
      if (files.length >= 2) {
        out.push({ path: files[files.length - 1], action: 'moved' });
        for (const f of files.slice(0, -1)) out.push({ path: f, action: 'deleted' });
      }
      break;
    case 'touch':
      for (const f of files) out.push({ path: f, action: 'created' });
      break;
    case 'rm':
      for (const f of files) out.push({ path: f, action: 'deleted' });
      break;
    case 'git':
      if (args[0] === 'mv' && files.length >= 3) out.push({ path: files[files.length - 1], action: 'moved' });
      if (args[0] === 'rm') for (const f of files.slice(1)) out.push({ path: f, action: 'deleted' });
      break;
    default:
      if (READERS.has(cmd)) for (const f of files) if (/[./]/.test(f)) out.push({ path: f, action: 'read' });
  }
}
