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
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 30000,
};
