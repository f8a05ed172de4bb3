// Rate limits as a client sees them over HTTP, with the clock moved by hand: that every route runs
// the limiter and answers its decisions with their headers, Error bodies and Retry-After. The rules
// themselves are unit tests (test/unit/rate-limiter-*.spec.ts), so the requests that only fill a
// window go straight to a limiter on the stack's table and clock. Limits come from the plans.

import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { apiHandler } from '../../lib/edge/api-handler';
import type { RateLimiter } from '../../lib/stores/rate-limiter';
import { BAN, PLAN_LIMITS } from '../../lib/contract/plans';
import { banThreshold } from '../../lib/core/limiter/rules';
import { ROUTES, type Route } from '../../lib/contract/routes';
import { bearer, expectError, startLocalStack, type LocalStack } from '../support/local-stack';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 30, 500);
const NEXT_MINUTE = Date.UTC(2026, 10, 22, 12, 1, 0) / 1000;
const MIDNIGHT = Date.UTC(2026, 10, 23) / 1000;
/** Whole seconds from T0 to a Unix time, rounded up, as Retry-After counts them. */
const secondsFromT0 = (unix: number) => Math.ceil(unix - T0 / 1000);

const boomRoute: Route = {
  operationId: 'boom',
  method: 'GET',
  path: '/boom',
  function: 'list-orders',
  tag: 'test',
  summary: 'fails inside the handler',
  streaming: false,
  stability: 'experimental',
};

let stack: LocalStack;
/** The limiter of the stack's functions: the same table and clock. */
let limiter: RateLimiter | undefined;

beforeAll(async () => {
  stack = await startLocalStack({
    extraRoutes: [
      {
        route: boomRoute,
        handler: (event: APIGatewayProxyEvent, context: Context) => {
          if (!limiter) throw new Error('limiter not ready');
          return apiHandler(boomRoute, { limiter }, async () => {
            throw new Error('handler bug');
          })(event, context);
        },
      },
    ],
  });
  // The stack's own limiter, as the composition root made it for the service's routes.
  limiter = stack.app.limiter;
  await stack.app.orders.putMany([
    { id: '1', status: 'pending' },
    { id: '2', status: 'shipped' },
  ]);
  await stack.app.pets.putMany([{ id: '1', name: 'Rex', photoUrls: [] }]);
});
beforeEach(() => stack.clock.set(T0));
afterAll(() => stack.close());

function limitHeaders(response: Response) {
  return {
    limit: response.headers.get('x-ratelimit-limit'),
    remaining: response.headers.get('x-ratelimit-remaining'),
    reset: response.headers.get('x-ratelimit-reset'),
  };
}

/** A request on each route, with the answer the route gives while the limiter admits it: a v1 route without one does not compile. */
const ROUTE_CALLS: Record<(typeof ROUTES)[number]['operationId'], { path: string; status: number }> = {
  listOrders: { path: '/v1/store/orders', status: 200 },
  // Order 1 is pending: the first cancel cancels it, every later one answers 204 again.
  cancelOrder: { path: '/v1/store/orders/1', status: 204 },
  // The deprecated pets route has the same keys and limits as the others.
  getPetById: { path: '/v1/pets/1', status: 200 },
};

describe.each(ROUTES)('$method $path', (route) => {
  const call = (key: string) => {
    const { path } = ROUTE_CALLS[route.operationId];
    return stack.call(route.method, path, bearer(key));
  };
  const served = ROUTE_CALLS[route.operationId].status;

  test('a free key: served with its headers, RATE_LIMITED once the minute is full, KEY_TEMPORARILY_BANNED past the ban threshold until the ban ends', async () => {
    const free = PLAN_LIMITS.free;
    const { key, id } = await stack.newKey('free');
    /** `n` more requests of the key, not over HTTP. */
    const more = (n: number) => Promise.all(Array.from({ length: n }, () => limiter?.admit(id, free)));
    const headers = (remaining: number, reset: number) => ({
      limit: String(free.perMinute),
      remaining: String(remaining),
      reset: String(reset),
    });
    const first = await call(key);
    expect(first.status).toBe(served);
    expect(limitHeaders(first)).toEqual(headers(free.perMinute - 1, NEXT_MINUTE));
    await more(free.perMinute - 2);
    const last = await call(key);
    expect(last.status).toBe(served);
    expect(limitHeaders(last)).toEqual(headers(0, NEXT_MINUTE));

    const refused = await call(key);
    expect(refused.headers.get('retry-after')).toBe(String(secondsFromT0(NEXT_MINUTE)));
    expect(limitHeaders(refused)).toEqual(headers(0, NEXT_MINUTE));
    await expectError(refused, 429, 'RATE_LIMITED');

    await more(banThreshold(free) - 1);
    const banned = await call(key);
    const banEnd = Math.floor(T0 / 1000) + BAN.durationSeconds;
    expect(banned.headers.get('retry-after')).toBe(String(secondsFromT0(banEnd)));
    expect(limitHeaders(banned)).toEqual(headers(0, banEnd));
    await expectError(banned, 429, 'KEY_TEMPORARILY_BANNED');

    // Still banned in the next minute, with the time left counting down; then the ban lifts.
    stack.clock.set(NEXT_MINUTE * 1000);
    const stillBanned = await call(key);
    expect(stillBanned.headers.get('retry-after')).toBe(String(banEnd - NEXT_MINUTE));
    await expectError(stillBanned, 429, 'KEY_TEMPORARILY_BANNED');
    stack.clock.set(banEnd * 1000);
    expect((await call(key)).status).toBe(served);
  });
});

test("an enterprise key's custom limits reach the limiter: the day window binds, QUOTA_EXCEEDED until midnight UTC", async () => {
  const limits = { perMinute: 100, perDay: 3 };
  const { key } = await stack.newKey('enterprise', limits);
  for (let i = 1; i <= limits.perDay; i++) {
    const response = await stack.call('GET', '/v1/store/orders', bearer(key));
    expect(response.status).toBe(200);
    expect(limitHeaders(response)).toEqual({
      limit: String(limits.perDay),
      remaining: String(limits.perDay - i),
      reset: String(MIDNIGHT),
    });
  }
  const refused = await stack.call('GET', '/v1/store/orders', bearer(key));
  expect(refused.headers.get('retry-after')).toBe(String(secondsFromT0(MIDNIGHT)));
  expect(limitHeaders(refused)).toEqual({ limit: String(limits.perDay), remaining: '0', reset: String(MIDNIGHT) });
  await expectError(refused, 429, 'QUOTA_EXCEEDED');
});

test('every response to a valid key carries the headers: 400, 404, 409 and a handler failure', async () => {
  const pro = PLAN_LIMITS.pro;
  const { key } = await stack.newKey('pro');
  const responses = [
    [await stack.call('DELETE', '/v1/store/orders/abc', bearer(key)), 400, 'INVALID_ORDER_ID'],
    [await stack.call('DELETE', '/v1/store/orders/999', bearer(key)), 404, 'ORDER_NOT_FOUND'],
    [await stack.call('DELETE', '/v1/store/orders/2', bearer(key)), 409, 'ORDER_ALREADY_SHIPPED'],
    [await stack.call('GET', '/v1/boom', bearer(key)), 500, 'INTERNAL_ERROR'],
    [await stack.call('DELETE', '/v1/store/orders/1', bearer(key)), 204, undefined],
  ] as const;
  let remaining = pro.perMinute;
  for (const [response, status, code] of responses) {
    remaining -= 1;
    expect(limitHeaders(response)).toEqual({
      limit: String(pro.perMinute),
      remaining: String(remaining),
      reset: String(NEXT_MINUTE),
    });
    if (code) await expectError(response, status, code);
    else expect(response.status).toBe(status);
  }
});
