// The handlers as Lambda invokes them, with a proxy event, against the embedded server.

import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { invokeStreamedToResponse } from '../../tools/local/invoke';
import { installLocalLambdaRuntime } from '../../tools/local/lambda-streaming';
import { buildProxyEvent, lambdaContext } from '../../tools/local/proxy-event';
import { routeByOperation } from '../../lib/contract/routes';
import { callerContext } from '../../lib/core/access/caller';
import { PLAN_LIMITS } from '../../lib/contract/plans';
import { errorBody, SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../lib/contract/errors';
import { makeCancelOrderHandler, makeListOrdersHandler } from '../../lib/edge/orders-handlers';
import type { OrdersRepository } from '../../lib/stores/orders';
import type { RateLimiter } from '../../lib/stores/rate-limiter';
import { createTestTables, type TestTables } from '../support/dynamo';
import { testClock } from '../support/local-stack';

let tables: TestTables;
let orders: OrdersRepository;
let limiter: RateLimiter;
const clock = testClock();
/** Nothing listens on port 9 of loopback: the connection is refused at once. */
const DEAD_ENDPOINT = 'http://127.0.0.1:9';
/** The free key's window that runs out first, which the rate-limit headers show. */
const FIRST_LIMIT = Math.min(PLAN_LIMITS.free.perMinute, PLAN_LIMITS.free.perDay);
/**
 * A fresh context per call, as Lambda gives each invocation: its deadline (the function's timeout)
 * starts at the call, not when this file was loaded, so a slow run never brings a test near it.
 */
const context = (): Context => lambdaContext('cancel-order', { awsRequestId: 'req-1' });

/**
 * An event from the local gateway's own builder, as API Gateway passes it: cancelOrder for order
 * 1 unless the list is asked for; `keyId: null` for one without an authorizer context.
 */
function event(options: { keyId?: string | null; list?: boolean } = {}): APIGatewayProxyEvent {
  const { keyId = 'key_test', list = false } = options;
  return buildProxyEvent({
    route: routeByOperation(list ? 'listOrders' : 'cancelOrder'),
    pathParameters: list ? null : { orderId: '1' },
    headers: { Authorization: 'Bearer must-never-be-logged' },
    requestId: 'api-req-1',
    ...(keyId === null
      ? {}
      : {
          authorizer: {
            principalId: keyId,
            context: callerContext({ keyId, plan: 'free', limits: PLAN_LIMITS.free }),
          },
        }),
  });
}

beforeAll(async () => {
  installLocalLambdaRuntime();
  tables = await createTestTables();
  ({ orders, limiter } = tables.stores({ now: clock.now }));
  await orders.putMany([{ id: '1', status: 'pending' }]);
});
afterAll(() => tables.drop());

test('a handler without an authorizer context answers 401, not 500', async () => {
  const handler = makeCancelOrderHandler({ orders, limiter });
  const result = await handler(event({ keyId: null }), context());
  expect(result.statusCode).toBe(401);
  expect(JSON.parse(result.body)).toEqual({ code: 'UNAUTHORIZED', message: expect.any(String), status: 401 });
  expect(result.headers?.['WWW-Authenticate']).toBe('Bearer');
  expect((await orders.get('1'))?.status).toBe('pending');
});

test('a failure inside the handler is 500 INTERNAL_ERROR with no internals, and still has rate-limit headers', async () => {
  const broken = {
    listingPages: () => {
      throw new TypeError('secret internal detail at /var/task/index.mjs');
    },
  } as unknown as OrdersRepository;
  const handler = makeListOrdersHandler({ orders: broken, limiter });
  const result = await invokeStreamedToResponse(handler, event({ list: true, keyId: 'key_crash' }), context());
  expect(result.statusCode).toBe(500);
  expect(result.headers?.['Content-Type']).toBe('application/json');
  expect(JSON.parse(result.body)).toEqual(errorBody('INTERNAL_ERROR'));
  expect(result.body).not.toContain('secret');
  expect(result.headers?.['X-RateLimit-Limit']).toBe(String(FIRST_LIMIT));
  expect(result.headers?.['X-RateLimit-Remaining']).toBe(String(FIRST_LIMIT - 1));
});

test('DynamoDB unreachable is 503 SERVICE_UNAVAILABLE with Retry-After, and the rate-limit headers', async () => {
  const dead = tables.stores({ endpoint: DEAD_ENDPOINT, now: clock.now }).orders;
  const handler = makeCancelOrderHandler({ orders: dead, limiter });
  const result = await handler(event({ keyId: 'key_dead' }), context());
  expect(result.statusCode).toBe(503);
  expect(JSON.parse(result.body)).toEqual({ code: 'SERVICE_UNAVAILABLE', message: expect.any(String), status: 503 });
  expect(result.headers?.['Retry-After']).toBe(String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));
  expect(result.headers?.['X-RateLimit-Remaining']).toBe(String(FIRST_LIMIT - 1));
});

test('the limiter unreachable is 503 too, with no rate-limit headers since no window was read', async () => {
  const deadLimiter = tables.stores({ endpoint: DEAD_ENDPOINT, now: clock.now }).limiter;
  const handler = makeCancelOrderHandler({ orders, limiter: deadLimiter });
  const result = await handler(event({ keyId: 'key_dead2' }), context());
  expect(result.statusCode).toBe(503);
  expect(result.headers?.['X-RateLimit-Limit']).toBeUndefined();
  expect((await orders.get('1'))?.status).toBe('pending');
});

test('a stack that cannot answer before the function deadline answers 503 just before it', async () => {
  // Fault injection: a limiter whose DynamoDB never answers.
  const stuck = { admit: () => new Promise<never>(() => undefined), now: Date.now };
  const handler = makeCancelOrderHandler({ orders, limiter: stuck });
  const nearDeadline = { ...context(), getRemainingTimeInMillis: () => 700 } as Context;
  const result = await handler(event({ keyId: 'key_stuck' }), nearDeadline);
  expect(result.statusCode).toBe(503);
  expect(JSON.parse(result.body)).toEqual({ code: 'SERVICE_UNAVAILABLE', message: expect.any(String), status: 503 });
  expect(result.headers?.['Retry-After']).toBe(String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));
  expect((await orders.get('1'))?.status).toBe('pending');
});
