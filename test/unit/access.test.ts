// Who may call what: API key format, key scopes and the authorizer's policy.
// One runner, one load of the modules they share: see test/support/specs.ts.
import { runSpecs } from '../support/specs';

runSpecs(__dirname, ['api-key-format', 'key-scopes', 'policy']);
