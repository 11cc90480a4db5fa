/**
 * The maintained table of known model windows and output limits (`known-models.json`, one entry per
 * model family with the source of its figures). Used for endpoints that report nothing (OpenAI,
 * Azure OpenAI, most hosted APIs) and for the output limit that sizes the reply reserve.
 */
import data from './known-models.json';

/** One row of the table. */
export interface KnownModel {
  /** Regular expression over the normalized id (see {@link normalizeModelId}). */
  match: string;
  /** Whole context window, in tokens. */
  window: number;
  /** Most tokens one reply may have, when documented. */
  maxOutput?: number;
  /** Where the figures were read (URL, and what on that page). */
  source: string;
  /** Date the figures were read (YYYY-MM-DD). */
  checked: string;
  note?: string;
}

/**
 * Checks the rows; throws Error naming the row index and field of the first bad one (the file is part
 * of the product, so a bad edit must fail the tests, not a user's session).
 */
export function validateTable(rows: unknown): KnownModel[] {
  if (!Array.isArray(rows)) throw new Error('known-models.json: `models` must be an array');
  rows.forEach((row: Record<string, unknown>, i) => {
    const where = `known-models.json: models[${i}]`;
    if (typeof row?.match !== 'string') throw new Error(`${where}.match must be a string`);
    try {
      new RegExp(row.match);
    } catch (error) {
      throw new Error(`${where}.match is not a regular expression: ${(error as Error).message}`);
    }
    if (!Number.isInteger(row.window) || (row.window as number) <= 0)
      throw new Error(`${where}.window must be a positive integer`);
    if (
      row.maxOutput !== undefined &&
      (!Number.isInteger(row.maxOutput) ||
        (row.maxOutput as number) <= 0 ||
        (row.maxOutput as number) > (row.window as number))
    ) {
      throw new Error(`${where}.maxOutput must be a positive integer no larger than window`);
    }
    if (typeof row.source !== 'string' || !/^https:\/\//.test(row.source))
      throw new Error(`${where}.source must be an https URL`);
    if (typeof row.checked !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(row.checked))
      throw new Error(`${where}.checked must be a YYYY-MM-DD date`);
  });
  return rows as KnownModel[];
}

/** The table, validated once on first use. */
let table: Array<KnownModel & { re: RegExp }> | undefined;
function rows(): Array<KnownModel & { re: RegExp }> {
  table ??= validateTable(data.models).map((row) => ({ ...row, re: new RegExp(row.match) }));
  return table;
}

/**
 * The id the table matches: lower case, without a vendor path (`openai/gpt-4o` → `gpt-4o`) and
 * without an Ollama tag (`qwen2.5-coder:7b` → `qwen2.5-coder`).
 */
export function normalizeModelId(id: string): string {
  const last = id.trim().toLowerCase().split('/').pop() ?? '';
  return last.replace(/:[^:]*$/, '');
}

/** The table row for a model id, or undefined. */
export function lookupModel(id: string): KnownModel | undefined {
  const key = normalizeModelId(id);
  if (!key) return undefined;
  const row = rows().find((r) => r.re.test(key));
  if (!row) return undefined;
  const { re: _re, ...known } = row;
  return known;
}
