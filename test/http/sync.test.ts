// Exact incremental sync through the local stack under AWS's timing (index lag, late writes, clock
// skew): the scenarios and random interleavings. One runner, one load: see test/support/specs.ts.
import { runSpecs } from '../support/specs';

runSpecs(__dirname, ['sync-exact', 'sync-interleavings']);
