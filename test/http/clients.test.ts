// The project's typed client against the local stack: calls, edge cases, streams and quotas.
// One runner, one load of the stack's modules: see test/support/specs.ts.
/* eslint-disable @typescript-eslint/no-require-imports -- a spec's tests register inside its describe */
import { runSpec } from '../support/specs';

runSpec('client', () => require('./client.spec'));
runSpec('client-edge', () => require('./client-edge.spec'));
runSpec('client-stream', () => require('./client-stream.spec'));
runSpec('client-quota', () => require('./client-quota.spec'));
runSpec('client-webhooks', () => require('./client-webhooks.spec'));
