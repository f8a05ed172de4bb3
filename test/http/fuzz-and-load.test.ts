// Fuzzed requests, fuzzed interleavings of writes, and concurrent load: only documented answers, nothing lost.
// One runner, one load of the stack's modules: see test/support/specs.ts.
import { runSpecs } from '../support/specs';

runSpecs(__dirname, ['fuzz', 'fuzz-interleavings', 'load']);
