// The limit on requests from one client address, declared once beside the plans: the stage stack's
// AWS WAF rate-based rule (infra/constructs/address-firewall.ts), the local gateway's emulation of
// it (tools/local/address-limit.ts), the cost model, the docs and the tests read it. It is what a
// flood of refused keys meets: the usage plans and the service's limiter count only accepted keys.

import type { ErrorAnswer } from './errors';
import { BAN, PLAN_LIMITS } from './plans';

/**
 * What AWS WAF's rate-based rule statement takes and does (AWS WAF Developer Guide, "Rate-based rule
 * high-level settings" and "Rate-based rule caveats").
 */
export const WAF_RATE_RULE = {
  /** "The lowest limit setting allowed is 10"; the statement's Limit goes up to 2,000,000,000. */
  minLimit: 10,
  maxLimit: 2_000_000_000,
  /** "Valid settings are 60 (1 minute), 120 (2 minutes), 300 (5 minutes), and 600 (10 minutes)". */
  evaluationWindowsSeconds: [60, 120, 300, 600],
  /**
   * WAF checks the rate "frequently", and a rate over (or back under) the limit can go undetected
   * for a while before it starts (or stops) rate limiting: "Usually, this delay is below 30 seconds."
   */
  delaySeconds: 30,
} as const;

export interface AddressLimit {
  /** Requests from one address within the window above which its requests are blocked. */
  limit: number;
  /** The window WAF counts over, looking back from each check. */
  windowSeconds: number;
}

/**
 * The per-minute limits the keys behind one client address may add up to: three business keys, or
 * any mix of keys (enterprise ones with their custom limits) summing to as much. Several keys share
 * an address behind a NAT or a shared egress; an enterprise key whose custom per-minute limit is
 * above this must be spread over addresses, or the budget raised (docs/rate-limits.md).
 */
export const ADDRESS_PER_MINUTE_BUDGET = 3 * PLAN_LIMITS.business.perMinute;

/** WAF's shortest window: a flood is counted, and let go of, soonest. */
export const ADDRESS_WINDOW_SECONDS = 60;

/**
 * The most requests that keys whose per-minute limits add up to `perMinute` send within any window
 * of `windowSeconds` without being banned: the window meets ceil(window / 60) + 1 calendar minutes,
 * and in each a key is served its per-minute limit and refused at most the ban's share of it more
 * (BAN.rejectedPerMinuteFactor; one refusal more in a minute bans the key). A client that honours
 * Retry-After sends one refusal and waits, so that allowance also holds its TOO_MANY_LISTINGS polls
 * and 503 retries, and is the margin for WAF's estimate, which "does not guarantee an exact limit
 * match". It is also the most a key's usage plan lets through in a minute (a burst of two minutes,
 * refilled at two minutes a minute: plans.ts usagePlanBackstop).
 */
export function legitimateRequestsInWindow(perMinute: number, windowSeconds: number): number {
  const minutes = Math.ceil(windowSeconds / 60) + 1;
  return minutes * (1 + BAN.rejectedPerMinuteFactor) * perMinute;
}

/** The rule every stage's web ACL applies, per client address (the connection's, as WAF's aggregate key IP). */
export const ADDRESS_LIMIT: AddressLimit = {
  limit: legitimateRequestsInWindow(ADDRESS_PER_MINUTE_BUDGET, ADDRESS_WINDOW_SECONDS),
  windowSeconds: ADDRESS_WINDOW_SECONDS,
};

/** Why a limit cannot be a WAF rate-based rule's, or undefined when it can. */
export function addressLimitProblem({ limit, windowSeconds }: AddressLimit): string | undefined {
  if (!Number.isInteger(limit) || limit < WAF_RATE_RULE.minLimit || limit > WAF_RATE_RULE.maxLimit)
    return `the address limit must be a whole number from ${WAF_RATE_RULE.minLimit} to ${WAF_RATE_RULE.maxLimit}, got ${limit}`;
  if (!(WAF_RATE_RULE.evaluationWindowsSeconds as readonly number[]).includes(windowSeconds))
    return `the address limit's window must be one of ${WAF_RATE_RULE.evaluationWindowsSeconds.join(', ')} seconds, got ${windowSeconds}`;
  return undefined;
}

/**
 * Seconds a blocked client should wait: once an address has sent nothing for a whole window, the
 * next check finds it under the limit, and checks come within WAF's delay. Requests sent while
 * blocked are counted too, so an early retry keeps the address blocked.
 */
export const ADDRESS_RETRY_AFTER_SECONDS = ADDRESS_WINDOW_SECONDS + WAF_RATE_RULE.delaySeconds;

/** The web ACL's answer to a blocked request: WAF's custom response, the local gateway's too. */
export const ADDRESS_LIMITED_ANSWER: ErrorAnswer = {
  code: 'ADDRESS_RATE_LIMITED',
  headers: { 'Retry-After': String(ADDRESS_RETRY_AFTER_SECONDS) },
};
