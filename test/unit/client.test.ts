// The typed client's pure parts: retry, Retry-After, its gates and its stream reader.
// One runner, one load of the modules they share: see test/support/specs.ts.
/* eslint-disable @typescript-eslint/no-require-imports -- a spec's tests register inside its describe */
import { runSpec } from '../support/specs';

runSpec('client-gates', () => require('./client-gates.spec'));
runSpec('client-retry-after', () => require('./client-retry-after.spec'));
runSpec('client-retry', () => require('./client-retry.spec'));
runSpec('client-stream', () => require('./client-stream.spec'));
