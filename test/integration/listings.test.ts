// Listing slots and refusals against the embedded DynamoDB server: hang-ups, leases, limits, caps.
// One runner, one load of the stack's modules: see test/support/specs.ts.
import { runSpecs } from '../support/specs';

runSpecs(__dirname, [
  'listing-hang-up',
  'listing-leases-late',
  'listing-limits',
  'listings-stage-cap',
  'local-restart-leases',
  'store-size-refusal',
]);
