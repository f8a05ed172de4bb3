// The project's typed client against the local stack: calls, edge cases, streams and quotas.
// One runner, one load of the stack's modules: see test/support/specs.ts.
import { runSpecs } from '../support/specs';

runSpecs(__dirname, ['client', 'client-edge', 'client-stream', 'client-quota']);
