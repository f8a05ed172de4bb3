// Listing slots and refusals against the embedded DynamoDB server: hang-ups, leases, limits, caps.
// One runner, one load of the stack's modules: see test/support/specs.ts.
/* eslint-disable @typescript-eslint/no-require-imports -- a spec's tests register inside its describe */
import { runSpec } from '../support/specs';

runSpec('listing-hang-up', () => require('./listing-hang-up.spec'));
runSpec('listing-leases-late', () => require('./listing-leases-late.spec'));
runSpec('listing-limits', () => require('./listing-limits.spec'));
runSpec('listings-stage-cap', () => require('./listings-stage-cap.spec'));
runSpec('local-restart-leases', () => require('./local-restart-leases.spec'));
runSpec('store-size-refusal', () => require('./store-size-refusal.spec'));
