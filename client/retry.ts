/** How StoreOrdersClient retries: bounded, honouring Retry-After, otherwise backing off. */
export interface RetryPolicy {
  /** Retries after the first attempt; 0 turns retrying off. */
  maxRetries: number;
  /**
   * The backoff ceiling of the first retry; it doubles with each retry. Also the shortest wait a
   * Retry-After gets: `Retry-After: 0` (or a date already past) waits this long, never zero.
   */
  baseDelayMs: number;
  /** The backoff ceiling never grows past this. */
  maxDelayMs: number;
  /**
   * A Retry-After longer than this (a daily quota, a ban) is not waited for: the error is
   * returned at once, so the caller decides instead of the client sleeping for minutes or hours.
   */
  maxRetryAfterMs: number;
}

/**
 * The wait before the retry that follows attempt `attempt` (0 for the first attempt), or undefined
 * when there should be none. The server's Retry-After wins, raised to baseDelayMs so that a
 * `Retry-After: 0` cannot turn the retries into a burst; without it, "full jitter" exponential
 * backoff: a uniform wait up to the doubled ceiling, which spreads out clients that failed together.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  attempt: number,
  retryAfterSeconds: number | undefined,
  random: () => number,
): number | undefined {
  if (attempt >= policy.maxRetries) return undefined;
  if (retryAfterSeconds !== undefined) {
    const ms = retryAfterSeconds * 1000;
    return ms <= policy.maxRetryAfterMs ? Math.max(ms, policy.baseDelayMs) : undefined;
  }
  return Math.floor(random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt));
}
