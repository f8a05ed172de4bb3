// Faults in DynamoDB (throttles, silence, late replies, held writes) and a restarted store: a 503,
// never a 500, and never followed by the change.
// One runner, one load of the stack's modules: see test/support/specs.ts.
/* eslint-disable @typescript-eslint/no-require-imports -- a spec's tests register inside its describe */
import { runSpec } from '../support/specs';

runSpec('faults', () => require('./faults.spec'));
runSpec('faults-restart', () => require('./faults-restart.spec'));
runSpec('slow-dynamo-quota', () => require('./slow-dynamo-quota.spec'));
runSpec('deadline-writes', () => require('./deadline-writes.spec'));
runSpec('cancel-attempts', () => require('./cancel-attempts.spec'));
runSpec('listing-deadline', () => require('./listing-deadline.spec'));
runSpec('authorizer-deadline', () => require('./authorizer-deadline.spec'));
