/**
 * A log channel that removes the API key, in every form a server may echo it (`redactKey`), from each
 * line before it is written. Log files persist on disk and get attached to bug reports; the key must
 * never reach them, whichever module logs a server's error text.
 *
 * No runtime `vscode` import, so it is unit-tested with a fake channel.
 */
import type { LogOutputChannel } from 'vscode';
import { redactKey } from '../compaction/secrets';

const WRITERS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'append', 'appendLine', 'replace']);

/** Redacts one log argument: strings and Error messages; other values pass through. */
function redactArgument(value: unknown, key: string | undefined): unknown {
  if (typeof value === 'string') return redactKey(value, key);
  if (value instanceof Error) {
    const copy = new Error(redactKey(value.message, key));
    copy.name = value.name;
    copy.stack = value.stack === undefined ? undefined : redactKey(value.stack, key);
    return copy;
  }
  return value;
}

/**
 * Wraps `log` so every write (`trace`…`error`, `append`, `appendLine`, `replace`) is redacted with the
 * key `currentKey()` returns at that moment; everything else is the channel itself.
 */
export function redactingLog(log: LogOutputChannel, currentKey: () => string | undefined): LogOutputChannel {
  return new Proxy(log, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (typeof property === 'string' && WRITERS.has(property)) {
        return (...args: unknown[]) => {
          const key = currentKey();
          return (value as (...a: unknown[]) => unknown).apply(
            target,
            args.map((a) => redactArgument(a, key)),
          );
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
}
