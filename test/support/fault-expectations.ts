import { ERRORS, SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../lib/contract/errors';
import { MAX_ATTEMPTS } from '../../lib/stores/dynamo';
import { LIMITER_CLIENT } from '../../lib/stores/rate-limiter';
import { errorCodeOf, responseProblems } from './documented-response';
import type { SeenCall } from './fault-proxy';
import { headerOf, type RawResponse } from './raw-http';

/** 503 SERVICE_UNAVAILABLE as decisions.md gives it; rate-limit headers only when the limiter answered. */
export function expectUnavailable(response: RawResponse, limiterAnswered: boolean): void {
  expect(responseProblems(response, new Set([ERRORS.SERVICE_UNAVAILABLE.status]))).toEqual([]);
  expect(errorCodeOf(response)).toBe('SERVICE_UNAVAILABLE');
  expect(headerOf(response, 'retry-after')).toBe(String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));
  expect(headerOf(response, 'www-authenticate')).toBeUndefined();
  expect(headerOf(response, 'x-ratelimit-limit') !== undefined).toBe(limiterAnswered);
}

/**
 * At most `atMostCalls` logical SDK calls were seen, each within its attempt budget: the service's
 * usual one, or the limiter's single attempt.
 */
export function expectBoundedAttempts(calls: SeenCall[], atMostCalls: number): void {
  const attempts = new Map<string, number[]>();
  for (const call of calls) attempts.set(call.invocationId, [...(attempts.get(call.invocationId) ?? []), call.attempt]);
  expect(calls.length).toBeGreaterThan(0);
  expect(attempts.size).toBeLessThanOrEqual(atMostCalls);
  for (const [, seen] of attempts) {
    expect(seen.length).toBeLessThanOrEqual(MAX_ATTEMPTS);
    expect(Math.max(...seen)).toBeLessThanOrEqual(MAX_ATTEMPTS);
  }
  for (const call of calls) {
    expect([MAX_ATTEMPTS, LIMITER_CLIENT.maxAttempts]).toContain(call.maxAttempts);
    expect(call.attempt).toBeLessThanOrEqual(call.maxAttempts);
  }
}
