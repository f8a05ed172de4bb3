// ESLint for the TypeScript sources: the recommended rules of ESLint and typescript-eslint.
// Formatting is Prettier's job (npm run format), so no stylistic rule is enabled here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// What Lambda runs is built from functions/ and lib/: a CDK declaration, a tool or the bench's
// figures imported there would ship in a bundle and load at every cold start.
const LAMBDA_CODE_ONLY = {
  group: ['**/infra/**', '**/tools/**', '**/bench/**', '**/test/**', '**/client/**'],
  message: 'Lambda code is built from functions/ and lib/ only.',
};

// The declarations and the rules are plain TypeScript, free of the libraries of I/O and Lambda: so
// a rule is tested as a plain function, and a tool that reads a declaration loads no AWS SDK.
const NO_AWS_OR_MIDDY = {
  group: ['@aws-sdk/*', '@smithy/*', '@middy/*', '@aws-lambda-powertools/*'],
  message:
    'lib/contract and lib/core import no AWS SDK, Smithy, middy or Powertools: those belong to lib/stores, lib/edge and lib/root.',
};

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', 'dist/', 'coverage/', 'client/dist/', '.stryker-tmp/', 'reports/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: {
      // `_`-prefixed names mark arguments a signature needs but the body does not use.
      // A variable set after the closures that read it are created cannot be const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // In TypeScript the compiler reports unused locals and parameters (tsconfig's noUnusedLocals and
    // noUnusedParameters, `_`-prefixed parameters exempt), as typescript-eslint's docs suggest: the
    // lint rule did the same work again, a third of ESLint's time. JavaScript files keep the rule.
    files: ['**/*.ts'],
    rules: { '@typescript-eslint/no-unused-vars': 'off' },
  },
  {
    // (functions/ has a narrower rule of its own below.)
    files: ['lib/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [LAMBDA_CODE_ONLY],
        },
      ],
    },
  },
  // lib/'s layers, imports running one way: contract <- core <- stores <- edge <- root. commons
  // (logger, env) sits under all of them. A rule that imported a store or a handler could not be
  // tested as a plain function; a store that imported the edge would pull middy into every script.
  // (One entry per folder: a later entry's no-restricted-imports replaces an earlier one's.)
  ...[
    ['lib/contract/**/*.ts', ['core', 'stores', 'edge', 'root'], [NO_AWS_OR_MIDDY]],
    ['lib/commons/**/*.ts', ['contract', 'core', 'stores', 'edge', 'root'], []],
    ['lib/core/**/*.ts', ['stores', 'edge', 'root'], [NO_AWS_OR_MIDDY]],
    ['lib/stores/**/*.ts', ['edge', 'root'], []],
    ['lib/edge/**/*.ts', ['root'], []],
  ].map(([files, above, more]) => ({
    files: [files],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            LAMBDA_CODE_ONLY,
            {
              group: above.map((layer) => `**/${layer}/**`).concat(above.map((layer) => `../${layer}`)),
              message: `lib/ imports run one way: contract <- core <- stores <- edge <- root.`,
            },
            ...more,
          ],
        },
      ],
    },
  })),
  {
    // A Lambda entry is one line over the composition root (lib/root/handlers.ts): anything else it
    // imported would be wiring outside the root, or a second way to build a handler.
    files: ['functions/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!\\.\\./lib/root/)',
              message: 'functions/ imports lib/root only: the composition root builds every handler.',
            },
          ],
        },
      ],
    },
  },
  {
    // The tools read the deployment contract (lib/contract/deployment.ts), never the CDK app or the
    // bench: importing infra/ would load the CDK's declarations and bench/results.json at every start.
    files: ['tools/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/infra', '**/infra/**', '**/bench', '**/bench/**'],
              message: 'tools/ imports neither infra/ nor bench/: read lib/contract/deployment.ts.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { globals: { URL: 'readonly' } },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
