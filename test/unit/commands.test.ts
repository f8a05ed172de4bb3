// The admin and smoke commands' pure parts: argument parsing, the command registry, output, import
// tallies, the tools' AWS time.
// One runner, one load of the modules they share: see test/support/specs.ts.
/* eslint-disable @typescript-eslint/no-require-imports -- a spec's tests register inside its describe */
import { runSpec } from '../support/specs';

runSpec('admin-args', () => require('./admin-args.spec'));
runSpec('admin-registry', () => require('./admin-registry.spec'));
runSpec('admin-output', () => require('./admin-output.spec'));
runSpec('admin-import-tally', () => require('./admin-import-tally.spec'));
runSpec('smoke-args', () => require('./smoke-args.spec'));
runSpec('tool-clock', () => require('./tool-clock.spec'));
