// Rate limits as a client sees them over HTTP, with the clock moved by hand.

import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { apiHandler } from '../../lib/edge/api-handler';
import { RateLimiter } from '../../lib/stores/rate-limiter';
import type { Route } from '../../lib/contract/routes';
import { bearer, expectError, startLocalStack, type LocalStack } from '../support/local-stack';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 30, 500);
const NEXT_MINUTE = Date.UTC(2026, 10, 22, 12, 1, 0) / 1000;
const MIDNIGHT = Date.UTC(2026, 10, 23) / 1000;

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

beforeAll(async () => {
  let limiter: RateLimiter | undefined;
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
  limiter = new RateLimiter(stack.tables.doc, stack.tables.names.rateLimits, stack.clock.now);
  await stack.app.orders.putMany([
    { id: '1', status: 'pending' },
    { id: '2', status: 'shipped' },
  ]);
});
beforeEach(() => stack.clock.set(T0));
afterAll(() => stack.close());

const get = (key: string) => stack.call('GET', '/v1/store/orders', bearer(key));

function limitHeaders(response: Response) {
  return {
    limit: response.headers.get('x-ratelimit-limit'),
    remaining: response.headers.get('x-ratelimit-remaining'),
    reset: response.headers.get('x-ratelimit-reset'),
  };
}

test('Remaining counts down exactly, Reset is the next minute boundary, the 61st is 429 RATE_LIMITED', async () => {
  const { key } = await stack.newKey('free');
  for (let i = 1; i <= 60; i++) {
    const response = await get(key);
    expect(response.status).toBe(200);
    expect(limitHeaders(response)).toEqual({ limit: '60', remaining: String(60 - i), reset: String(NEXT_MINUTE) });
  }
  const refused = await get(key);
  const retryAfter = Number(refused.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(retryAfter).toBe(30);
  expect(limitHeaders(refused)).toEqual({ limit: '60', remaining: '0', reset: String(NEXT_MINUTE) });
  await expectError(refused, 429, 'RATE_LIMITED');

  stack.clock.set(NEXT_MINUTE * 1000);
  const next = await get(key);
  expect(next.status).toBe(200);
  expect(limitHeaders(next)).toEqual({ limit: '60', remaining: '59', reset: String(NEXT_MINUTE + 60) });
});

test('the day window binds when it runs out first: QUOTA_EXCEEDED until midnight UTC', async () => {
  const { key } = await stack.newKey('enterprise', { perMinute: 100, perDay: 5 });
  for (let i = 1; i <= 5; i++) {
    const response = await get(key);
    expect(response.status).toBe(200);
    expect(limitHeaders(response)).toEqual({ limit: '5', remaining: String(5 - i), reset: String(MIDNIGHT) });
  }
  const refused = await get(key);
  expect(refused.headers.get('retry-after')).toBe(String(Math.ceil(MIDNIGHT - T0 / 1000)));
  expect(limitHeaders(refused)).toEqual({ limit: '5', remaining: '0', reset: String(MIDNIGHT) });
  await expectError(refused, 429, 'QUOTA_EXCEEDED');
});

test('ignoring 429s gets the key banned for 15 minutes; the ban lifts by itself', async () => {
  const { key } = await stack.newKey('free');
  for (let i = 0; i < 60; i++) expect((await get(key)).status).toBe(200);
  // 60 refusals are tolerated; the 61st within the minute bans the key.
  for (let i = 0; i < 60; i++) await expectError(await get(key), 429, 'RATE_LIMITED');
  const banned = await get(key);
  expect(banned.headers.get('retry-after')).toBe('900');
  await expectError(banned, 429, 'KEY_TEMPORARILY_BANNED');

  // Still banned in the next minute, with the time left counting down.
  stack.clock.set(NEXT_MINUTE * 1000);
  const stillBanned = await get(key);
  expect(Number(stillBanned.headers.get('retry-after'))).toBe(900 - 30);
  expect(stillBanned.headers.get('x-ratelimit-remaining')).toBe('0');
  await expectError(stillBanned, 429, 'KEY_TEMPORARILY_BANNED');

  stack.clock.set(T0 + 900_000);
  expect((await get(key)).status).toBe(200);
});

test('enterprise custom limits apply', async () => {
  const { key } = await stack.newKey('enterprise', { perMinute: 3, perDay: 1000 });
  for (let i = 0; i < 3; i++) expect((await get(key)).status).toBe(200);
  const refused = await get(key);
  expect(limitHeaders(refused).limit).toBe('3');
  await expectError(refused, 429, 'RATE_LIMITED');
});

test('every response to a valid key carries the headers: 400, 404, 409 and a handler failure', async () => {
  const { key } = await stack.newKey('pro');
  const responses = [
    [await stack.call('DELETE', '/v1/store/orders/abc', bearer(key)), 400, 'INVALID_ORDER_ID'],
    [await stack.call('DELETE', '/v1/store/orders/999', bearer(key)), 404, 'ORDER_NOT_FOUND'],
    [await stack.call('DELETE', '/v1/store/orders/2', bearer(key)), 409, 'ORDER_ALREADY_SHIPPED'],
    [await stack.call('GET', '/v1/boom', bearer(key)), 500, 'INTERNAL_ERROR'],
    [await stack.call('DELETE', '/v1/store/orders/1', bearer(key)), 204, undefined],
  ] as const;
  let remaining = 300;
  for (const [response, status, code] of responses) {
    remaining -= 1;
    expect(limitHeaders(response)).toEqual({ limit: '300', remaining: String(remaining), reset: String(NEXT_MINUTE) });
    if (code) await expectError(response, status, code);
    else expect(response.status).toBe(status);
  }
});
