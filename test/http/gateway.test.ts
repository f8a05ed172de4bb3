// The local gateway over HTTP: authorisation, framing, API Gateway's answers, limits, logs and routes,
// and the web ACL's limit per client address in front of it.
// One runner, one load of the stack's modules: see test/support/specs.ts.
/* eslint-disable @typescript-eslint/no-require-imports -- a spec's tests register inside its describe */
import { runSpec } from '../support/specs';

runSpec('gateway-auth', () => require('./gateway-auth.spec'));
runSpec('gateway-half-sent', () => require('./gateway-half-sent.spec'));
runSpec('gateway-like-api-gateway', () => require('./gateway-like-api-gateway.spec'));
runSpec('gateway-malformed', () => require('./gateway-malformed.spec'));
runSpec('gateway-orders', () => require('./gateway-orders.spec'));
runSpec('gateway-rate-limits', () => require('./gateway-rate-limits.spec'));
runSpec('access-log', () => require('./access-log.spec'));
runSpec('proxy-event', () => require('./proxy-event.spec'));
runSpec('prototype-names', () => require('./prototype-names.spec'));
runSpec('deprecation', () => require('./deprecation.spec'));
runSpec('pets', () => require('./pets.spec'));
runSpec('function-deadlines', () => require('./function-deadlines.spec'));
runSpec('address-flood', () => require('./address-flood.spec'));
