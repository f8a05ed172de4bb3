// The part of Dredd's JavaScript API (dredd 14, CommonJS `module.exports = Dredd`) the tests use.
declare module 'dredd' {
  import type { EventEmitter } from 'node:events';
  interface DreddConfig {
    /** The server's base URL, the API description's paths appended. */
    endpoint: string;
    /** API description files or URLs. */
    path: string[];
    header?: string[];
    /** Transaction names to run; every other one is skipped. */
    only?: string[];
    'dry-run'?: boolean;
    loglevel?: 'silent' | 'error' | 'warning' | 'debug';
    reporter?: string[];
    color?: boolean;
    /** Gets 'test pass', 'test fail', 'test skip' and 'test error' with the test. */
    emitter?: EventEmitter;
  }
  interface DreddStats {
    tests: number;
    failures: number;
    errors: number;
    passes: number;
    skipped: number;
  }
  class Dredd {
    constructor(config: DreddConfig);
    run(callback: (error: Error | null | undefined, stats: DreddStats) => void): void;
  }
  export = Dredd;
}

// The logger Dredd's reporters print through (winston 2), to quiet them in tests.
declare module 'dredd/build/reporters/reporterOutputLogger' {
  const logger: { transports: { console: { silent: boolean } } };
  export default logger;
}
