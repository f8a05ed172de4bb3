// The usage-plan backstop against the service's limiter: API Gateway's throttle is a token bucket,
// the service counts fixed minute windows. The bucket is simulated here (refilled continuously,
// full at the start) and fed request patterns the service's windows accept.
import fc from 'fast-check';
import { PLAN_LIMITS, usagePlanBackstop, type PlanName } from '../../lib/contract/plans';

const MINUTE_MS = 60_000;

/** How many of the requests (times in ms, ascending) a token bucket would throttle. */
function throttledBy(bucket: { rateLimit: number; burstLimit: number }, timesMs: readonly number[]): number {
  let tokens = bucket.burstLimit;
  let lastMs = timesMs[0] ?? 0;
  let throttled = 0;
  for (const t of timesMs) {
    tokens = Math.min(bucket.burstLimit, tokens + ((t - lastMs) / 1000) * bucket.rateLimit);
    lastMs = t;
    if (tokens >= 1) tokens -= 1;
    else throttled += 1;
  }
  return throttled;
}

/** Whether the service's fixed minute windows accept every request of the pattern. */
function withinMinuteWindows(perMinute: number, timesMs: readonly number[]): boolean {
  const perWindow = new Map<number, number>();
  for (const t of timesMs)
    perWindow.set(Math.floor(t / MINUTE_MS), (perWindow.get(Math.floor(t / MINUTE_MS)) ?? 0) + 1);
  return [...perWindow.values()].every((count) => count <= perMinute);
}

/**
 * A full window's worth at :59.9 and the next window's at :00.0, repeated at every other minute edge
 * (each window can take part in one such double burst only).
 */
function edgeBursts(perMinute: number, doubles: number): number[] {
  const times: number[] = [];
  for (let d = 0; d < doubles; d += 1) {
    const edge = (2 * d + 1) * MINUTE_MS;
    for (let i = 0; i < perMinute; i += 1) times.push(edge - 100);
    for (let i = 0; i < perMinute; i += 1) times.push(edge);
  }
  return times;
}

const PLANS = Object.keys(PLAN_LIMITS) as Exclude<PlanName, 'enterprise'>[];

describe.each(PLANS)('the %s backstop', (plan) => {
  const { perMinute, perDay } = PLAN_LIMITS[plan];
  const backstop = usagePlanBackstop(plan);
  const throttle = backstop.throttle;
  if (!throttle) throw new Error(`${plan} has no backstop throttle`);

  test('never throttles a full window spent at :59.9 followed by the next at :00.0, again and again', () => {
    const pattern = edgeBursts(perMinute, 3);
    expect(withinMinuteWindows(perMinute, pattern)).toBe(true);
    expect(throttledBy(throttle, pattern)).toBe(0);
  });

  test('a bucket holding one window only would throttle that pattern (the simulation can fail)', () => {
    expect(throttledBy({ ...throttle, burstLimit: perMinute }, edgeBursts(perMinute, 1))).toBeGreaterThan(0);
  });

  test('never throttles any pattern the minute windows accept', () => {
    // Offsets lean on the window edges, where bursts hurt a token bucket most.
    const offset = fc.oneof(
      fc.constantFrom(0, 1, MINUTE_MS - 100, MINUTE_MS - 1),
      fc.integer({ min: 0, max: MINUTE_MS - 1 }),
    );
    const minute = fc.array(offset, { maxLength: perMinute });
    fc.assert(
      fc.property(fc.array(minute, { minLength: 1, maxLength: 5 }), (minutes) => {
        const pattern = minutes.flatMap((offsets, m) => offsets.map((o) => m * MINUTE_MS + o)).sort((a, b) => a - b);
        return withinMinuteWindows(perMinute, pattern) && throttledBy(throttle, pattern) === 0;
      }),
      { numRuns: 200 },
    );
  });

  test('its daily quota is above the daily limit, rejected requests included', () => {
    expect(backstop.quotaPerDay).toBeGreaterThanOrEqual(2 * perDay);
  });
});

test('enterprise limits are per key, so its plan has no backstop of its own', () => {
  expect(usagePlanBackstop('enterprise')).toEqual({});
});
