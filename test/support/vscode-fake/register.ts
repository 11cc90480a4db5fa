/**
 * Makes `require('vscode')` load the fake (./index) for the rest of the process. Import it first in a
 * test file, before any module that imports `vscode`: `import '../support/vscode-fake/register';`.
 */
import Module from 'node:module';

const fake = require.resolve('./index');
const loader = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
const original = loader._resolveFilename;
if (!(original as { fakeVscode?: boolean }).fakeVscode) {
  const resolve = function (this: unknown, request: string, ...rest: unknown[]) {
    return request === 'vscode' ? fake : original.call(this, request, ...rest);
  };
  loader._resolveFilename = Object.assign(resolve, { fakeVscode: true });
}
