// The service's handlers, authorizer, stores and release hook against the embedded DynamoDB server.
// One runner, one load of the stack's modules: see test/support/specs.ts.
/* eslint-disable @typescript-eslint/no-require-imports -- a spec's tests register inside its describe */
import { runSpec } from '../support/specs';

runSpec('authorizer', () => require('./authorizer.spec'));
runSpec('handlers', () => require('./handlers.spec'));
runSpec('order-updated-at', () => require('./order-updated-at.spec'));
runSpec('sync-watch', () => require('./sync-watch.spec'));
runSpec('change-stream', () => require('./change-stream.spec'));
runSpec('index-canary', () => require('./index-canary.spec'));
runSpec('orders-repository', () => require('./orders-repository.spec'));
runSpec('call-deadlines', () => require('./call-deadlines.spec'));
runSpec('writer-timeouts', () => require('./writer-timeouts.spec'));
runSpec('round-trips', () => require('./round-trips.spec'));
runSpec('release-hook', () => require('./release-hook.spec'));
runSpec('delivery-queue', () => require('./delivery-queue.spec'));
