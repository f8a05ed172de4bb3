// The admin command's key, order, pet and usage commands in process, against the embedded DynamoDB server.
// One runner, one load of the stack's modules: see test/support/specs.ts.
import { runSpecs } from '../support/specs';

runSpecs(__dirname, [
  'admin-backfill',
  'admin-endpoint',
  'admin-keys',
  'admin-orders',
  'admin-pets',
  'admin-root',
  'admin-usage',
]);
