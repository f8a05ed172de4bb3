/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
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
