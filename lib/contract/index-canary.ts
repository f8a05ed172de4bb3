// The index-lag canary, declared once: the sentinel item it writes to the orders table and reads back
// through each global secondary index, and its timing. Read by the canary (lib/edge/index-canary-handler.ts),
// the walks that hold their watermark back by what it measures, the sync watch that repairs what a lag
// over the budget may have hidden, the schedule the stack deploys, the local stack and the docs
// (docs/design.md#the-index-lag-canary).

/**
 * The sentinel's id: twenty nines. Order ids are int64, at most 19 digits (and no uint64 reaches
 * it); DynamoDB numbers hold 38, so no order can have it. With no leading or trailing zero
 * ("Leading and trailing zeroes are trimmed", DynamoDB's number type, HowItWorks.NamingRulesDataTypes.html)
 * its plain digits are the one way DynamoDB gives it back, so an item's `id.N` is compared as text
 * (isSentinel, lib/core/sync/sentinel.ts).
 */
export const SENTINEL_ID = '99999999999999999999';

/**
 * The sentinel's partition key in each index of the orders table. No walk queries it: a walk reads
 * `all#<shard>` (by-update) or `<status>#<shard>` (by-status), lib/core/sync/keys.ts.
 */
export const SENTINEL_INDEX_PARTITION = 'index-canary';

export const INDEX_CANARY = {
  /** How often the canary runs: EventBridge Scheduler's `rate(1 minute)`, its finest rate. */
  periodSeconds: 60,
  /**
   * How late the canary's writes may be and still count as on time: a run started late by the
   * schedule or a cold start, a write taking its attempt timeout, a walk's copy of the record kept
   * (readerCacheMs). A record with no newer probe than a period and this is stale.
   */
  lateAllowanceMs: 10_000,
  /**
   * How long a run reads its probe back before it counts it unseen: below the function's timeout,
   * with room for its writes. A lag beyond it is not measured: walks then vouch for nothing past the
   * last probe seen.
   */
  readBackMs: 40_000,
  /** Between two reads of the probe through an index: the measurement's resolution. */
  pollMs: 200,
  /** How long a walk's function keeps the canary's record before it reads it again. */
  readerCacheMs: 1_000,
  /** The measurements the record keeps: enough for every hold still in force (a period and its lag). */
  keptMeasurements: 4,
} as const;

/** The canary's timing in milliseconds, as its rules take it (lib/core/sync/index-lag.ts). */
export const INDEX_CANARY_TIMING = {
  periodMs: INDEX_CANARY.periodSeconds * 1000,
  lateAllowanceMs: INDEX_CANARY.lateAllowanceMs,
  readBackMs: INDEX_CANARY.readBackMs,
} as const;
