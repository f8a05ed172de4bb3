// Orders as the core and the stores see them: ids, attributes, JSON, v2 cursors, keys and queries, errors.
// One runner, one load of the modules they share: see test/support/specs.ts.
import { runSpecs } from '../support/specs';

runSpecs(__dirname, [
  'order-id',
  'order-attributes',
  'orders-json',
  'sync-cursor',
  'sync-keys',
  'sync-query',
  'error-mapping',
  'dependency-failure',
  'dynamo-client',
]);
