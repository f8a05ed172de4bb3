// The typed client's v2 (beta) reads against the local stack: listOrderPages and syncOrders.
import { StoreOrdersClient } from '../../client/client';
import { MAX_CUSTOM_LIMITS } from '../../lib/contract/plans';
import { BASE_PATH } from '../../lib/contract/routes';
import { bearer, startLocalStack, type LocalStack } from '../support/local-stack';

let stack: LocalStack;
let api: StoreOrdersClient;
let key: string;
const EPOCH = '1970-01-01T00:00:00Z';
const BIG = '9223372036854775807';

beforeAll(async () => {
  stack = await startLocalStack();
  ({ key } = await stack.newKey('enterprise', MAX_CUSTOM_LIMITS));
  // Through stack.call, so every answer the client reads is also checked against the v2 document.
  const viaStack: typeof fetch = (input, init) =>
    stack.call(
      init?.method ?? 'GET',
      String(input).slice(stack.baseUrl.length),
      init?.headers as Record<string, string>,
    );
  api = new StoreOrdersClient({ baseUrl: `${stack.baseUrl}${BASE_PATH}`, apiKey: key, fetch: viaStack });
  const orders = Array.from({ length: 11 }, (_, i) => ({ id: String(i + 1), status: 'pending' as const }));
  await stack.app.orders.putMany([...orders, { id: BIG, status: 'shipped', complete: true }]);
});
afterAll(() => stack.close());

test('listOrderPages walks every page, each at most the limit, ids exact beyond 2^53', async () => {
  const sizes: number[] = [];
  const ids: string[] = [];
  for await (const page of api.listOrderPages({ limit: 5 })) {
    sizes.push(page.orders.length);
    ids.push(...page.orders.map((o) => o.id));
  }
  expect(sizes.every((n) => n <= 5)).toBe(true);
  expect(sizes.length).toBeGreaterThanOrEqual(3);
  expect(ids.sort()).toEqual([...Array.from({ length: 11 }, (_, i) => String(i + 1)), BIG].sort());
});

test('listOrderPages with a status gives only that status', async () => {
  const statuses: string[] = [];
  for await (const page of api.listOrderPages({ status: 'shipped', limit: 2 }))
    statuses.push(...page.orders.map((o) => o.status));
  expect(statuses).toEqual(['shipped']);
});

test('a sync loop: the first sync takes everything, the next only what changed since its watermark', async () => {
  const first = await api.syncOrders({ since: EPOCH, limit: 4 });
  expect(first.orders).toHaveLength(12);
  expect(first.watermark).toBe(first.orders.at(-1)?.updatedAt);

  stack.clock.advance(60_000);
  expect((await stack.call('DELETE', `${BASE_PATH}/store/orders/3`, bearer(key))).status).toBe(204);
  const next = await api.syncOrders({ since: first.watermark, limit: 4 });
  // Orders of the watermark's own millisecond come again; the cancel is the one change after it.
  const changed = next.orders.filter(
    (o) => !first.orders.some((seen) => seen.id === o.id && seen.updatedAt === o.updatedAt),
  );
  expect(changed).toEqual([{ id: '3', status: 'cancelled', updatedAt: new Date(stack.clock.now()).toISOString() }]);
  expect(next.watermark).toBe(changed[0]?.updatedAt);

  const idle = await api.syncOrders({ since: next.watermark });
  expect(idle.orders.map((o) => o.id)).toEqual(['3']);
  expect(idle.watermark).toBe(next.watermark);
});
