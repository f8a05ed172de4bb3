// The admin command's key, order, pet and usage commands in process, against the embedded DynamoDB server.
// One runner, one load of the stack's modules: see test/support/specs.ts.
/* eslint-disable @typescript-eslint/no-require-imports -- a spec's tests register inside its describe */
import { runSpec } from '../support/specs';

runSpec('admin-backfill', () => require('./admin-backfill.spec'));
runSpec('admin-canary-key', () => require('./admin-canary-key.spec'));
runSpec('admin-endpoint', () => require('./admin-endpoint.spec'));
runSpec('admin-keys', () => require('./admin-keys.spec'));
runSpec('admin-orders', () => require('./admin-orders.spec'));
runSpec('admin-pets', () => require('./admin-pets.spec'));
runSpec('admin-root', () => require('./admin-root.spec'));
runSpec('admin-usage', () => require('./admin-usage.spec'));
runSpec('admin-webhooks', () => require('./admin-webhooks.spec'));
