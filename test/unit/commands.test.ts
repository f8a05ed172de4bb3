// The admin and smoke commands' pure parts: argument parsing, the command registry, output, import tallies.
// One runner, one load of the modules they share: see test/support/specs.ts.
import { runSpecs } from '../support/specs';

runSpecs(__dirname, ['admin-args', 'admin-registry', 'admin-output', 'admin-import-tally', 'smoke-args']);
