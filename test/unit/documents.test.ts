// The declarations and the documents made from them: contract, OpenAPI, generated files, changelog, docs.
// One runner, one load of the modules they share: see test/support/specs.ts.
import { runSpecs } from '../support/specs';

runSpecs(__dirname, [
  'contract',
  'openapi',
  'openapi-contract-testers',
  'openapi-lint',
  'generated',
  'changelog',
  'docs-links',
  'bench-docs',
  'bench-merge',
]);
