/**
 * Writes a JSON value as `JSON.stringify(value, null, 2)` would print it, a few thousand lines per
 * write, so a large report (the 300k ids a compaction replaced) is never held as one string beside
 * the value it renders.
 */

/** Lines of output gathered before one write: large enough that writes stay few, small enough to stay in the young generation. */
const LINES_PER_WRITE = 4096;

/**
 * Writes `value` to `out` in pieces of whole lines; `out` adds the newline after each piece, so the
 * text written is `JSON.stringify(value, null, 2) + '\n'`, byte for byte. Plain objects and arrays
 * are walked; anything else (and any object with `toJSON`) is rendered by `JSON.stringify`.
 * @param value a JSON-serializable value (not `undefined`)
 * @throws TypeError for a cyclic value or a BigInt, as `JSON.stringify` does
 */
export function writeJsonLines(value: unknown, out: (piece: string) => void): void {
  const lines: string[] = [];
  const flush = () => {
    if (lines.length) out(lines.join('\n'));
    lines.length = 0;
  };
  const emit = (line: string) => {
    lines.push(line);
    if (lines.length >= LINES_PER_WRITE) flush();
  };
  // `head` is what precedes the value on its first line (indent and key); `tail` follows it on its last (a comma).
  const walk = (v: unknown, indent: string, head: string, tail: string, seen: Set<object>): void => {
    if (v === null || typeof v !== 'object' || typeof (v as { toJSON?: unknown }).toJSON === 'function') {
      const text = JSON.stringify(v, null, 2) ?? 'null';
      const parts = text.split('\n');
      for (let k = 0; k < parts.length; k++)
        emit(`${k === 0 ? head : indent}${parts[k]}${k === parts.length - 1 ? tail : ''}`);
      return;
    }
    if (seen.has(v)) throw new TypeError('Converting circular structure to JSON');
    const inner = `${indent}  `;
    if (Array.isArray(v)) {
      if (v.length === 0) return emit(`${head}[]${tail}`);
      seen.add(v);
      emit(`${head}[`);
      for (let k = 0; k < v.length; k++) {
        const el: unknown = v[k];
        // As JSON.stringify: an element that has no JSON form becomes null.
        const shown = el === undefined || typeof el === 'function' || typeof el === 'symbol' ? null : el;
        walk(shown, inner, inner, k < v.length - 1 ? ',' : '', seen);
      }
      emit(`${indent}]${tail}`);
      seen.delete(v);
      return;
    }
    // As JSON.stringify: a property that has no JSON form is left out.
    const keys = Object.keys(v).filter((k) => {
      const x = (v as Record<string, unknown>)[k];
      return x !== undefined && typeof x !== 'function' && typeof x !== 'symbol';
    });
    if (keys.length === 0) return emit(`${head}{}${tail}`);
    seen.add(v);
    emit(`${head}{`);
    keys.forEach((k, i) =>
      walk(
        (v as Record<string, unknown>)[k],
        inner,
        `${inner}${JSON.stringify(k)}: `,
        i < keys.length - 1 ? ',' : '',
        seen,
      ),
    );
    emit(`${indent}}${tail}`);
    seen.delete(v);
  };
  walk(value, '', '', '', new Set());
  flush();
}
