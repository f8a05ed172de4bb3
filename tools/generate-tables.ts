// The docs' tables that restate declarations, rendered from them for `npm run generate`, so a
// changed plan or cap shows in the docs without a hand edit.
import { LISTINGS_IN_FLIGHT, PLAN_LIMITS, PLAN_NAMES } from '../lib/contract/plans';

const count = (n: number) => n.toLocaleString('en-US');

/** docs/rate-limits.md: each plan's request windows. */
export function planLimitsTable(): string {
  const rows = Object.entries(PLAN_LIMITS).map(
    ([plan, { perMinute, perDay }]) => `| ${plan} | ${count(perMinute)} | ${count(perDay)} |`,
  );
  return [
    '| Plan | Requests per minute | Requests per day |',
    '|---|---|---|',
    ...rows,
    '| enterprise | per key, set when the key is created | per key |',
  ].join('\n');
}

/** docs/listing-limits.md: each plan's cap on listings in flight. */
export function listingsInFlightTable(): string {
  const rows = PLAN_NAMES.map((plan) => {
    const cap = count(LISTINGS_IN_FLIGHT[plan]);
    return plan === 'enterprise'
      ? `| ${plan} | ${cap} (the default for every enterprise key; their custom limits are per minute and per day) |`
      : `| ${plan} | ${cap} |`;
  });
  return ['| Plan | Listings in flight |', '| --- | --- |', ...rows].join('\n');
}
