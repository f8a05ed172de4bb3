// The listing's two refusals before its first byte, against the embedded server: an uncompressed
// listing of a store too large for one response (no Scan sent), and the per-key cap on listings in
// flight (exact under concurrency, every slot given back however the listing ends).

import type { APIGatewayProxyEvent } from 'aws-lambda';
import { invokeStreamedToResponse } from '../../tools/local/invoke';
import { installLocalLambdaRuntime } from '../../tools/local/lambda-streaming';
import { buildProxyEvent, lambdaContext } from '../../tools/local/proxy-event';
import { routeByOperation } from '../../lib/contract/routes';
import { callerContext } from '../../lib/core/access/caller';
import { makeListOrdersHandler, type OrdersHandlerDeps } from '../../lib/edge/orders-handlers';
import type { OrdersRepository } from '../../lib/stores/orders';
import { UNCOMPRESSED_LISTING_MAX_ORDERS } from '../../lib/core/orders/listing-size';
import { LISTING_DEADLINE_MARGIN_MS } from '../../lib/edge/listing-run';
import type { RateLimiter } from '../../lib/stores/rate-limiter';
import {
  LEASE_EXPIRY_MARGIN_SECONDS,
  TooManyListingsError,
  type ListingsInFlight,
} from '../../lib/stores/listings-in-flight';
import { documentClient } from '../../lib/root/wiring';
import { LISTINGS_IN_FLIGHT, type PlanName } from '../../lib/contract/plans';
import { FUNCTIONS } from '../../lib/contract/deployment';
import type { Order } from '../../lib/contract/order';
import { createTestTables, type TestTables } from '../support/dynamo';
import { testClock } from '../support/local-stack';
import { failingAfterPages } from '../support/list-route';
import { ordersJsonPage } from '../../lib/core/orders/orders-json';

let tables: TestTables;
let orders: OrdersRepository;
let limiter: RateLimiter;
let listings: ListingsInFlight;
const clock = testClock();
const ORDERS: Order[] = Array.from({ length: 120 }, (_, i) => ({ id: String(i + 1), status: 'pending' }));

beforeAll(async () => {
  installLocalLambdaRuntime();
  tables = await createTestTables();
  ({ orders, limiter, listings } = tables.stores({ now: clock.now }));
  await tables.stores().seeding.putMany(ORDERS);
});
afterAll(() => tables.drop());

let keys = 0;
/** The limits every test caller carries, whatever its plan: high enough never to refuse here. */
const CALLER_LIMITS = { perMinute: 1000, perDay: 10_000 };
function listEvent(
  plan: PlanName,
  headers: Record<string, string> = {},
): { event: APIGatewayProxyEvent; keyId: string } {
  const keyId = `key_listing_${keys++}`;
  const event = buildProxyEvent({
    route: routeByOperation('listOrders'),
    headers,
    authorizer: {
      principalId: keyId,
      context: callerContext({ keyId, plan, limits: CALLER_LIMITS }),
    },
  });
  return { event, keyId };
}

function handlerWith(deps: Partial<OrdersHandlerDeps> = {}) {
  return makeListOrdersHandler({
    orders,
    limiter,
    listings,
    scan: { segments: 1, pageSize: 25 },
    ...deps,
  });
}

const list = (handler: ReturnType<typeof handlerWith>, event: APIGatewayProxyEvent) =>
  invokeStreamedToResponse(handler, event, lambdaContext('list-orders'));

/**
 * The orders store on a wiring of its own, its client counting the Scans it sends and setting the
 * item count its DescribeTable reports to `itemCount`: the embedded server never updates ItemCount
 * (DynamoDB refreshes it about every six hours), so the count of a large store is given here.
 */
function instrumentedOrders(itemCount: number): { repo: OrdersRepository; scans: () => number } {
  const { orders: repo, wiring } = tables.stores({ now: clock.now });
  let scans = 0;
  documentClient(wiring).middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'ScanCommand') scans++;
      const result = await next(args);
      const output = result.output as { Table?: { ItemCount?: number } };
      if (context.commandName === 'DescribeTableCommand' && output.Table) output.Table.ItemCount = itemCount;
      return result;
    },
    { step: 'initialize', name: 'countScansAndSizeTable' },
  );
  return { repo, scans: () => scans };
}

describe('an uncompressed listing of a store too large for one response', () => {
  test('is refused with 406 before any Scan, telling the client to send Accept-Encoding: gzip', async () => {
    const { repo, scans } = instrumentedOrders(UNCOMPRESSED_LISTING_MAX_ORDERS);
    const handler = handlerWith({ orders: repo });
    const { event, keyId } = listEvent('pro', { 'Accept-Encoding': 'identity' });
    const response = await list(handler, event);
    expect(response.statusCode).toBe(406);
    const body = JSON.parse(response.body) as { code: string; message: string; status: number };
    expect(body).toEqual({ code: 'LISTING_TOO_LARGE_UNCOMPRESSED', message: expect.any(String), status: 406 });
    expect(body.message).toContain('Accept-Encoding: gzip');
    expect(response.headers['X-RateLimit-Limit']).toBe(String(CALLER_LIMITS.perMinute));
    expect(scans()).toBe(0);
    expect(await listings.held(keyId, LISTINGS_IN_FLIGHT.pro)).toBe(0);

    // The same store is listed to a client that accepts gzip: the Scans do run.
    const gzip = await list(handler, listEvent('pro', { 'Accept-Encoding': 'gzip' }).event);
    expect(gzip.statusCode).toBe(200);
    expect(gzip.headers['Content-Encoding']).toBe('gzip');
    expect(scans()).toBeGreaterThan(0);
  });

  test('a store just under the limit is still listed uncompressed', async () => {
    const { repo } = instrumentedOrders(UNCOMPRESSED_LISTING_MAX_ORDERS - 1);
    const response = await list(handlerWith({ orders: repo }), listEvent('pro').event);
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toHaveLength(ORDERS.length);
  });
});

describe('the per-key cap on listings in flight', () => {
  test('N parallel lease requests on a fresh key take exactly the cap, the rest are refused', async () => {
    const cap = 3;
    // Over three times the cap at once: every slot is contended, most requests lose.
    const tries = 10;
    const results = await Promise.allSettled(
      Array.from({ length: tries }, () => listings.acquire('key_parallel', cap)),
    );
    const taken = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    expect(taken).toHaveLength(cap);
    expect(new Set(taken.map((lease) => lease.slot))).toEqual(new Set([0, 1, 2]));
    expect(refused).toHaveLength(tries - cap);
    for (const reason of refused) expect(reason).toBeInstanceOf(TooManyListingsError);
    expect(await listings.held('key_parallel', cap)).toBe(cap);
    await Promise.all(taken.map((lease) => lease.release()));
    expect(await listings.held('key_parallel', cap)).toBe(0);
  });

  test('parallel listings of one key: the plan cap runs, the others get 429 TOO_MANY_LISTINGS with Retry-After', async () => {
    // Each admitted listing sends its first page, then waits at the gate until the test opens it.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let started = 0;
    const gated: OrdersHandlerDeps['orders'] = {
      cancel: async () => undefined,
      async *listingPages() {
        started++;
        yield ordersJsonPage([{ id: '1', status: 'pending' as const }]);
        await gate;
        yield ordersJsonPage([{ id: '2', status: 'pending' as const }]);
      },
    };
    const handler = handlerWith({ orders: gated });
    const { event, keyId } = listEvent('pro');
    const cap = LISTINGS_IN_FLIGHT.pro;
    const tries = cap + 4;
    let refusedSoFar = 0;
    let allRefused!: () => void;
    const refusalsIn = new Promise<void>((resolve) => (allRefused = resolve));
    const responses = Array.from({ length: tries }, () =>
      list(handler, { ...event }).then((response) => {
        if (response.statusCode === 429 && ++refusedSoFar === tries - cap) allRefused();
        return response;
      }),
    );
    await refusalsIn;
    expect(started).toBe(cap);
    expect(await listings.held(keyId, cap)).toBe(cap);
    open();
    const all = await Promise.all(responses);
    expect(all.filter((r) => r.statusCode === 200)).toHaveLength(cap);
    for (const refused of all.filter((r) => r.statusCode !== 200)) {
      expect(refused.statusCode).toBe(429);
      expect(JSON.parse(refused.body)).toMatchObject({ code: 'TOO_MANY_LISTINGS', status: 429 });
      // Until the first lease expires: taken for the function's whole time (the clock stands still here).
      expect(refused.headers['Retry-After']).toBe(
        String(FUNCTIONS['list-orders'].timeoutSeconds + LEASE_EXPIRY_MARGIN_SECONDS),
      );
    }
    expect(await listings.held(keyId, cap)).toBe(0);
  });

  test('a listing that ends normally gives its slot back', async () => {
    const { event, keyId } = listEvent('free');
    const handler = handlerWith();
    expect((await list(handler, event)).statusCode).toBe(200);
    expect(await listings.held(keyId, LISTINGS_IN_FLIGHT.free)).toBe(0);
    expect((await list(handler, { ...event })).statusCode).toBe(200);
  });

  test('a listing whose Scan fails mid-stream gives its slot back', async () => {
    const { event, keyId } = listEvent('free');
    const handler = handlerWith({ orders: failingAfterPages(orders, 2, 25) });
    await expect(list(handler, event)).rejects.toThrow('DynamoDB went away mid-scan');
    expect(await listings.held(keyId, LISTINGS_IN_FLIGHT.free)).toBe(0);
  });

  test('a listing whose first page fails (answered 500) gives its slot back', async () => {
    const { event, keyId } = listEvent('free');
    const broken: OrdersHandlerDeps['orders'] = {
      cancel: async () => undefined,
      listingPages: () => {
        throw new TypeError('broken before the first byte');
      },
    };
    expect((await list(handlerWith({ orders: broken }), event)).statusCode).toBe(500);
    expect(await listings.held(keyId, LISTINGS_IN_FLIGHT.free)).toBe(0);
  });

  test('a listing still running just before the function deadline is ended there, and gives its slot back', async () => {
    // Its first page, then a Scan that never answers: only the deadline can end it.
    let stuckAt!: () => void;
    const isStuck = new Promise<void>((resolve) => (stuckAt = resolve));
    const stuck: OrdersHandlerDeps['orders'] = {
      cancel: async () => undefined,
      async *listingPages() {
        yield ordersJsonPage([{ id: '1', status: 'pending' as const }]);
        stuckAt();
        await new Promise<never>(() => undefined);
      },
    };
    // The lease's release, seen as it finishes: waited for, instead of reading the slot over and over.
    let released!: () => void;
    const isReleased = new Promise<void>((resolve) => (released = resolve));
    const watched: OrdersHandlerDeps['listings'] = {
      acquire: async (...args) => {
        const lease = await listings.acquire(...args);
        return { slot: lease.slot, release: () => lease.release().then(released) };
      },
    };
    const { event, keyId } = listEvent('free');
    const context = {
      ...lambdaContext('list-orders'),
      getRemainingTimeInMillis: () => LISTING_DEADLINE_MARGIN_MS + 3_000,
    };
    // The invocation itself never returns here: deployed, Lambda stops it at the deadline.
    void invokeStreamedToResponse(handlerWith({ orders: stuck, listings: watched }), event, context).catch(
      () => undefined,
    );
    await isStuck;
    expect(await listings.held(keyId, LISTINGS_IN_FLIGHT.free)).toBe(1);
    await isReleased;
    expect(await listings.held(keyId, LISTINGS_IN_FLIGHT.free)).toBe(0);
  });

  test('a lease never given back (a crashed invocation) frees its slot once it expires', async () => {
    const holdMs = 150_000;
    await listings.acquire('key_crashed', 1, holdMs);
    await expect(listings.acquire('key_crashed', 1, holdMs)).rejects.toBeInstanceOf(TooManyListingsError);
    clock.advance(holdMs + LEASE_EXPIRY_MARGIN_SECONDS * 1000);
    await expect(listings.acquire('key_crashed', 1, holdMs)).rejects.toBeInstanceOf(TooManyListingsError);
    clock.advance(1_000);
    const lease = await listings.acquire('key_crashed', 1, holdMs);
    await lease.release();
    expect(await listings.held('key_crashed', 1)).toBe(0);
  });

  test('a lease write whose reply is lost is answered with the error, and the slot it took is freed', async () => {
    // Fault injection: the PutItem reaches the table, its reply does not reach the caller (after
    // the SDK's attempts, which the fault sits outside of).
    const { listings: lossy, wiring } = tables.stores({ now: clock.now });
    documentClient(wiring).middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (context.commandName === 'PutItemCommand')
          throw Object.assign(new Error('reply lost'), { name: 'TimeoutError' });
        return result;
      },
      { step: 'initialize', name: 'loseLeaseReplies' },
    );
    await expect(lossy.acquire('key_lost_reply', 1)).rejects.toThrow('reply lost');
    expect(await listings.held('key_lost_reply', 1)).toBe(0);
  });
});
