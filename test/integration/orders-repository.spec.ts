import { segmentsForItemCount, type OrdersRepository } from '../../lib/stores/orders';
import { OrderAlreadyShippedError, OrderNotFoundError, OrderNotPendingError } from '../../lib/core/orders/order-errors';
import type { Order } from '../../lib/contract/order';
import { createTestTables, type TestTables } from '../support/dynamo';

let tables: TestTables;
let repo: OrdersRepository;

beforeAll(async () => {
  tables = await createTestTables();
  repo = tables.stores().orders;
});
afterAll(() => tables.drop());

const INT64_MAX = '9223372036854775807';

/** The ids the listing's pages hold, from their JSON (ids as digits: no int64 passes a JS number). */
async function listedIds(segments = 1): Promise<string[]> {
  const ids: string[] = [];
  for await (const page of repo.listingPages({ segments, pageSize: 7 })) {
    const found = [...page.json.toString().matchAll(/\{"id":(-?\d+)/g)].map((match) => match[1] ?? '');
    expect(found).toHaveLength(page.orders);
    ids.push(...found);
  }
  return ids;
}

test('stores and reads int64 ids without losing a digit', async () => {
  await repo.putMany([
    { id: INT64_MAX, petId: '-9223372036854775808', status: 'pending' },
    { id: '9007199254740992', status: 'pending' },
    { id: '9007199254740993', status: 'pending', quantity: 3, complete: false, shipDate: '2026-11-20T10:00:00.000Z' },
  ]);
  expect(await repo.get(INT64_MAX)).toEqual({ id: INT64_MAX, petId: '-9223372036854775808', status: 'pending' });
  expect(await repo.get('9007199254740993')).toEqual({
    id: '9007199254740993',
    status: 'pending',
    quantity: 3,
    complete: false,
    shipDate: '2026-11-20T10:00:00.000Z',
  });
});

test('cancelling 2^53+1 never touches 2^53', async () => {
  await repo.cancel('9007199254740993');
  expect((await repo.get('9007199254740993'))?.status).toBe('cancelled');
  expect((await repo.get('9007199254740992'))?.status).toBe('pending');
});

test('cancel: pending -> cancelled, again is fine, shipped is refused, missing is not found', async () => {
  await repo.putMany([
    { id: '100', status: 'pending' },
    { id: '101', status: 'shipped' },
  ]);
  await repo.cancel('100');
  await repo.cancel('100');
  expect((await repo.get('100'))?.status).toBe('cancelled');
  await expect(repo.cancel('101')).rejects.toBeInstanceOf(OrderAlreadyShippedError);
  expect((await repo.get('101'))?.status).toBe('shipped');
  await expect(repo.cancel('102')).rejects.toBeInstanceOf(OrderNotFoundError);
  expect(await repo.get('102')).toBeUndefined();
});

test('ship: pending -> shipped, shipped again is a no-op, cancelled is refused', async () => {
  await repo.putMany([{ id: '200', status: 'pending' }]);
  await repo.ship('200');
  await repo.ship('200');
  expect((await repo.get('200'))?.status).toBe('shipped');
  await expect(repo.ship('100')).rejects.toBeInstanceOf(OrderNotPendingError);
  await expect(repo.ship('999')).rejects.toBeInstanceOf(OrderNotFoundError);
});

test('create never overwrites an existing order', async () => {
  expect(await repo.create({ id: '300', status: 'pending' })).toBe(true);
  await repo.ship('300');
  expect(await repo.create({ id: '300', status: 'pending' })).toBe(false);
  expect((await repo.get('300'))?.status).toBe('shipped');
});

test('listingPages follows every page, sequentially and with parallel segments', async () => {
  const many: Order[] = Array.from({ length: 60 }, (_, i) => ({ id: String(1000 + i), status: 'pending' }));
  await repo.putMany(many);
  const ids = await listedIds();
  expect(new Set(ids).size).toBe(ids.length);
  for (const o of many) expect(ids).toContain(o.id);
  const parallel = (await listedIds(4)).sort();
  expect(parallel).toEqual([...ids].sort());
});

describe('sizing the parallel scan to the table', () => {
  test('one segment per 50,000 orders, between 1 and 8', () => {
    expect([0, 1, 50_000, 50_001, 200_000, 400_000, 10_000_000].map(segmentsForItemCount)).toEqual([
      1, 1, 1, 2, 4, 8, 8,
    ]);
  });

  test('reads the item count from the table, then answers from its cache for an hour', async () => {
    const extra = await createTestTables();
    let now = Date.UTC(2026, 10, 22);
    const sized = extra.stores({ now: () => now }).orders;
    await sized.putMany([{ id: '1', status: 'pending' }]);
    expect(await sized.suggestedSegments()).toBe(1);
    await extra.drop();
    // The table is gone: only the cache can answer now.
    now += 59 * 60 * 1000;
    expect(await sized.suggestedSegments()).toBe(1);
    now += 2 * 60 * 1000;
    await expect(sized.suggestedSegments()).rejects.toThrow();
  });
});
