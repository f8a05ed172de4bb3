// A client that honours every Retry-After must not get its key banned (issue 26, item 3). Over HTTP
// on the local stack, through the project's client, on a free key: 100 concurrent listOrders() and
// 100 concurrent cancelOrder() all complete, with no ban. The client's waits move the stack's
// injected clock instead of passing real time, so a minute's Retry-After costs nothing here. And
// the server's side: TOO_MANY_LISTINGS uses up no slot and counts toward no ban, however often a
// key meets it while another of its listings runs.
import { StoreOrdersClient, type RetryEvent } from '../../client/client';
import { LISTINGS_IN_FLIGHT, PLAN_LIMITS } from '../../lib/contract/plans';
import { BASE_PATH } from '../../lib/contract/routes';
import { RATE_LIMIT_HEADERS } from '../../lib/contract/headers';
import { banThreshold } from '../../lib/core/limiter/rules';
import { bearer, expectError, startLocalStack, type LocalStack } from '../support/local-stack';
import { ordersById } from '../support/orders-table';

const free = PLAN_LIMITS.free;
const CALLS = 100;
let stack: LocalStack;

beforeAll(async () => {
  stack = await startLocalStack();
  // One second into a minute, so the calls start in a fresh window.
  stack.clock.set(Date.parse('2026-11-22T10:00:01.000Z'));
});
afterAll(() => stack.close());

/**
 * The project's client on a new free key. Its waits move the stack's clock on to their end (never
 * back): concurrent waits for one Retry-After end together, as they would in real time.
 */
async function obedientClient() {
  const { key, id } = await stack.newKey('free');
  const retries: RetryEvent[] = [];
  const api = new StoreOrdersClient({
    baseUrl: `${stack.baseUrl}${BASE_PATH}`,
    apiKey: key,
    now: stack.clock.now,
    sleep: async (ms) => stack.clock.set(Math.max(stack.clock.now(), stack.clock.now() + ms)),
    random: () => 0.5,
    onRetry: (event) => void retries.push(event),
  });
  return { api, key, id, retries };
}

async function expectNotBanned(keyId: string) {
  const item = await stack.app.limiter.read(keyId, stack.clock.now());
  expect(item?.bannedUntil).toBeUndefined();
}

test(`${CALLS} concurrent listOrders() on a free key all complete, with no ban`, async () => {
  await stack.app.orders.putMany([{ id: '1', status: 'pending' }]);
  const { api, id, retries } = await obedientClient();
  const lists = await Promise.all(Array.from({ length: CALLS }, () => api.listOrders()));
  expect(lists.every((orders) => orders.some((order) => order.id === '1'))).toBe(true);
  await expectNotBanned(id);
  // The client ran its listings one at a time: none met TOO_MANY_LISTINGS; the minute's limit was
  // met by one call at a time, whose Retry-After the others waited out with it.
  expect(retries.filter((r) => r.error.code === 'TOO_MANY_LISTINGS')).toEqual([]);
  expect(retries.every((r) => r.error.code === 'RATE_LIMITED')).toBe(true);
  expect(retries.length).toBeLessThanOrEqual(Math.ceil(CALLS / free.perMinute));
});

test(`${CALLS} concurrent cancelOrder() on a free key all complete, with no ban`, async () => {
  const ids = Array.from({ length: CALLS }, (_, i) => String(1_000 + i));
  await stack.app.orders.putMany(ids.map((id) => ({ id, status: 'pending' as const })));
  const { api, id } = await obedientClient();
  await Promise.all(ids.map((orderId) => api.cancelOrder(orderId)));
  // One Scan of the table, past the API, instead of one read per order.
  const table = await ordersById(stack.tables);
  expect(ids.every((orderId) => table.get(orderId)?.status === 'cancelled')).toBe(true);
  await expectNotBanned(id);
});

test('TOO_MANY_LISTINGS uses up no slot and counts toward no ban, however often it is met', async () => {
  const { key, id } = await stack.newKey('free');
  // Another client of the key holds every listing slot meanwhile.
  const held = await Promise.all(
    Array.from({ length: LISTINGS_IN_FLIGHT.free }, () => stack.app.listings.acquire(id, LISTINGS_IN_FLIGHT.free)),
  );
  const list = () => stack.call('GET', `${BASE_PATH}/store/orders`, bearer(key));
  // More than a minute's limit and the ban threshold together, all in one minute, a few at a time.
  const batch = 10;
  for (let sent = 0; sent <= free.perMinute + banThreshold(free); sent += batch) {
    for (const refused of await Promise.all(Array.from({ length: batch }, list))) {
      await expectError(refused, 429, 'TOO_MANY_LISTINGS');
      expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    }
  }
  // Alone, the answer counts its slot as free again.
  const refused = await list();
  await expectError(refused, 429, 'TOO_MANY_LISTINGS');
  expect(refused.headers.get(RATE_LIMIT_HEADERS.remaining)).toBe(String(free.perMinute));
  expect(await stack.app.limiter.read(id, stack.clock.now())).toMatchObject({ day: 0, inMinute: 0, refused: 0 });
  await expectNotBanned(id);
  await Promise.all(held.map((lease) => lease.release()));
  const listed = await list();
  expect(listed.status).toBe(200);
  await listed.text();
});
