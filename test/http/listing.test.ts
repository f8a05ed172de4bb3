// Listing orders over HTTP: v1's streamed and compressed listing, its slots and caps, and v2's pages.
// One runner, one load of the stack's modules: see test/support/specs.ts.
/* eslint-disable @typescript-eslint/no-require-imports -- a spec's tests register inside its describe */
import { runSpec } from '../support/specs';

runSpec('streaming', () => require('./streaming.spec'));
runSpec('compressed-listing', () => require('./compressed-listing.spec'));
runSpec('listing-bytes', () => require('./listing-bytes.spec'));
runSpec('listing-slots', () => require('./listing-slots.spec'));
runSpec('stage-cap-quota', () => require('./stage-cap-quota.spec'));
runSpec('v2-listing', () => require('./v2-listing.spec'));
runSpec('v2-cursor-keys', () => require('./v2-cursor-keys.spec'));
runSpec('v2-client', () => require('./v2-client.spec'));
runSpec('v2-compressed', () => require('./v2-compressed.spec'));
