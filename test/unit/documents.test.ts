// The declarations and the documents made from them: contract, OpenAPI, generated files, changelog, docs.
// One runner, one load of the modules they share: see test/support/specs.ts.
/* eslint-disable @typescript-eslint/no-require-imports -- a spec's tests register inside its describe */
import { runSpec } from '../support/specs';

runSpec('contract', () => require('./contract.spec'));
runSpec('openapi', () => require('./openapi.spec'));
runSpec('openapi-contract-testers', () => require('./openapi-contract-testers.spec'));
runSpec('openapi-lint', () => require('./openapi-lint.spec'));
runSpec('generated', () => require('./generated.spec'));
runSpec('changelog', () => require('./changelog.spec'));
runSpec('docs-links', () => require('./docs-links.spec'));
runSpec('bench-docs', () => require('./bench-docs.spec'));
runSpec('bench-merge', () => require('./bench-merge.spec'));
runSpec('bench-args', () => require('./bench-args.spec'));
runSpec('bench-peak-rss', () => require('./bench-peak-rss.spec'));
