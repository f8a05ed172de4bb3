// The webhook endpoints' store and the resolver check, against the embedded DynamoDB server and the
// system's resolver. One runner, one load: see test/support/specs.ts.
/* eslint-disable @typescript-eslint/no-require-imports -- a spec's tests register inside its describe */
import { runSpec } from '../support/specs';

runSpec('webhook-endpoints-store', () => require('./webhook-endpoints-store.spec'));
runSpec('webhook-destinations', () => require('./webhook-destinations.spec'));
runSpec('webhook-deliveries-store', () => require('./webhook-deliveries-store.spec'));
runSpec('webhook-sender', () => require('./webhook-sender.spec'));
