// Faults in DynamoDB (throttles, silence, late replies) and a restarted store: a 503, never a 500.
// One runner, one load of the stack's modules: see test/support/specs.ts.
import { runSpecs } from '../support/specs';

runSpecs(__dirname, ['faults', 'faults-restart', 'slow-dynamo-quota']);
