// Mutation testing of the rules (lib/core) against the unit layer alone: `npm run test:mutation`,
// not part of `npm test` (minutes of CPU). Scores and surviving mutants: docs/benchmarks.md.
// One folder: `npm run test:mutation -- --mutate 'lib/core/limiter/**/*.ts'`.
//
// Stryker runs jest in a sandbox copy of the repo through jest.config.cjs, in its runner mode (the
// `*.test.ts` runners load the specs, test/support/specs.ts), with the roots narrowed to test/unit:
// a mutant the store, HTTP or integration layers alone notice counts as surviving here.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: ['lib/core/**/*.ts'],
  testRunner: 'jest',
  jest: { configFile: 'jest.config.cjs', config: { roots: ['<rootDir>/test/unit'] } },
  // Each mutant runs only the tests that reached its code in the first, instrumented run.
  coverageAnalysis: 'perTest',
  // Two cores, shared: one jest at a time.
  concurrency: 1,
  // A rerun reuses the results of mutants whose code and test files are unchanged. jest reports a
  // spec's tests under its runner, so a change to any spec of a runner reruns all their mutants.
  incremental: true,
  incrementalFile: 'reports/mutation/incremental.json',
  reporters: ['clear-text', 'progress', 'html'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  clearTextReporter: { allowColor: false, logTests: false, reportTests: false },
  // What the sandbox need not copy: build output, local data, reports.
  ignorePatterns: ['cdk.out', 'dist', 'client/dist', 'coverage', '.local-data', 'reports'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
