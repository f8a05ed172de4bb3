// listOrdersStream() against the local stack: compressed, incremental, exact, and loud when cut.
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { StoreOrdersApiError, StoreOrdersClient, type ListedOrder } from '../../client/client';
import type { Order } from '../../lib/contract/order';
import { DEPLOYED_SCAN } from '../../lib/edge/orders-handlers';
import { BASE_PATH } from '../../lib/contract/routes';
import { startLocalStack, type LocalStack } from '../support/local-stack';
import { FULL_INT64_ORDER } from '../support/orders-table';
import { failingAfterPages, stackListingFrom } from '../support/list-route';

let stack: LocalStack;
let key: string;
/**
 * Orders in the table: more than the deployed Scan's first page, so the listing arrives as more
 * than one flush of its gzip stream.
 */
const COUNT = DEPLOYED_SCAN.firstPageSize + 200;

beforeAll(async () => {
  stack = await startLocalStack();
  ({ key } = await stack.newKey('enterprise', { perMinute: 1000, perDay: 100_000 }));
  const orders: Order[] = [
    FULL_INT64_ORDER,
    { id: '-9223372036854775808', status: 'cancelled' },
    { id: '9007199254740993', status: 'shipped', complete: true },
    ...Array.from({ length: COUNT - 3 }, (_, i) => ({
      id: String(1_000_000_000_000n + BigInt(i)),
      petId: String(i),
      quantity: i % 5,
      status: 'pending' as const,
    })),
  ];
  await stack.app.orders.putMany(orders);
});
afterAll(() => stack.close());

/** A fetch that hands over the body exactly as it came over the wire, compressed or not. */
const rawFetch = (seen: string[]): typeof fetch =>
  ((input: string, init?: RequestInit) =>
    new Promise<Response>((resolve, reject) => {
      const req = request(
        String(input),
        { method: init?.method ?? 'GET', headers: init?.headers as Record<string, string> },
        (res) => {
          seen.push(String(res.headers['content-encoding'] ?? 'identity'));
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers))
            if (typeof value === 'string') headers.set(name, value);
          resolve(
            new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, { status: res.statusCode ?? 0, headers }),
          );
        },
      );
      req.on('error', reject);
      req.end();
    })) as typeof fetch;

async function collect(orders: AsyncIterable<ListedOrder>): Promise<{ orders: ListedOrder[]; error?: unknown }> {
  const out: ListedOrder[] = [];
  try {
    for await (const order of orders) out.push(order);
  } catch (error) {
    return { orders: out, error };
  }
  return { orders: out };
}

const byId = (orders: ListedOrder[]) => [...orders].sort((a, b) => String(a.id).localeCompare(String(b.id)));

test('listOrdersStream yields the same orders as listOrders, int64 ids exact', async () => {
  const api = new StoreOrdersClient({ baseUrl: `${stack.baseUrl}${BASE_PATH}`, apiKey: key });
  const streamed = await collect(api.listOrdersStream());
  expect(streamed.error).toBeUndefined();
  expect(streamed.orders).toHaveLength(COUNT);
  expect(byId(streamed.orders)).toEqual(byId(await api.listOrders()));
  expect(streamed.orders).toContainEqual(FULL_INT64_ORDER);
  expect(streamed.orders).toContainEqual({ id: '-9223372036854775808', status: 'cancelled' });
  expect(streamed.orders).toContainEqual({ id: '9007199254740993', status: 'shipped', complete: true });
  expect(api.lastRateLimit?.limit).toBe(1000);
});

test('it asks for gzip, and inflates it itself when the fetch it was given does not', async () => {
  const seen: string[] = [];
  const api = new StoreOrdersClient({ baseUrl: `${stack.baseUrl}${BASE_PATH}`, apiKey: key, fetch: rawFetch(seen) });
  const streamed = await collect(api.listOrdersStream());
  expect(seen).toEqual(['gzip']);
  expect(streamed.error).toBeUndefined();
  expect(streamed.orders).toHaveLength(COUNT);
  expect(streamed.orders).toContainEqual({ id: '-9223372036854775808', status: 'cancelled' });
});

test('an error answer before the body is a typed error, as for listOrders', async () => {
  const api = new StoreOrdersClient({ baseUrl: `${stack.baseUrl}${BASE_PATH}`, apiKey: 'sk_live_nope', maxRetries: 0 });
  const { orders, error } = await collect(api.listOrdersStream());
  expect(orders).toEqual([]);
  expect(error).toBeInstanceOf(StoreOrdersApiError);
  expect((error as StoreOrdersApiError).code).toBe('UNAUTHORIZED');
});

test.each([
  ['the global fetch, which decodes gzip itself', false],
  ['a fetch passing gzip through', true],
])('a listing cut mid-stream raises TRUNCATED_RESPONSE after the orders that did arrive (%s)', async (_, raw) => {
  const real = stack.tables.stores().orders;
  const broken = await stackListingFrom(stack, failingAfterPages(real, 3), '/broken/store/orders');
  try {
    const { key: brokenKey } = await broken.newKey('pro');
    const api = new StoreOrdersClient({
      baseUrl: `${broken.baseUrl}${BASE_PATH}/broken`,
      apiKey: brokenKey,
      fetch: raw ? rawFetch([]) : (input, init) => fetch(input, init),
    });
    const { orders, error } = await collect(api.listOrdersStream());
    expect(error).toBeInstanceOf(StoreOrdersApiError);
    expect((error as StoreOrdersApiError).code).toBe('TRUNCATED_RESPONSE');
    expect((error as StoreOrdersApiError).status).toBe(200);
    expect(orders.length).toBeLessThan(COUNT);
    expect(orders.length).toBeLessThanOrEqual(150);
  } finally {
    await broken.close();
  }
});

test('leaving the loop early releases the connection: the stack keeps answering', async () => {
  const api = new StoreOrdersClient({ baseUrl: `${stack.baseUrl}${BASE_PATH}`, apiKey: key });
  let taken = 0;
  for await (const _order of api.listOrdersStream()) if (++taken === 10) break;
  expect(taken).toBe(10);
  expect((await collect(api.listOrdersStream())).orders).toHaveLength(COUNT);
});
