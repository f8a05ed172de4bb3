// The service's handlers, authorizer, stores and release hook against the embedded DynamoDB server.
// One runner, one load of the stack's modules: see test/support/specs.ts.
import { runSpecs } from '../support/specs';

runSpecs(__dirname, ['authorizer', 'handlers', 'order-updated-at', 'orders-repository', 'round-trips', 'release-hook']);
