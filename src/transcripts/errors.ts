/**
 * The one error type of the importers: names the file, the 1-based line and the field at fault.
 */
export class TranscriptError extends Error {
  /**
   * @param file   file name as given to the importer
   * @param line   1-based line of the offending record or value (0 when unknown)
   * @param field  JSON path of the offending field, e.g. `messages[12].tool_call_id` ('' for a whole record)
   * @param detail what is wrong, e.g. `unknown role "robot"`
   */
  constructor(
    readonly file: string,
    readonly line: number,
    readonly field: string,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    // A fault of the whole file (no line, no field) names the file alone.
    super(
      line === 0 && !field ? `${file}: ${detail}` : `${file}:${line}: ${field ? `${field}: ` : ''}${detail}`,
      options,
    );
    this.name = 'TranscriptError';
  }
}

/** Renders a JSON path: `['messages', 12, 'role']` -> `messages[12].role`, `[3, 'id']` -> `[3].id`. */
export function fieldPath(path: ReadonlyArray<string | number>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${key}` : key;
  }
  return out;
}
