// Fuzzed requests, fuzzed interleavings of writes, and concurrent load: only documented answers, nothing lost.
// One runner, one load of the stack's modules: see test/support/specs.ts.
/* eslint-disable @typescript-eslint/no-require-imports -- a spec's tests register inside its describe */
import { runSpec } from '../support/specs';

runSpec('fuzz', () => require('./fuzz.spec'));
runSpec('fuzz-interleavings', () => require('./fuzz-interleavings.spec'));
runSpec('load', () => require('./load.spec'));
