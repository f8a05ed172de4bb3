// API Gateway's usage-plan throttle, per API key, as the local gateway applies it: a token bucket
// (lib/contract/plans.ts `usagePlanBackstop`: `rateLimit` tokens a second, `burstLimit` at most)
// keyed by the authorizer's usage identifier. API Gateway counts a key's requests in its bucket and
// throttles them with 429 once it is empty. Every request of a key takes a token here too, but only
// the requests the gateway refuses itself (a read-only key's write, 403 by the policy) are ever
// throttled by it: they reach no handler, so this is the limit a flood of them meets. Requests
// that reach the handlers meet the service's own limiter, which the backstop is sized never to
// answer before (`usagePlanBackstop`).
// https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-request-throttling.html
import { isPlanName, usagePlanBackstop } from '../../lib/contract/plans';

interface Bucket {
  tokens: number;
  at: number;
}

export class UsagePlanThrottle {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly now: () => number,
    /** Buckets kept at most (the oldest goes first), as the gateway bounds its authorizer cache. */
    private readonly maxKeys = 10_000,
  ) {}

  /**
   * Takes one token of the key's bucket; false when there was none. A plan without a usage-plan
   * throttle (enterprise: its limits are per key, the stage's throttle bounds it) always has one.
   */
  take(usageIdentifier: string | undefined, plan: unknown): boolean {
    const throttle = usageIdentifier !== undefined && isPlanName(plan) ? usagePlanBackstop(plan).throttle : undefined;
    if (usageIdentifier === undefined || !throttle) return true;
    const now = this.now();
    const stored = this.buckets.get(usageIdentifier);
    const refilled = stored
      ? Math.min(throttle.burstLimit, stored.tokens + (Math.max(0, now - stored.at) * throttle.rateLimit) / 1000)
      : throttle.burstLimit;
    if (!stored && this.buckets.size >= this.maxKeys) this.buckets.delete(this.buckets.keys().next().value as string);
    const took = refilled >= 1;
    this.buckets.set(usageIdentifier, { tokens: took ? refilled - 1 : refilled, at: now });
    return took;
  }
}
