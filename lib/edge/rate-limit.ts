import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Deadline } from '../commons/deadline';
import type { Caller } from '../core/access/caller';
import type { RateLimiter, TimeBudget, WindowState } from '../stores/rate-limiter';
import { refusalAt } from '../core/limiter/windows';
import { RATE_LIMIT_HEADERS } from '../contract/headers';
import { FUNCTIONS } from '../contract/deployment';
import { RateLimitRejectedError } from './http-errors';
import { businessMetrics } from './metrics';

export function rateLimitHeaders(state: WindowState): Record<string, string> {
  return {
    [RATE_LIMIT_HEADERS.limit]: String(state.limit),
    [RATE_LIMIT_HEADERS.remaining]: String(state.remaining),
    [RATE_LIMIT_HEADERS.reset]: String(state.resetAt),
  };
}

/** The window state each request's answer describes, by request. */
const states = new WeakMap<APIGatewayProxyEvent, WindowState>();
/** How to give back each admitted request's slot, by request. */
const givers = new WeakMap<APIGatewayProxyEvent, () => Promise<void>>();

/**
 * Gives back the slot the limiter counted this request in, once, when the route refuses it for a
 * reason of its own that must not cost the key its quota (TOO_MANY_LISTINGS); its answer's
 * headers then count the slot as free. Nothing when the request was not admitted.
 */
export async function uncount(event: APIGatewayProxyEvent): Promise<void> {
  const giveBack = givers.get(event);
  givers.delete(event);
  await giveBack?.();
}

/** What the limiter's time budget needs from the route: see lib/core/limiter/budget.ts. */
export interface AdmissionTime {
  /**
   * Kept back from the function's deadline: to send the answer, and the landing margin every write
   * ends before it (lib/commons/deadline.ts).
   */
  marginMs: number;
  /** DynamoDB calls the route's work makes once admitted. */
  workCalls: number;
  /** The request's deadline, which the limiter's calls carry; none when the context gives none. */
  deadlineOf?: (event: APIGatewayProxyEvent) => Deadline | undefined;
}

/**
 * How long before the limiter runs a request can have arrived: the authorizer's deadline, and a
 * second for the gateway. An arrival time outside it (later than the limiter's clock, or older) is
 * another clock's, not this request's wait, and the limiter's own clock decides the windows.
 */
const ARRIVAL_TRUSTED_MS = (FUNCTIONS.authorizer.timeoutSeconds + 1) * 1000;

/**
 * The request's budget, from the function's remaining time, and when the gateway received it
 * (API Gateway's requestTimeEpoch); none when the context has no deadline.
 */
function budgetOf(
  event: APIGatewayProxyEvent,
  context: Partial<Context> | undefined,
  time: AdmissionTime,
  nowMs: number,
): TimeBudget | undefined {
  const remaining = context?.getRemainingTimeInMillis?.bind(context);
  const arrivedAtMs = event.requestContext?.requestTimeEpoch;
  const waited = typeof arrivedAtMs === 'number' ? nowMs - arrivedAtMs : -1;
  const deadline = time.deadlineOf?.(event);
  return (
    remaining && {
      remainingMs: () => remaining() - time.marginMs,
      workCalls: time.workCalls,
      ...(waited >= 0 && waited <= ARRIVAL_TRUSTED_MS ? { arrivedAtMs } : {}),
      ...(deadline ? { deadline } : {}),
    }
  );
}

/**
 * Admits or rejects before the handler runs, and puts the rate-limit headers on whatever
 * response follows: success, domain error, rejection or a failure inside the handler. A 5xx
 * raised before the limiter answered has no window to describe, so it carries none. A refusal is
 * answered as soon as the limiter decides, so its Reset and Retry-After are taken from the clock
 * then, not from when the request started. With the function's remaining time, a request that
 * could no longer be served before the deadline is answered 503 without using a slot.
 */
export function rateLimit<R extends { headers?: APIGatewayProxyResult['headers'] }>(
  limiter: Pick<RateLimiter, 'admit' | 'now'> & Partial<Pick<RateLimiter, 'giveBack'>>,
  caller: (request: { event: APIGatewayProxyEvent }) => Caller,
  time: AdmissionTime = { marginMs: 0, workCalls: 0 },
): middy.MiddlewareObj<APIGatewayProxyEvent, R, Error, Context> {
  type Request = middy.Request<APIGatewayProxyEvent, R, Error, Context>;
  const addHeaders = (request: Request): void => {
    const state = states.get(request.event);
    if (!state || !request.response) return;
    request.response.headers = { ...request.response.headers, ...rateLimitHeaders(state) };
  };
  return {
    before: async (request) => {
      const { keyId, plan, limits } = caller(request);
      const budget = budgetOf(request.event, request.context, time, limiter.now());
      const admission = await limiter.admit(keyId, limits, budget);
      if (admission.admitted) {
        const { event } = request;
        states.set(event, admission.headers);
        const { giveBack } = limiter;
        if (giveBack) {
          givers.set(event, async () => {
            await giveBack.call(limiter, keyId, admission.slot, budget?.deadline);
            // Both counts went back down: the answer tells the key what it really has left.
            const state = states.get(event);
            if (state) states.set(event, { ...state, remaining: Math.min(state.limit, state.remaining + 1) });
          });
        }
        return;
      }
      const { headers, retryAfterSeconds } = refusalAt(admission.headers, limiter.now());
      states.set(request.event, headers);
      businessMetrics.refusal(admission.reason, plan);
      if (admission.banStarted) businessMetrics.ban(plan);
      throw new RateLimitRejectedError(admission.reason, retryAfterSeconds);
    },
    after: addHeaders,
    onError: addHeaders,
  };
}
