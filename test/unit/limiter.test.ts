// The limiter's rules as plain functions, its middleware, the in-memory store and the usage-plan backstop.
// One runner, one load of the modules they share: see test/support/specs.ts.
import { runSpecs } from '../support/specs';

runSpecs(__dirname, [
  'rate-limit-middleware',
  'rate-limiter-admit',
  'rate-limiter-memory-store',
  'rate-limiter-rules',
  'rate-windows',
  'quota-deadlines',
  'usage-plan-backstop',
]);
