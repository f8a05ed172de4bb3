// Faults in DynamoDB (throttles, silence, late replies) and a restarted store: a 503, never a 500.
// One runner, one load of the stack's modules: see test/support/specs.ts.
/* eslint-disable @typescript-eslint/no-require-imports -- a spec's tests register inside its describe */
import { runSpec } from '../support/specs';

runSpec('faults', () => require('./faults.spec'));
runSpec('faults-restart', () => require('./faults-restart.spec'));
runSpec('slow-dynamo-quota', () => require('./slow-dynamo-quota.spec'));
