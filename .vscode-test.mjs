// Extension tests in a desktop VS Code, for developers who have one (`npx vscode-test`).
// On machines that cannot download VS Code, `npm run test:e2e` runs the same extension in code-server.
import { defineConfig } from '@vscode/test-cli';

export default defineConfig({
  label: 'extension',
  files: 'test/e2e/desktop/**/*.test.cjs',
  version: '1.100.3',
  mocha: { ui: 'tdd', timeout: 60_000 },
  launchArgs: ['--disable-extensions'],
});
