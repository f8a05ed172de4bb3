const { specRunners } = require('./test/support/spec-runners.cjs');

// Two modes, one set of tests, each spec run once. A run of the whole suite or of a folder
// (`npm test`, `npm run test:unit`) runs the runners (`*.test.ts` files that name specs, see
// test/support/specs.ts), so the specs of a runner load their modules once. A run that names a spec
// (`npx jest test/unit/content-coding.spec.ts`) or asks jest which files to run (--findRelatedTests,
// -o, --watch, ...) runs the specs as test files of their own and ignores the runners.
const SPEC_MODE_FLAGS = new Set([
  '--findRelatedTests',
  '-o',
  '--onlyChanged',
  '--watch',
  '--watchAll',
  '--changedSince',
  '--lastCommit',
]);
const specMode = process.argv
  .slice(2)
  .some((arg) => SPEC_MODE_FLAGS.has(arg.split('=')[0]) || (!arg.startsWith('-') && /\.spec(\.ts)?$/.test(arg)));
const escaped = (file) => file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  // Spec mode maps the whole tree, so jest's dependency graph reaches lib/, tools/ and infra/.
  roots: specMode ? ['<rootDir>'] : ['<rootDir>/test'],
  testMatch: specMode ? ['<rootDir>/test/**/*.{test,spec}.ts'] : ['**/*.test.ts'],
  testPathIgnorePatterns: [
    '/node_modules/',
    // The sandbox copy of the repo a mutation run (stryker.config.mjs) works in.
    '<rootDir>/.stryker-tmp/',
    ...(specMode ? specRunners().map(({ runner }) => `^${escaped(runner)}$`) : []),
  ],
  modulePathIgnorePatterns: ['<rootDir>/.stryker-tmp/'],
  transform: { '\\.[cm]?[jt]s$': '<rootDir>/test/support/esbuild-transform.cjs' },
  // middy 7 ships ESM only; everything else in node_modules is CommonJS already.
  transformIgnorePatterns: ['/node_modules/(?!@middy/)'],
  // ...and export only an `import` condition, which jest's CommonJS resolver does not follow.
  moduleNameMapper: {
    '^@middy/([a-z-]+)$': '<rootDir>/node_modules/@middy/$1/index.js',
    '^@middy/core/StreamifyResponse$': '<rootDir>/node_modules/@middy/core/executionModeStreamifyResponse.js',
  },
  testSequencer: '<rootDir>/test/support/sequencer.cjs',
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 30000,
  // Two CPUs: much of a test's time is spent waiting on the embedded server or a child process, so
  // two workers keep both CPUs busy (jest's default, cores - 1, leaves one idle). More starves the
  // embedded server, which runs in jest's own process, on a cold transform cache.
  maxWorkers: '100%',
};
