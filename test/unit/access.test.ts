// Who may call what: API key format, key scopes and the authorizer's policy.
// One runner, one load of the modules they share: see test/support/specs.ts.
/* eslint-disable @typescript-eslint/no-require-imports -- a spec's tests register inside its describe */
import { runSpec } from '../support/specs';

runSpec('api-key-format', () => require('./api-key-format.spec'));
runSpec('key-scopes', () => require('./key-scopes.spec'));
runSpec('policy', () => require('./policy.spec'));
