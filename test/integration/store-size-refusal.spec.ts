// The uncompressed-size refusal against a store that has just grown, on the embedded server (whose
// ItemCount, like DynamoDB's for hours, does not move): the orders an import writes are counted
// at once (StoreGrowth), so the next uncompressed listing of a store grown past the limit is refused.

import type { APIGatewayProxyEvent } from 'aws-lambda';
import { invokeStreamedToResponse } from '../../tools/local/invoke';
import { installLocalLambdaRuntime } from '../../tools/local/lambda-streaming';
import { buildProxyEvent, lambdaContext } from '../../tools/local/proxy-event';
import { routeByOperation } from '../../lib/contract/routes';
import { callerContext } from '../../lib/core/caller';
import { PLAN_LIMITS } from '../../lib/contract/plans';
import { makeListOrdersHandler } from '../../lib/edge/orders-handlers';
import { OrdersRepository } from '../../lib/stores/orders';
import { RateLimiter } from '../../lib/stores/rate-limiter';
import { GROWTH_WINDOW_HOURS, StoreGrowth } from '../../lib/stores/store-growth';
import type { Order } from '../../lib/contract/order';
import { createTestTables, type TestTables } from '../support/dynamo';
import { testClock } from '../support/local-stack';

/** A small limit stands for the deployed one, so the import that crosses it stays small. */
const MAX_ORDERS = 10;
let tables: TestTables;
const clock = testClock();
let requests = 0;

beforeAll(async () => {
  installLocalLambdaRuntime();
  tables = await createTestTables();
});
afterAll(() => tables.drop());

function listEvent(coding: string): APIGatewayProxyEvent {
  const keyId = `key_size_${requests++}`;
  return buildProxyEvent({
    route: routeByOperation('listOrders'),
    requestId: `size-${requests}`,
    headers: { 'Accept-Encoding': coding },
    authorizer: { principalId: keyId, context: callerContext({ keyId, plan: 'pro', limits: PLAN_LIMITS.pro }) },
  });
}

const orders = (from: number, count: number): Order[] =>
  Array.from({ length: count }, (_, i) => ({ id: String(from + i), status: 'pending' }));

test('a large import changes the refusal at once; re-imported orders add nothing', async () => {
  const growth = new StoreGrowth(tables.doc, tables.names.rateLimits, clock.now);
  const repo = new OrdersRepository(tables.doc, tables.names.orders, { clock: clock.now, growth });
  const handler = makeListOrdersHandler({
    orders: repo,
    limiter: new RateLimiter(tables.doc, tables.names.rateLimits, clock.now),
    uncompressedMaxOrders: MAX_ORDERS,
    scan: { segments: 1, pageSize: 100 },
  });
  const list = (coding: string) => invokeStreamedToResponse(handler, listEvent(coding), lambdaContext('list-orders'));

  // Seeded below the limit: listed uncompressed. The item count (cached for an hour) says 0 throughout.
  await repo.putMany(orders(1, MAX_ORDERS / 2));
  expect(await repo.approximateOrderCount()).toBe(0);
  expect((await list('identity')).statusCode).toBe(200);

  // An import, order by order as `orders import` writes them, past the limit: refused at once.
  for (const order of orders(1_000, MAX_ORDERS)) await repo.create(order);
  expect(await repo.orderCountBound()).toBe(MAX_ORDERS / 2 + MAX_ORDERS);
  const refused = await list('identity');
  expect(refused.statusCode).toBe(406);
  expect(JSON.parse(refused.body)).toMatchObject({ code: 'LISTING_TOO_LARGE_UNCOMPRESSED' });
  expect((await list('gzip')).statusCode).toBe(200);

  // Importing the same orders again creates none, and counts none.
  for (const order of orders(1_000, MAX_ORDERS)) await repo.create(order);
  expect(await repo.orderCountBound()).toBe(MAX_ORDERS / 2 + MAX_ORDERS);

  // Past the window the item count has been refreshed (DynamoDB's, not the embedded server's), so
  // the additions stop counting on top of it.
  clock.advance(GROWTH_WINDOW_HOURS * 3600 * 1000);
  expect(await growth.recentlyAdded()).toBe(0);
});
