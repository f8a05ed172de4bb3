// Webhooks' rules: where events may go (URL and address rules), the endpoint request's body, and the
// signatures, checked against the receivers' own package. One runner: see test/support/specs.ts.
/* eslint-disable @typescript-eslint/no-require-imports -- a spec's tests register inside its describe */
import { runSpec } from '../support/specs';

runSpec('webhook-url-rules', () => require('./webhook-url-rules.spec'));
runSpec('webhook-endpoint-request', () => require('./webhook-endpoint-request.spec'));
runSpec('webhook-signature', () => require('./webhook-signature.spec'));
runSpec('webhook-delivery-rules', () => require('./webhook-delivery-rules.spec'));
