// Orders as the core and the stores see them: ids, attributes, JSON, v2 cursors, keys and queries, errors,
// and the imports' rules (records, the file's reader, bounded writes).
// One runner, one load of the modules they share: see test/support/specs.ts.
import { runSpecs } from '../support/specs';

runSpecs(__dirname, [
  'order-id',
  'order-attributes',
  'orders-json',
  'sync-cursor',
  'sync-keys',
  'sync-query',
  'sync-stamps',
  'error-mapping',
  'dependency-failure',
  'dynamo-client',
  'import-records',
  'json-array-elements',
  'map-bounded',
]);
