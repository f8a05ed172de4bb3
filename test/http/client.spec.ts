// The typed client against the local stack: exact ids, typed errors, Retry-After, rate-limit state.

import { StoreOrdersApiError, StoreOrdersClient } from '../../client/client';
import { BASE_PATH } from '../../lib/contract/routes';
import { startLocalStack, type LocalStack } from '../support/local-stack';
import { FULL_INT64_ORDER } from '../support/orders-table';

let stack: LocalStack;
const T0 = Date.UTC(2026, 10, 22, 12, 0, 30);

beforeAll(async () => {
  stack = await startLocalStack();
  await stack.app.orders.putMany([
    FULL_INT64_ORDER,
    { id: '9007199254740992', status: 'pending' },
    { id: '9007199254740993', status: 'pending' },
    { id: '7', status: 'shipped', complete: true },
  ]);
});
beforeEach(() => stack.clock.set(T0));
afterAll(() => stack.close());

/** Through stack.call, so every response the client sees is also checked against the contract. */
const viaStack: typeof fetch = (input, init) => stack.fetch(input, init);

async function client(options: { perMinute?: number; sleep?: (ms: number) => Promise<void> } = {}) {
  const { key } = await stack.newKey('enterprise', { perMinute: options.perMinute ?? 1000, perDay: 100_000 });
  const sleeps: number[] = [];
  const api = new StoreOrdersClient({
    baseUrl: `${stack.baseUrl}${BASE_PATH}`,
    apiKey: key,
    fetch: viaStack,
    sleep: options.sleep ?? (async (ms) => void sleeps.push(ms)),
    random: () => 0.5,
  });
  return { api, sleeps };
}

test('listOrders keeps int64 ids exact, as decimal strings', async () => {
  const { api } = await client();
  const orders = await api.listOrders();
  expect(orders).toContainEqual(FULL_INT64_ORDER);
  expect(orders.map((o) => o.id).sort()).toEqual(['7', '9007199254740992', '9007199254740993', '9223372036854775807']);
  expect(api.lastRateLimit).toEqual({ limit: 1000, remaining: 999, reset: Date.UTC(2026, 10, 22, 12, 1) / 1000 });
});

test('cancelOrder by string or bigint: 2^53+1 cancels only itself, and the largest int64 works', async () => {
  const { api } = await client();
  await api.cancelOrder(9007199254740993n);
  await api.cancelOrder('9223372036854775807');
  const status = async (id: string) => (await stack.app.orders.get(id))?.status;
  expect(await status('9007199254740993')).toBe('cancelled');
  expect(await status('9007199254740992')).toBe('pending');
  expect(await status('9223372036854775807')).toBe('cancelled');
  // A retried cancel of a cancelled order resolves too.
  await api.cancelOrder('9007199254740993');
});

test('an id above 2^53 as a JS number is refused: the order its double names is not cancelled', async () => {
  const { api } = await client();
  await stack.app.orders.putMany([
    { id: '9007199254740995', status: 'pending' },
    { id: '9007199254740996', status: 'pending' },
  ]);
  // The literal 9007199254740995 is the double 9007199254740996, which is another pending order.
  // eslint-disable-next-line no-loss-of-precision -- the lost digits are what this test is about
  await expect(api.cancelOrder(9007199254740995)).rejects.toThrow(TypeError);
  const status = async (id: string) => (await stack.app.orders.get(id))?.status;
  expect([await status('9007199254740995'), await status('9007199254740996')]).toEqual(['pending', 'pending']);
});

test.each<[string, string, number]>([
  ['7', 'ORDER_ALREADY_SHIPPED', 409],
  ['424242', 'ORDER_NOT_FOUND', 404],
])('cancelOrder(%s) rejects with a typed %s error and is not retried', async (id, code, status) => {
  const { api, sleeps } = await client();
  const error = await api.cancelOrder(id).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(StoreOrdersApiError);
  expect(error).toMatchObject({ code, status });
  expect(sleeps).toEqual([]);
});

test('a bad key is a typed 401 and keeps no rate-limit state', async () => {
  const api = new StoreOrdersClient({ baseUrl: `${stack.baseUrl}${BASE_PATH}`, apiKey: 'sok_nope', fetch: viaStack });
  await expect(api.listOrders()).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
  expect(api.lastRateLimit).toBeUndefined();
});

test('after a 429 the client waits Retry-After (the stack clock moves, nothing sleeps) and then succeeds', async () => {
  const waited: number[] = [];
  const { api } = await client({
    perMinute: 2,
    sleep: async (ms) => {
      waited.push(ms);
      stack.clock.advance(ms);
    },
  });
  await api.listOrders();
  await api.listOrders();
  expect(api.lastRateLimit?.remaining).toBe(0);
  const orders = await api.listOrders();
  expect(orders.length).toBeGreaterThan(0);
  expect(waited).toEqual([30_000]);
  expect(api.lastRateLimit).toEqual({ limit: 2, remaining: 1, reset: Date.UTC(2026, 10, 22, 12, 2) / 1000 });
});
