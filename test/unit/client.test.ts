// The typed client's pure parts: retry, Retry-After, its gates and its stream reader.
// One runner, one load of the modules they share: see test/support/specs.ts.
import { runSpecs } from '../support/specs';

runSpecs(__dirname, ['client-gates', 'client-retry-after', 'client-retry', 'client-stream']);
