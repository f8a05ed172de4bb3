// The rate limiter against the embedded DynamoDB server: concurrency, its client under lost replies, the store.
// One runner, one load of the stack's modules: see test/support/specs.ts.
/* eslint-disable @typescript-eslint/no-require-imports -- a spec's tests register inside its describe */
import { runSpec } from '../support/specs';

runSpec('rate-limiter-concurrency', () => require('./rate-limiter-concurrency.spec'));
runSpec('rate-limiter-late-replies', () => require('./rate-limiter-late-replies.spec'));
runSpec('rate-limiter-store', () => require('./rate-limiter-store.spec'));
