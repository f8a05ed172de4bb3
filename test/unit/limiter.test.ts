// The limiter's rules as plain functions, its middleware, its time budget, the in-memory store, the
// usage-plan backstop and the web ACL's limit per client address.
// One runner, one load of the modules they share: see test/support/specs.ts.
/* eslint-disable @typescript-eslint/no-require-imports -- a spec's tests register inside its describe */
import { runSpec } from '../support/specs';

runSpec('rate-limit-middleware', () => require('./rate-limit-middleware.spec'));
runSpec('rate-limiter-admit', () => require('./rate-limiter-admit.spec'));
runSpec('rate-limiter-budget', () => require('./rate-limiter-budget.spec'));
runSpec('rate-limiter-memory-store', () => require('./rate-limiter-memory-store.spec'));
runSpec('rate-limiter-rules', () => require('./rate-limiter-rules.spec'));
runSpec('rate-windows', () => require('./rate-windows.spec'));
runSpec('quota-deadlines', () => require('./quota-deadlines.spec'));
runSpec('usage-plan-backstop', () => require('./usage-plan-backstop.spec'));
runSpec('address-limit', () => require('./address-limit.spec'));
