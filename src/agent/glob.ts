/**
 * A small glob matcher for `find_files`: `*` (within a segment), `**` (any number of segments), `?`,
 * character classes `[abc]` and alternatives `{a,b}`. Paths use forward slashes. A pattern without a
 * slash matches the file name at any depth (as most editors' quick-open does).
 */

/** Compiles a glob to an anchored regular expression over a workspace-relative path. */
export function globToRegExp(glob: string): RegExp {
  let pattern = glob.trim().replace(/\\/g, '/').replace(/^\.\//, '');
  if (!pattern.includes('/')) pattern = `**/${pattern}`;
  let source = '';
  let inGroup = 0;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '*') {
      if (pattern[i + 1] === '*') {
        // `**/` matches zero or more whole segments; a trailing `**` matches everything below.
        if (pattern[i + 2] === '/') {
          source += '(?:.*/)?';
          i += 2;
        } else {
          source += '.*';
          i += 1;
        }
      } else {
        source += '[^/]*';
      }
    } else if (ch === '?') {
      source += '[^/]';
    } else if (ch === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) {
        source += '\\[';
      } else {
        let body = pattern.slice(i + 1, end).replace(/\\/g, '\\\\');
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        source += `[${body}]`;
        i = end;
      }
    } else if (ch === '{') {
      inGroup++;
      source += '(?:';
    } else if (ch === '}' && inGroup > 0) {
      inGroup--;
      source += ')';
    } else if (ch === ',' && inGroup > 0) {
      source += '|';
    } else {
      source += ch.replace(/[.+^$()|\\]/g, '\\$&');
    }
  }
  while (inGroup-- > 0) source += ')';
  return new RegExp(`^${source}$`);
}
