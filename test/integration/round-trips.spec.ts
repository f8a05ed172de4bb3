// DynamoDB round trips per route and outcome, as exact call sequences, on the embedded server
// answering failed conditions as DynamoDB does (the item comes with the failure) and the code told
// so, as deployed; and where the embedded server's own answer makes a difference, as it is.
import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { buildProxyEvent, lambdaContext } from '../../tools/local/proxy-event';
import { invokeStreamedToResponse } from '../../tools/local/invoke';
import { installLocalLambdaRuntime } from '../../tools/local/lambda-streaming';
import { ON_DYNAMODB } from '../../lib/stores/conditional';
import { counterClient, documentClient } from '../../lib/root/wiring';
import { routeByOperation } from '../../lib/contract/routes';
import { makeCancelOrderHandler, makeListOrdersHandler } from '../../lib/edge/orders-handlers';
import type { OrdersRepository } from '../../lib/stores/orders';
import type { RateLimiter } from '../../lib/stores/rate-limiter';
import type { ListingsInFlight } from '../../lib/stores/listings-in-flight';
import { BAN, type Limits } from '../../lib/contract/plans';
import { createTestTables, type TestTables } from '../support/dynamo';
import { logCalls, returnItemOnConditionFailure, type LoggedCall } from '../support/limiter-clients';

let tables: TestTables;
let docs: DynamoDBDocumentClient[];
let log: ReturnType<typeof logCalls>;
let limiter: RateLimiter;
let orders: OrdersRepository;
let listings: ListingsInFlight;
/** The same, on the embedded server as it is: no item with a failed condition. */
let embeddedLimiter: RateLimiter;
let embeddedOrders: OrdersRepository;
let nowMs = Date.parse('2026-11-22T10:00:15.000Z');
const clock = () => nowMs;

beforeAll(async () => {
  installLocalLambdaRuntime();
  tables = await createTestTables();
  // The root's stores on two wirings, each with its clients logged (a patient timeout: hundreds of
  // calls may queue in the one embedded server process): one told the server answers as DynamoDB.
  const patient = { now: clock, requestTimeoutMs: 60_000 };
  const asDynamo = tables.stores({ ...patient, conditionFailures: ON_DYNAMODB });
  const embedded = tables.stores(patient);
  const [counters, doc] = [counterClient(asDynamo.wiring), documentClient(asDynamo.wiring)];
  docs = [counters, doc, counterClient(embedded.wiring), documentClient(embedded.wiring)];
  log = logCalls(...docs);
  returnItemOnConditionFailure(counters, tables.endpoint);
  returnItemOnConditionFailure(doc, tables.endpoint);
  ({ limiter, orders, listings } = asDynamo);
  ({ limiter: embeddedLimiter, orders: embeddedOrders } = embedded);
  await orders.putMany(Array.from({ length: 10 }, (_, i) => ({ id: String(i + 1), status: 'pending' as const })));
});
afterAll(() => tables.drop());
beforeEach(() => log.take());

/** `UpdateItem(rateLimits)`, … : each call with the table it went to. */
function sequence(calls: LoggedCall[]): string[] {
  const label = (table: string | undefined) =>
    Object.entries(tables.names).find(([, name]) => name === table)?.[0] ?? String(table);
  return calls.map((c) => `${c.operation}(${label(c.table)})`);
}
const LIMITER_WRITE = 'UpdateItem(rateLimits)';
const LIMITER_READ = 'GetItem(rateLimits)';

/** A key whose minute has already started, so its next request is an ordinary one. */
async function warmKey(limits: Limits, on: RateLimiter = limiter): Promise<string> {
  const keyId = `key-${randomUUID()}`;
  await on.admit(keyId, limits);
  log.take();
  return keyId;
}

describe('the limiter', () => {
  const limits = { perMinute: 2, perDay: 100 };

  test('an admitted request: one write', async () => {
    const key = await warmKey(limits);
    expect(await limiter.admit(key, limits)).toMatchObject({ admitted: true });
    expect(sequence(log.take())).toEqual([LIMITER_WRITE]);
  });

  test('the first request of a minute: two writes, the second chosen from the item the first failed on', async () => {
    const key = await warmKey(limits);
    nowMs += 60_000;
    expect(await limiter.admit(key, limits)).toMatchObject({ admitted: true });
    expect(sequence(log.take())).toEqual([LIMITER_WRITE, LIMITER_WRITE]);
    // A key's first request ever is the first of its minute too.
    expect(await limiter.admit(`key-${randomUUID()}`, limits)).toMatchObject({ admitted: true });
    expect(sequence(log.take())).toEqual([LIMITER_WRITE, LIMITER_WRITE]);
  });

  test('a refused request: the failed write, then the refusal count; a third write when it bans', async () => {
    const key = await warmKey(limits);
    await limiter.admit(key, limits);
    log.take();
    expect(await limiter.admit(key, limits)).toMatchObject({ admitted: false, reason: 'RATE_LIMITED' });
    expect(sequence(log.take())).toEqual([LIMITER_WRITE, LIMITER_WRITE]);
    // The refusals a minute may hold without a ban (lib/contract/plans.ts); the one after bans.
    for (let refused = 1; refused < Math.floor(limits.perMinute * BAN.rejectedPerMinuteFactor); refused++) {
      expect(await limiter.admit(key, limits)).toMatchObject({ admitted: false, reason: 'RATE_LIMITED' });
    }
    log.take();
    expect(await limiter.admit(key, limits)).toMatchObject({
      admitted: false,
      reason: 'KEY_TEMPORARILY_BANNED',
      banStarted: true,
    });
    expect(sequence(log.take())).toEqual([LIMITER_WRITE, LIMITER_WRITE, LIMITER_WRITE]);
    // Banned: the failed write alone.
    expect(await limiter.admit(key, limits)).toMatchObject({ admitted: false, reason: 'KEY_TEMPORARILY_BANNED' });
    expect(sequence(log.take())).toEqual([LIMITER_WRITE]);
  });

  test('on the embedded server a failed condition costs a consistent read, on that path only', async () => {
    const key = await warmKey(limits, embeddedLimiter);
    await embeddedLimiter.admit(key, limits);
    expect(sequence(log.take())).toEqual([LIMITER_WRITE]);
    expect(await embeddedLimiter.admit(key, limits)).toMatchObject({ admitted: false, reason: 'RATE_LIMITED' });
    expect(sequence(log.take())).toEqual([LIMITER_WRITE, LIMITER_READ, LIMITER_WRITE]);
    nowMs += 60_000;
    await embeddedLimiter.admit(key, limits);
    expect(sequence(log.take())).toEqual([LIMITER_WRITE, LIMITER_READ, LIMITER_WRITE]);
  });
});

describe('the routes', () => {
  const caller = { keyId: '', plan: 'enterprise', perMinute: 1000, perDay: 100_000 };
  const event = (keyId: string, orderId?: string) =>
    buildProxyEvent({
      route: routeByOperation(orderId === undefined ? 'listOrders' : 'cancelOrder'),
      pathParameters: orderId === undefined ? null : { orderId },
      ...(orderId === undefined ? {} : { path: `/store/orders/${orderId}` }),
      authorizer: { principalId: keyId, context: { ...caller, keyId } },
    });
  const limits = { perMinute: caller.perMinute, perDay: caller.perDay };

  test('cancel 204: the limiter write and the conditional update, nothing else', async () => {
    const key = await warmKey(limits);
    const result = await makeCancelOrderHandler({ orders, limiter })(event(key, '1'), lambdaContext('cancel-order'));
    expect(result.statusCode).toBe(204);
    expect(sequence(log.take())).toEqual([LIMITER_WRITE, 'UpdateItem(orders)']);
  });

  test('cancel of a missing order on DynamoDB: 404 from the failed condition alone, no read', async () => {
    const key = await warmKey(limits);
    const result = await makeCancelOrderHandler({ orders, limiter })(event(key, '999'), lambdaContext('cancel-order'));
    expect(result.statusCode).toBe(404);
    expect(sequence(log.take())).toEqual([LIMITER_WRITE, 'UpdateItem(orders)']);
  });

  test('cancel of a missing order on the embedded server keeps its read', async () => {
    const key = await warmKey(limits, embeddedLimiter);
    const handler = makeCancelOrderHandler({ orders: embeddedOrders, limiter: embeddedLimiter });
    const result = await handler(event(key, '998'), lambdaContext('cancel-order'));
    expect(result.statusCode).toBe(404);
    expect(sequence(log.take())).toEqual([LIMITER_WRITE, 'UpdateItem(orders)', 'GetItem(orders)']);
  });

  test('cancel of a shipped order: 409 from the item the failed condition returned', async () => {
    await orders.ship('2');
    const key = await warmKey(limits);
    const result = await makeCancelOrderHandler({ orders, limiter })(event(key, '2'), lambdaContext('cancel-order'));
    expect(result.statusCode).toBe(409);
    expect(sequence(log.take())).toEqual([LIMITER_WRITE, 'UpdateItem(orders)']);
  });

  // The slot is freed by a release mark (a PutItem), not deleted: lib/stores/listings-in-flight.ts.
  // An uncompressed listing reads the store's recent growth too (one BatchGetItem: listing-limits.md).
  test('list: one limiter write, the item count (at most hourly) and the growth, a slot taken, the scan, the slot freed', async () => {
    const key = await warmKey(limits);
    const handler = makeListOrdersHandler({ orders, limiter, listings, scan: { segments: 1 } });
    const result = await invokeStreamedToResponse(handler, event(key), lambdaContext('list-orders'));
    expect(result.statusCode).toBe(200);
    expect(sequence(log.take())).toEqual([
      LIMITER_WRITE,
      'DescribeTable(orders)',
      'BatchGetItem(rateLimits)',
      'PutItem(rateLimits)',
      'Scan(orders)',
      'PutItem(rateLimits)',
    ]);
    // The item count is cached per container: the next listing reads none.
    await invokeStreamedToResponse(handler, event(key), lambdaContext('list-orders'));
    expect(sequence(log.take())).toEqual([
      LIMITER_WRITE,
      'BatchGetItem(rateLimits)',
      'PutItem(rateLimits)',
      'Scan(orders)',
      'PutItem(rateLimits)',
    ]);
  });
});
