// The rate-limit middleware turns a refusal into its answer when the answer is made: a limiter
// that took long to decide must not produce a Retry-After counted from when the request started,
// nor a Reset already in the past.
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Admission } from '../../lib/stores/rate-limiter';
import { PLAN_LIMITS } from '../../lib/contract/plans';
import { rateLimit } from '../../lib/edge/rate-limit';
import { RateLimitRejectedError } from '../../lib/edge/http-errors';
import type { Caller } from '../../lib/core/access/caller';
import { MINUTE_SECONDS, windowAt } from '../../lib/core/limiter/windows';

const free = PLAN_LIMITS.free;
const caller: Caller = { keyId: 'k', plan: 'free', limits: free };
const minuteEnd = Date.parse('2026-11-22T10:01:00Z') / 1000;

/** Runs the middleware for one request whose admission is answered at `answeredAtMs`. */
async function answer(admission: Admission, answeredAtMs: number) {
  const middleware = rateLimit<{ statusCode: number; headers?: Record<string, string> }>(
    { admit: async () => admission, now: () => answeredAtMs },
    () => caller,
  );
  const request = { event: {} as APIGatewayProxyEvent, response: { statusCode: 429 } } as unknown as Parameters<
    NonNullable<typeof middleware.before>
  >[0];
  const error = await Promise.resolve(middleware.before?.(request)).then(
    () => undefined,
    (e: unknown) => e,
  );
  await (error ? middleware.onError : middleware.after)?.(request);
  return { error, headers: request.response?.headers };
}

const refused: Admission = {
  admitted: false,
  reason: 'RATE_LIMITED',
  headers: { limit: free.perMinute, remaining: 0, resetAt: minuteEnd },
};

test('Retry-After is counted from the moment of the answer', async () => {
  const { error, headers } = await answer(refused, Date.parse('2026-11-22T10:00:50.200Z'));
  expect(error).toBeInstanceOf(RateLimitRejectedError);
  expect((error as RateLimitRejectedError).retryAfterSeconds).toBe(10);
  expect(headers).toMatchObject({
    'X-RateLimit-Reset': String(minuteEnd),
    'X-RateLimit-Remaining': '0',
    'X-RateLimit-Limit': String(free.perMinute),
  });
});

test('a refusal answered after its window ended reports a Reset one second ahead and Retry-After 1', async () => {
  const { error, headers } = await answer(refused, Date.parse('2026-11-22T10:01:03.500Z'));
  expect((error as RateLimitRejectedError).retryAfterSeconds).toBe(1);
  expect(headers).toMatchObject({ 'X-RateLimit-Reset': String(minuteEnd + 4) });
});

test('an admitted request keeps the headers the limiter gave it', async () => {
  const admitted: Admission = {
    admitted: true,
    headers: { limit: free.perMinute, remaining: free.perMinute - 1, resetAt: minuteEnd },
    slot: { minute: minuteEnd - MINUTE_SECONDS, day: windowAt('day', minuteEnd) },
  };
  const { error, headers } = await answer(admitted, Date.parse('2026-11-22T10:00:20Z'));
  expect(error).toBeUndefined();
  expect(headers).toEqual({
    'X-RateLimit-Limit': String(free.perMinute),
    'X-RateLimit-Remaining': String(free.perMinute - 1),
    'X-RateLimit-Reset': String(minuteEnd),
  });
});
