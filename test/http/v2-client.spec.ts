// The typed client's v2 (beta) reads against the local stack: listOrderPages and syncOrders.
import { StoreOrdersClient } from '../../client/client';
import { applyChange, type SyncedListedOrder } from '../../client/pages';
import { MAX_CUSTOM_LIMITS } from '../../lib/contract/plans';
import { BASE_PATH } from '../../lib/contract/routes';
import { bearer, startLocalStack, type LocalStack } from '../support/local-stack';
import { syncedOrdersById } from '../support/orders-table';

let stack: LocalStack;
let api: StoreOrdersClient;
let key: string;
const EPOCH = '1970-01-01T00:00:00Z';
const BIG = '9223372036854775807';

beforeAll(async () => {
  stack = await startLocalStack();
  ({ key } = await stack.newKey('enterprise', MAX_CUSTOM_LIMITS));
  // Through stack.call, so every answer the client reads is also checked against the v2 document.
  const viaStack = stack.fetch;
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

test("a sync loop: a replica that applies later changes equals the store, from the server's watermarks", async () => {
  const replica = new Map<string, SyncedListedOrder>();
  const walkStart = stack.clock.now();
  const first = await api.syncOrders({ since: EPOCH, limit: 4 });
  expect(first.orders).toHaveLength(12);
  // The server's watermark: what had settled when the walk began, not the last updatedAt seen.
  expect(first.watermark).toBe(new Date(walkStart - stack.app.settleMs).toISOString());
  for (const order of first.orders) expect(applyChange(replica, order)).toBe(true);

  stack.clock.advance(60_000);
  expect((await stack.call('DELETE', `${BASE_PATH}/store/orders/3`, bearer(key))).status).toBe(204);
  const next = await api.syncOrders({ since: first.watermark, limit: 4 });
  // Everything after the first watermark comes again; only the cancel is later than the copy held.
  expect(next.orders.filter((o) => applyChange(replica, o))).toEqual([
    { id: '3', status: 'cancelled', updatedAt: new Date(stack.clock.now()).toISOString() },
  ]);
  expect(next.watermark).toBe(new Date(stack.clock.now() - stack.app.settleMs).toISOString());
  expect(replica).toEqual(await syncedOrdersById(stack.tables.client, stack.tables.names.orders));

  // The same walk again: its changes come again, and applying them changes nothing.
  const again = await api.syncOrders({ since: first.watermark });
  expect(again.orders.filter((o) => applyChange(replica, o))).toEqual([]);
});
