// The worst a single key can cost per day by listing, with and without the cap on listings in
// flight, from the deployed settings (list-budget.ts) and the plans. docs/listing-limits.md
// shows this table; a test keeps the two the same.
import { LIST_SETTINGS } from './list-budget';
import { STREAMING_LIMITS } from '../lib/contract/streaming-limits';
import { LISTINGS_IN_FLIGHT, PLAN_LIMITS, type PlanName } from '../lib/contract/plans';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const DAY_SECONDS = 86_400;

export interface DailyCost {
  plan: PlanName;
  listingsPerDay: number;
  /** Executions one key can keep running at once. */
  concurrent: number;
  egressGiB: number;
  lambdaGbSeconds: number;
}

const memoryGb = () => LIST_SETTINGS.memoryMb / 1024;

/**
 * Without the cap: every listing the day window admits may be the largest Lambda sends (200 MB)
 * and run the whole timeout; the minute window lets a key start perMinute of them a minute.
 */
export function uncappedCost(plan: Exclude<PlanName, 'enterprise'>): DailyCost {
  const { perMinute, perDay } = PLAN_LIMITS[plan];
  const timeout = LIST_SETTINGS.timeoutSeconds;
  return {
    plan,
    listingsPerDay: perDay,
    concurrent: Math.ceil((perMinute * timeout) / 60),
    egressGiB: (perDay * STREAMING_LIMITS.maxResponseBytes) / GiB,
    lambdaGbSeconds: perDay * timeout * memoryGb(),
  };
}

/**
 * With the cap of C listings at once: a key runs at most C executions at any moment, so at most
 * C x 86,400 s a day; each listing sends at most its first 6 MB at full speed and 2 MB/s after
 * that, so the bytes of a day are at most C x 86,400 s x 2 MB/s plus 6 MB per listing, and never
 * more than without the cap.
 */
export function cappedCost(plan: Exclude<PlanName, 'enterprise'>): DailyCost {
  const uncapped = uncappedCost(plan);
  const cap = LISTINGS_IN_FLIGHT[plan];
  const streamedBytes =
    cap * DAY_SECONDS * STREAMING_LIMITS.cappedBytesPerSecond +
    uncapped.listingsPerDay * STREAMING_LIMITS.fullSpeedBytes;
  return {
    plan,
    listingsPerDay: uncapped.listingsPerDay,
    concurrent: cap,
    egressGiB: Math.min(uncapped.egressGiB, streamedBytes / GiB),
    lambdaGbSeconds: Math.min(uncapped.lambdaGbSeconds, cap * DAY_SECONDS * memoryGb()),
  };
}

const n = (value: number) => Math.round(value).toLocaleString('en-US');

/** The table docs/listing-limits.md shows. */
export function dailyCostTable(): string {
  const plans = ['free', 'pro', 'business'] as const;
  const rows = plans.map((plan) => {
    const without = uncappedCost(plan);
    const withCap = cappedCost(plan);
    return `| ${plan} | ${n(without.listingsPerDay)} | ${n(without.concurrent)} / ${n(withCap.concurrent)} | ${n(without.egressGiB)} / ${n(withCap.egressGiB)} | ${n(without.lambdaGbSeconds)} / ${n(withCap.lambdaGbSeconds)} |`;
  });
  return [
    `| Plan | Listings a day (day window) | Executions at once: without / with cap | Egress GiB a day: without / with cap | Lambda GB-s a day (${LIST_SETTINGS.memoryMb} MB, ${LIST_SETTINGS.timeoutSeconds} s): without / with cap |`,
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
