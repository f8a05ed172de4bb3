// Listing orders over HTTP: v1's streamed and compressed listing, its slots and caps, and v2's pages.
// One runner, one load of the stack's modules: see test/support/specs.ts.
import { closeLargeListingStack } from '../support/large-listing';
import { runSpecs } from '../support/specs';

runSpecs(__dirname, [
  'streaming',
  'compressed-listing',
  'listing-slots',
  'stage-cap-quota',
  'v2-listing',
  'v2-client',
  'v2-compressed',
]);

// The large listing that streaming and compressed-listing share, after both.
afterAll(closeLargeListingStack);
