/**
 * Small pure helpers of the context service: session ids and record normalisation.
 */
import { randomUUID } from 'node:crypto';

/** Makes a session id: sortable time plus a random suffix, safe as a folder name. */
export function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
  return `${stamp}-${randomUUID().slice(0, 6)}`;
}

/** A shallow copy of `value` without the keys whose value is undefined. */
export function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
