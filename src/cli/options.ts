/** Validation of the numeric command-line options, with one clear message per mistake. */
import { InvalidArgumentError } from 'commander';

/** Parses a positive integer token count (`32000`, `32k`). */
export function parseTokens(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(k|m)?$/i.exec(value.trim());
  if (!m || (!m[2] && m[1].includes('.')))
    throw new InvalidArgumentError(`expected a whole number of tokens such as 32000 or 32k, got "${value}"`);
  const n = Math.round(
    Number(m[1]) * (m[2]?.toLowerCase() === 'k' ? 1000 : m[2]?.toLowerCase() === 'm' ? 1_000_000 : 1),
  );
  if (n <= 0) throw new InvalidArgumentError(`expected a positive number of tokens, got "${value}"`);
  return n;
}

/** Parses a fraction in (0, 1]. */
export function parseFraction(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > 1)
    throw new InvalidArgumentError(`expected a fraction between 0 and 1, got "${value}"`);
  return n;
}

/** Parses a non-negative integer. */
export function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`expected a whole number, got "${value}"`);
  return n;
}
