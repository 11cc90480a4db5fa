/**
 * Loads one module with `require('vscode')` answered by the typed fake (./vscode-fake), for tests that
 * only need a module's pure parts. Tests of editor behaviour import './vscode-fake/register' instead.
 */
import Module from 'node:module';

export { EventEmitter } from './vscode-fake/core';

/** Loads `modulePath` (absolute, compiled) with `require('vscode')` answered by the fake. */
export function loadWithVscodeShim<T>(modulePath: string): T {
  const mod = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const original = mod._resolveFilename;
  const fake = require.resolve('./vscode-fake/index');
  mod._resolveFilename = function (request: string, ...rest: unknown[]) {
    if (request === 'vscode') return fake;
    return original.call(this, request, ...rest);
  };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(modulePath) as T;
  } finally {
    mod._resolveFilename = original;
  }
}
