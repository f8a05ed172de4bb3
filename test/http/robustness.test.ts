// Faults in DynamoDB, restarts, fuzzed requests and concurrent load: never a 500, nothing lost.
// One runner, one load of the stack's modules: see test/support/specs.ts.
import { runSpecs } from '../support/specs';

runSpecs(__dirname, ['faults', 'faults-restart', 'fuzz', 'fuzz-interleavings', 'load']);
