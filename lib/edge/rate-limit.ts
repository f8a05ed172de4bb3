import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Caller } from '../core/caller';
import type { RateLimiter, WindowState } from '../stores/rate-limiter';
import { refusalAt } from '../core/windows';
import { RATE_LIMIT_HEADERS } from '../contract/headers';
import { RateLimitRejectedError } from './http-errors';
import { businessMetrics } from './metrics';

export function rateLimitHeaders(state: WindowState): Record<string, string> {
  return {
    [RATE_LIMIT_HEADERS.limit]: String(state.limit),
    [RATE_LIMIT_HEADERS.remaining]: String(state.remaining),
    [RATE_LIMIT_HEADERS.reset]: String(state.resetAt),
  };
}

/**
 * Admits or rejects before the handler runs, and puts the rate-limit headers on whatever
 * response follows: success, domain error, rejection or a failure inside the handler. A 5xx
 * raised before the limiter answered has no window to describe, so it carries none. A refusal is
 * answered as soon as the limiter decides, so its Reset and Retry-After are taken from the clock
 * then, not from when the request started.
 */
export function rateLimit<R extends { headers?: APIGatewayProxyResult['headers'] }>(
  limiter: Pick<RateLimiter, 'admit' | 'now'>,
  caller: (request: { event: APIGatewayProxyEvent }) => Caller,
): middy.MiddlewareObj<APIGatewayProxyEvent, R, Error, Context> {
  type Request = middy.Request<APIGatewayProxyEvent, R, Error, Context>;
  const states = new WeakMap<Request, WindowState>();
  const addHeaders = (request: Request): void => {
    const state = states.get(request);
    if (!state || !request.response) return;
    request.response.headers = { ...request.response.headers, ...rateLimitHeaders(state) };
  };
  return {
    before: async (request) => {
      const { keyId, plan, limits } = caller(request);
      const admission = await limiter.admit(keyId, limits);
      if (admission.admitted) {
        states.set(request, admission.headers);
        return;
      }
      const { headers, retryAfterSeconds } = refusalAt(admission.headers, limiter.now());
      states.set(request, headers);
      businessMetrics.refusal(admission.reason, plan);
      if (admission.banStarted) businessMetrics.ban(plan);
      throw new RateLimitRejectedError(admission.reason, retryAfterSeconds);
    },
    after: addHeaders,
    onError: addHeaders,
  };
}
