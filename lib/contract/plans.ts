// Plans, declared once: read by the limiter, the admin command, the local stack and the CDK
// usage plans. Limits are per API key.

export const PLAN_NAMES = ['free', 'pro', 'business', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface Limits {
  perMinute: number;
  perDay: number;
}

/** Enterprise limits are custom: given when its key is created and stored with the key. */
export const PLAN_LIMITS: Record<Exclude<PlanName, 'enterprise'>, Limits> = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
};

/** The plans whose limits are the plan's own (PLAN_LIMITS), in PLAN_NAMES order; the others' are custom, per key. */
export type FixedLimitPlan = keyof typeof PLAN_LIMITS;
export const FIXED_LIMIT_PLANS: readonly FixedLimitPlan[] = PLAN_NAMES.filter(
  (plan): plan is FixedLimitPlan => plan in PLAN_LIMITS,
);

/**
 * Listings of the whole store a key may have running at once (GET /store/orders streams for up to
 * the function's timeout). Every plan needs at most a few: one client reads one listing at a time.
 * Enterprise keys get the default below (their custom limits are per minute and per day only).
 * docs/listing-limits.md shows what the cap bounds per key and per day.
 */
export const LISTINGS_IN_FLIGHT: Record<PlanName, number> = {
  free: 1,
  pro: 2,
  business: 4,
  enterprise: 8,
};

/**
 * A key that sends, within one minute window, more rejected requests than its per-minute limit is
 * banned for this long.
 */
export const BAN = {
  /** Rejections allowed in one minute window, as a multiple of the per-minute limit. */
  rejectedPerMinuteFactor: 1,
  durationSeconds: 15 * 60,
} as const;

/** Upper bound accepted for custom enterprise limits, so a typo cannot disable limiting. */
export const MAX_CUSTOM_LIMITS: Limits = { perMinute: 1_000_000, perDay: 1_000_000_000 };

export function isPlanName(value: unknown): value is PlanName {
  return typeof value === 'string' && (PLAN_NAMES as readonly string[]).includes(value);
}

/** The limits of a key: its plan's, or for enterprise the custom ones stored with the key. */
export function limitsFor(plan: PlanName, custom?: Partial<Limits>): Limits {
  if (plan !== 'enterprise') return PLAN_LIMITS[plan];
  const { perMinute, perDay } = custom ?? {};
  if (!isValidLimit(perMinute, MAX_CUSTOM_LIMITS.perMinute) || !isValidLimit(perDay, MAX_CUSTOM_LIMITS.perDay)) {
    throw new Error('An enterprise key needs custom perMinute and perDay limits.');
  }
  return { perMinute, perDay };
}

function isValidLimit(value: unknown, max: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 && value <= max;
}

export function isValidCustomLimits(limits: Partial<Limits>): limits is Limits {
  return (
    isValidLimit(limits.perMinute, MAX_CUSTOM_LIMITS.perMinute) && isValidLimit(limits.perDay, MAX_CUSTOM_LIMITS.perDay)
  );
}

/**
 * API Gateway usage-plan backstop for a tier. Enterprise limits are per key, so its usage plan only
 * has the stage default throttling.
 */
export interface UsagePlanBackstop {
  throttle?: { rateLimit: number; burstLimit: number };
  quotaPerDay?: number;
}

/**
 * Sized so that the backstop (a token bucket) can never refuse a request the service's own limiter
 * (fixed minute and day windows) would accept, so the limiter always answers first, with its headers:
 * - a key may spend one window's whole limit at its last instant and the next window's at its first,
 *   so the burst holds two windows' worth;
 * - after such a double burst, each later window adds at most one more limit, so any refill of at
 *   least one limit per minute keeps up; the rate is twice that, so honest clients never meet it;
 * - rejected requests also count against the gateway quota, so the quota is 3x the daily limit.
 */
export function usagePlanBackstop(plan: PlanName): UsagePlanBackstop {
  if (plan === 'enterprise') return {};
  const { perMinute, perDay } = PLAN_LIMITS[plan];
  return {
    throttle: { rateLimit: Math.ceil((2 * perMinute) / 60), burstLimit: 2 * perMinute },
    quotaPerDay: 3 * perDay,
  };
}
