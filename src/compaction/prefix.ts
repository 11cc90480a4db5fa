/**
 * Whether a kept reading's list is the start of a list read now: the check a reading of a grown span
 * makes before it continues the reading of the span before. Pure.
 */

/** Whether `kept` is, element by element, the start of `list` (as `key` reads each element; identity). */
export function isPrefix<T, U>(kept: readonly U[], list: readonly T[], key: (x: T) => U): boolean {
  if (kept.length > list.length) return false;
  for (let i = 0; i < kept.length; i++) if (kept[i] !== key(list[i])) return false;
  return true;
}
