// The index-lag canary's rules as deployed: the declared budget, the deployed writers' settling
// time, the canary's own timing (lib/core/sync/index-lag.ts LagTiming).
import { INDEX_CANARY_TIMING } from '../../lib/contract/index-canary';
import { settleMs, SYNC_TIMING } from '../../lib/contract/sync';
import type { LagTiming } from '../../lib/core/sync/index-lag';
import { REQUEST_TIMEOUT_MS } from '../../lib/stores/dynamo';

export const DEPLOYED_LAG_TIMING: LagTiming = {
  indexLagMs: SYNC_TIMING.indexLagMs,
  settleMs: settleMs(SYNC_TIMING, REQUEST_TIMEOUT_MS),
  clockErrorMs: SYNC_TIMING.clockErrorMs,
  ...INDEX_CANARY_TIMING,
};
