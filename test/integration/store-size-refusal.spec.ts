// The uncompressed-size refusal against a store that has just grown, on the embedded server (whose
// ItemCount, like DynamoDB's for hours, does not move): the orders an import writes are counted
// at once (StoreGrowth), so the next uncompressed listing of a store grown past the limit is refused;
// and the counters' own calls: one write per round of concurrent additions, one read per listing.

import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, createDynamoClient } from '../../lib/stores/dynamo';
import { invokeStreamedToResponse } from '../../tools/local/invoke';
import { installLocalLambdaRuntime } from '../../tools/local/lambda-streaming';
import { buildProxyEvent, lambdaContext } from '../../tools/local/proxy-event';
import { routeByOperation } from '../../lib/contract/routes';
import { callerContext } from '../../lib/core/access/caller';
import { PLAN_LIMITS } from '../../lib/contract/plans';
import { makeListOrdersHandler } from '../../lib/edge/orders-handlers';
import { GROWTH_WINDOW_HOURS, StoreGrowth } from '../../lib/stores/store-growth';
import type { Order } from '../../lib/contract/order';
import { createTestTables, type TestTables } from '../support/dynamo';
import { testClock } from '../support/local-stack';
import { logCalls, type LoggedCall } from '../support/limiter-clients';

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
  // The root's orders store counts its own growth; `growth` reads the same counters.
  const { orders: repo, limiter } = tables.stores({ now: clock.now });
  const growth = new StoreGrowth(tables.doc, tables.names.rateLimits, clock.now);
  const handler = makeListOrdersHandler({
    orders: repo,
    limiter,
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

describe('the counters', () => {
  const docs: DynamoDBDocumentClient[] = [];
  afterAll(() => docs.forEach((doc) => doc.destroy()));
  /** Built by hand on purpose: the counters alone, on a logged client of their own. */
  function counting() {
    const doc = createDocumentClient(createDynamoClient({ endpoint: tables.endpoint }));
    docs.push(doc);
    return { doc, log: logCalls(doc), growth: new StoreGrowth(doc, tables.names.rateLimits, clock.now) };
  }
  const operations = (calls: LoggedCall[]) => calls.map((c) => c.operation);

  test('additions made while a counter write is in flight go in the next write, each caller waiting for its own', async () => {
    clock.advance(GROWTH_WINDOW_HOURS * 3600 * 1000);
    const { log, growth } = counting();
    // 16 at once, as the import's creates finish: the first write carries 1, the next the other 15.
    const settled: number[] = [];
    await Promise.all(Array.from({ length: 16 }, (_, i) => growth.added(1).then(() => settled.push(i))));
    expect(settled).toHaveLength(16);
    expect(operations(log.take())).toEqual(['UpdateItem', 'UpdateItem']);
    expect(await growth.recentlyAdded()).toBe(16);
    // A listing's read of the whole window is one call.
    expect(operations(log.take())).toEqual(['BatchGetItem']);
  });

  test('the window sums the hours it spans, each hour leaving it on time', async () => {
    clock.advance(GROWTH_WINDOW_HOURS * 3600 * 1000);
    const { growth } = counting();
    await growth.added(3);
    clock.advance(3 * 3600 * 1000);
    await growth.added(4);
    expect(await growth.recentlyAdded()).toBe(7);
    // The first hour is the window's oldest, then leaves it; the second stays.
    clock.advance((GROWTH_WINDOW_HOURS - 4) * 3600 * 1000);
    expect(await growth.recentlyAdded()).toBe(7);
    clock.advance(3600 * 1000);
    expect(await growth.recentlyAdded()).toBe(4);
  });

  test('a failed counter write fails every caller it carried, and the next write goes on', async () => {
    clock.advance(GROWTH_WINDOW_HOURS * 3600 * 1000);
    const { doc, growth } = counting();
    let failNext = 1;
    doc.middlewareStack.add(
      (next) => async (args) => {
        if (failNext-- > 0) throw new Error('network down');
        return next(args);
      },
      { step: 'initialize', name: 'failOnce' },
    );
    const first = growth.added(2);
    const queued = [growth.added(1), growth.added(1)];
    await expect(first).rejects.toThrow('network down');
    await Promise.all(queued);
    expect(await growth.recentlyAdded()).toBe(2);
  });

  test('counters DynamoDB leaves unprocessed are read again', async () => {
    clock.advance(GROWTH_WINDOW_HOURS * 3600 * 1000);
    const { doc, log, growth } = counting();
    for (let hour = 0; hour < GROWTH_WINDOW_HOURS; hour++) {
      await growth.added(hour + 1);
      if (hour < GROWTH_WINDOW_HOURS - 1) clock.advance(3600 * 1000);
    }
    leaveUnprocessedOnce(doc, tables.names.rateLimits);
    log.take();
    expect(await growth.recentlyAdded()).toBe((GROWTH_WINDOW_HOURS * (GROWTH_WINDOW_HOURS + 1)) / 2);
    expect(operations(log.take())).toEqual(['BatchGetItem', 'BatchGetItem']);
  });
});

/**
 * What DynamoDB may do with any BatchGetItem (throttling, a partition's 1 MB) and the embedded
 * server never does: answer part of the keys and return the rest as UnprocessedKeys. Once, here,
 * with half of them.
 */
function leaveUnprocessedOnce(doc: DynamoDBDocumentClient, table: string): void {
  let done = false;
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      if (done || !String(context.commandName).startsWith('BatchGet')) return next(args);
      done = true;
      const input = args.input as { RequestItems: Record<string, { Keys: unknown[] }> };
      const request = input.RequestItems[table];
      if (!request) return next(args);
      const left = request.Keys.slice(request.Keys.length / 2);
      request.Keys = request.Keys.slice(0, request.Keys.length / 2);
      const result = await next(args);
      const output = result.output as { UnprocessedKeys?: Record<string, unknown> };
      output.UnprocessedKeys = { [table]: { ...request, Keys: left } };
      return result;
    },
    { step: 'initialize', name: 'leaveUnprocessedOnce' },
  );
}
