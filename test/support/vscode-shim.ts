/**
 * The few `vscode` exports that modules under test touch when they are loaded (not when their pure
 * functions run): lets a test load a module that imports `vscode` at its top to test its pure parts.
 * Install with {@link loadWithVscodeShim}; nothing here imitates VS Code's behaviour.
 */
import Module from 'node:module';

/** Minimal event emitter: modules construct one at load or in constructors. */
export class EventEmitter<T> {
  private listeners: Array<(value: T) => void> = [];
  readonly event = (listener: (value: T) => void) => {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  };
  fire(value: T): void {
    for (const l of this.listeners) l(value);
  }
  dispose(): void {
    this.listeners = [];
  }
}

/** Loads `modulePath` (absolute, compiled) with `require('vscode')` answered by this shim. */
export function loadWithVscodeShim<T>(modulePath: string): T {
  const mod = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const original = mod._resolveFilename;
  mod._resolveFilename = function (request: string, ...rest: unknown[]) {
    if (request === 'vscode') return __filename;
    return original.call(this, request, ...rest);
  };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(modulePath) as T;
  } finally {
    mod._resolveFilename = original;
  }
}
