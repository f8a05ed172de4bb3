// Exact incremental sync through the local stack under AWS's timing (index lag, late writes, clock
// skew): the scenarios, random interleavings, and the admin command on a machine whose
// clock is off. One runner, one load: see test/support/specs.ts.
/* eslint-disable @typescript-eslint/no-require-imports -- a spec's tests register inside its describe */
import { runSpec } from '../support/specs';

runSpec('sync-exact', () => require('./sync-exact.spec'));
runSpec('sync-contract', () => require('./sync-contract.spec'));
runSpec('sync-interleavings', () => require('./sync-interleavings.spec'));
runSpec('sync-late-landing', () => require('./sync-late-landing.spec'));
runSpec('sync-index-lag', () => require('./sync-index-lag.spec'));
runSpec('tool-clocks', () => require('./tool-clocks.spec'));
