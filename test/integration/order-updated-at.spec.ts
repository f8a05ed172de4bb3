import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { OrdersRepository } from '../../lib/stores/orders';
import { OrderAlreadyShippedError } from '../../lib/core/order-errors';
import { syncAttributes } from '../../lib/core/sync-keys';
import type { OrderStatus } from '../../lib/contract/order';
import { createTestTables, type TestTables } from '../support/dynamo';
import { testClock } from '../support/local-stack';

let tables: TestTables;
const clock = testClock();
let repo: OrdersRepository;

beforeAll(async () => {
  tables = await createTestTables();
  repo = new OrdersRepository(tables.doc, tables.names.orders, { clock: clock.now });
});
afterAll(() => tables.drop());

async function rawItem(id: string): Promise<Record<string, unknown>> {
  const { Item } = await tables.client.send(
    new GetItemCommand({ TableName: tables.names.orders, Key: { id: { N: id } }, ConsistentRead: true }),
  );
  if (!Item) throw new Error(`no item ${id}`);
  return unmarshall(Item);
}

/** The item holds updatedAt and the index keys of that status and time, and v1's read shows neither. */
async function expectStamped(id: string, status: OrderStatus, at: number): Promise<void> {
  expect(await rawItem(id)).toMatchObject(syncAttributes(id, status, new Date(at).toISOString()));
  expect(Object.keys((await repo.get(id)) ?? {})).not.toContain('updatedAt');
}

test('create, putMany, cancel and ship each set updatedAt and the index keys to the time of the write', async () => {
  await repo.create({ id: '1', status: 'pending' });
  await expectStamped('1', 'pending', clock.now());
  await repo.putMany([{ id: '2', status: 'pending' }]);
  await expectStamped('2', 'pending', clock.now());

  clock.advance(60_000);
  await repo.cancel('1');
  await expectStamped('1', 'cancelled', clock.now());
  clock.advance(60_000);
  await repo.ship('2');
  await expectStamped('2', 'shipped', clock.now());
});

test('a write that changes nothing leaves updatedAt alone', async () => {
  await repo.create({ id: '10', status: 'pending' });
  const created = clock.now();
  clock.advance(60_000);
  await repo.ship('10');
  const shipped = clock.now();
  clock.advance(60_000);
  await expect(repo.cancel('10')).rejects.toBeInstanceOf(OrderAlreadyShippedError);
  expect(await repo.create({ id: '10', status: 'pending' })).toBe(false);
  await expectStamped('10', 'shipped', shipped);
  expect(shipped).toBeGreaterThan(created);
});

test('a given updatedAt (demo data, benchmarks) is kept', async () => {
  const at = '2026-01-02T03:04:05.678Z';
  await repo.putMany([{ id: '20', status: 'pending', updatedAt: at }]);
  await expectStamped('20', 'pending', Date.parse(at));
});
