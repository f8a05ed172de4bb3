// docs/listing-limits.md's worked arithmetic of the worst daily cost per key, rendered for
// `npm run generate` from the same settings and plans as the cost table (infra/listing-cost.ts).
import { LIST_SETTINGS } from '../infra/list-budget';
import { cappedCost, uncappedCost } from '../infra/listing-cost';
import {
  FIXED_LIMIT_PLANS,
  LISTINGS_IN_FLIGHT,
  PLAN_LIMITS,
  PLAN_NAMES,
  type FixedLimitPlan,
} from '../lib/contract/plans';
import { STREAMING_LIMITS } from '../lib/contract/streaming-limits';
import { count } from './generate-docs';

const MiB = 1024 * 1024;
const DAY = 86_400;
/** The plan worked through in full; every other plan gets a line of its own. */
const WORKED: FixedLimitPlan = 'free';
/** GiB from MiB, and GB-s figures, as the cost table rounds them. */
const whole = (value: number) => count(Math.round(value));

/** The bytes of a day with the cap, when that bounds them more than the day window does. */
function cappedBytesLine(cap: number, perDay: number, uncappedGiB: number): string {
  const perSecond = STREAMING_LIMITS.cappedBytesPerSecond / MiB;
  const fullSpeed = STREAMING_LIMITS.fullSpeedBytes / MiB;
  const mib = cap * DAY * perSecond + perDay * fullSpeed;
  const bound = mib / 1024 < uncappedGiB ? '' : ', no less than without the cap, so the day window bounds them';
  return `${cap === 1 ? '' : `${cap} × `}${count(DAY)} × ${count(perSecond)} + ${count(perDay)} × ${count(fullSpeed)} = ${count(mib)} MiB = ${whole(mib / 1024)} GiB${bound}`;
}

/** docs/listing-limits.md: the worked arithmetic under the cost table, from the same settings and plans. */
export function dailyCostArithmetic(): string {
  const { memoryMb, timeoutSeconds: t } = LIST_SETTINGS;
  const gb = memoryMb / 1024;
  const gbText = gb.toFixed(4);
  const maxMiB = STREAMING_LIMITS.maxResponseBytes / MiB;
  const { perMinute, perDay } = PLAN_LIMITS[WORKED];
  const free = uncappedCost(WORKED);
  const cap = LISTINGS_IN_FLIGHT[WORKED];
  const one = cap === 1;
  const others = FIXED_LIMIT_PLANS.filter((plan) => plan !== WORKED).map((plan) => {
    const c = LISTINGS_IN_FLIGHT[plan];
    const bytes = cappedBytesLine(c, PLAN_LIMITS[plan].perDay, uncappedCost(plan).egressGiB);
    const lambda = `${c} × ${count(DAY)} × ${gbText} = ${whole(cappedCost(plan).lambdaGbSeconds)} GB-s`;
    return `- ${plan}: cap ${c}, so ${bytes} and ${lambda}.`;
  });
  const slotGiB = (DAY * STREAMING_LIMITS.cappedBytesPerSecond) / MiB / 1024;
  // Plans with custom limits (given per key): their bounds in terms of the key's day limit.
  const custom = PLAN_NAMES.filter((plan) => !(FIXED_LIMIT_PLANS as readonly string[]).includes(plan));
  return [
    `The arithmetic, for ${WORKED} (day limit ${count(perDay)}, minute limit ${count(perMinute)}, cap ${cap}):`,
    '',
    `- Without the cap, every admitted listing may be the largest (${count(maxMiB)} MB) and run the whole ${t} s`,
    `  (a slow client): egress ${count(perDay)} × ${count(maxMiB)} MiB = ${count(perDay * maxMiB)} MiB = ${whole(free.egressGiB)} GiB; Lambda ${count(perDay)} × ${t} s ×`,
    `  ${count(memoryMb)}/1,024 GB = ${whole(free.lambdaGbSeconds)} GB-s; at once ${count(perMinute)} a minute × ${t} s / 60 = ${count(free.concurrent)} executions, more than the`,
    "  function's reserved concurrency: one key could take all of it.",
    `- With the cap, ${one ? 'one execution' : `${cap} executions`} at a time: at most ${one ? '' : `${cap} × `}${count(DAY)} s a day, so Lambda ${one ? '' : `${cap} × `}${count(DAY)} × ${gbText} GB =`,
    `  ${whole(cappedCost(WORKED).lambdaGbSeconds)} GB-s; bytes at most ${count(STREAMING_LIMITS.cappedBytesPerSecond / MiB)} MiB/s over those seconds plus the ${count(STREAMING_LIMITS.fullSpeedBytes / MiB)} MiB full-speed start of each`,
    `  listing: ${cappedBytesLine(cap, perDay, free.egressGiB)}.`,
    ...others,
    ...custom.flatMap((plan) => {
      const c = LISTINGS_IN_FLIGHT[plan];
      return [
        `- ${plan}: without the cap, day limit × ${count(maxMiB)} MiB and day limit × ${whole(t * gb)} GB-s; with it, at most`,
        `  ${c} executions (${whole(c * DAY * gb)} GB-s) and ${c} × ${count(slotGiB)} GiB + day limit × ${count(STREAMING_LIMITS.fullSpeedBytes / MiB)} MiB.`,
      ];
    }),
    '',
    `For the ${WORKED} plan the cap changes the daily bytes little (its day window already bounds them); what`,
    `it changes is the executions one key can hold at once, ${count(free.concurrent)} to ${cap}, which is what keeps other keys'`,
    'listings from being throttled. For the larger plans it bounds both. With the cap, the Lambda bound',
    `does not depend on the timeout: a slot is busy at most ${count(DAY)} s a day.`,
  ].join('\n');
}
