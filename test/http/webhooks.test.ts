// The webhook endpoint routes over HTTP on the local stack: lifecycle, scopes, ownership, the cap,
// every malformed body, and the URLs refused. One runner, one load: see test/support/specs.ts.
/* eslint-disable @typescript-eslint/no-require-imports -- a spec's tests register inside its describe */
import { runSpec } from '../support/specs';

runSpec('webhook-endpoints', () => require('./webhook-endpoints.spec'));
runSpec('webhook-delivery', () => require('./webhook-delivery.spec'));
runSpec('webhook-outage', () => require('./webhook-outage.spec'));
runSpec('webhook-admin', () => require('./webhook-admin.spec'));
