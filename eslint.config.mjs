// Lint rules for every TypeScript file (src, test, bench). Type-aware: the parser asks the
// TypeScript project service for types, so the nearest tsconfig.json decides (src/webview/ has its own, with DOM).
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';

/** Layers below the views: plain Node, testable without an editor (DESIGN.md, "Layers"). */
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
  'src/format',
  'src/webview',
  'src/recall',
  'src/mcp',
];

/**
 * The layering of src/ (DESIGN.md "Layers": imports point downward only), stated once. Each zone:
 * files under `target` import nothing under `from` (except `except`, relative to `from`). Type-only
 * imports count too; test/architecture/import-graph.test.ts checks the same graph for circles.
 */
const layerZones = [
  {
    target: './src/tokenizer',
    from: './src',
    except: ['./tokenizer'],
    message: 'The tokenizer imports nothing of ours: it is the bottom layer.',
  },
  {
    target: './src/format',
    from: './src',
    except: ['./format'],
    message: 'The figure formatting imports nothing of ours: the webview bundle and the command line use it.',
  },
  {
    target: './src/compaction',
    from: './src',
    except: ['./compaction', './tokenizer', './format'],
    message:
      'The compaction core takes plain data and returns plain data: it imports nothing from service, views, agent, summarizers, cli, watch, models or demo.',
  },
  {
    target: './src/compaction/plan',
    from: './src/compaction/rewrite',
    message: 'Planning decides what to replace; rewriting depends on the plan, not the other way round.',
  },
  {
    target: './src/compaction/summary',
    from: './src/compaction/rewrite',
    message: 'The summary writer is used by the rewrite steps; it does not import them.',
  },
  {
    target: './src/transcripts',
    from: './src',
    except: ['./transcripts', './compaction', './tokenizer', './format'],
    message: 'The importers run in plain Node on the compaction core alone.',
  },
  {
    target: './src/recall',
    from: './src',
    except: ['./recall', './compaction', './tokenizer', './format', './transcripts'],
    message:
      'Recall reads plain data (entries and checkpoints) with the compaction core: the agent, the CLI and the MCP server use it.',
  },
  {
    target: './src/webview/shared',
    from: ['./src/views', './src/service'],
    message: 'The webview half shared with the host imports nothing from the views or the service.',
  },
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
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts'],
      // Sources import each other as `./x` or `./x.js` (the webview); both name the `.ts` file.
      'import-x/resolver-next': [
        createNodeResolver({ extensions: ['.ts', '.js', '.json'], extensionAlias: { '.js': ['.ts', '.js'] } }),
      ],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: layerZones }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // Size is judged by function, not by file: a long function is a hint to look for its parts.
      'max-lines-per-function': ['warn', { max: 80, skipBlankLines: true, skipComments: true }],
      // An argument spread puts every element on the stack: past about 100,000 elements it throws
      // "Maximum call stack size exceeded" (a whole recording into an append, Math.max of a long
      // list). Loop instead; a spread of a list bounded by construction says so in its disable comment.
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' },
        {
          selector: ':matches(CallExpression, NewExpression) > SpreadElement.arguments',
          message:
            'No argument spreads in src/: an array of unbounded length overflows the stack. Loop (for … of, reduce, flatMap), or disable with the bound stated.',
        },
      ],
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
