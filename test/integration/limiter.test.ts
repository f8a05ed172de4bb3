// The rate limiter against the embedded DynamoDB server: bans, concurrency, late replies, the store.
// One runner, one load of the stack's modules: see test/support/specs.ts.
import { runSpecs } from '../support/specs';

runSpecs(__dirname, [
  'rate-limiter-bans',
  'rate-limiter-concurrency',
  'rate-limiter-late-replies',
  'rate-limiter-store',
]);
