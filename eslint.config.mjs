// Lint rules for every TypeScript file (src, test, bench). Type-aware: the parser asks the
// TypeScript project service for types, so the nearest tsconfig.json decides (src/webview/ has its own, with DOM).
import tseslint from 'typescript-eslint';

/** Layers below the views: plain Node, testable without an editor (see README, "Layout"). */
const editorFree = [
  'src/tokenizer',
  'src/compaction',
  'src/models',
  'src/transcripts',
  'src/summarizers',
  'src/replay',
  'src/agent',
  'src/service',
  'src/cli',
  'src/demo',
  'src/watch',
];

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.vscode-test/**', '**/*.mjs', '**/*.js'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // node:test's test()/describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // Re-raising an abort reason (typed `any` by the DOM typings) is fine; literal non-Errors are not.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
      // An async method that satisfies a Promise-returning interface needs no await.
      '@typescript-eslint/require-await': 'off',
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' }],
    },
  },
  {
    files: [...editorFree.map((dir) => `${dir}/**/*.ts`), 'src/cli.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'vscode',
              message: 'This layer runs without an editor: take plain data and an AbortSignal instead.',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests read JSON written by the code under test, stringify message content loosely inside
    // assertions, and pass fixture helpers around unbound.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
