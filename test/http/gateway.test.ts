// The local gateway over HTTP: authorisation, framing, API Gateway's answers, limits, logs and routes.
// One runner, one load of the stack's modules: see test/support/specs.ts.
import { runSpecs } from '../support/specs';

runSpecs(__dirname, [
  'gateway-auth',
  'gateway-half-sent',
  'gateway-like-api-gateway',
  'gateway-malformed',
  'gateway-orders',
  'gateway-rate-limits',
  'access-log',
  'proxy-event',
  'deprecation',
  'pets',
  'function-deadlines',
]);
