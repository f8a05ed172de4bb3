// `orders backfill-updated-at`: stamps the orders written before v2, once, and never over a live write.
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { syncAttributes } from '../../lib/core/sync/keys';
import type { OrdersRepository } from '../../lib/stores/orders';
import { createTestTables, type TestTables } from '../support/dynamo';
import { adminRunner, testTarget, type Admin } from '../support/admin-harness';
import { testClock } from '../support/local-stack';

let tables: TestTables;
let admin: Admin;
const clock = testClock();
let repo: OrdersRepository;

beforeAll(async () => {
  tables = await createTestTables();
  admin = adminRunner(() => testTarget(tables));
  repo = tables.stores({ now: clock.now }).orders;
});
afterAll(() => tables.drop());

/** An order as a pre-v2 function wrote it: no updatedAt, no index keys. */
const writePreV2 = (id: number, status: string) =>
  tables.doc.send(new PutCommand({ TableName: tables.names.orders, Item: { id, status } }));

async function item(id: string): Promise<Record<string, unknown>> {
  const { Item } = await tables.client.send(
    new GetItemCommand({ TableName: tables.names.orders, Key: { id: { N: id } }, ConsistentRead: true }),
  );
  return Item ? unmarshall(Item) : {};
}

test('stamps every pre-v2 order with its index keys, leaves stamped ones alone, and a second run has nothing to do', async () => {
  for (let id = 1; id <= 30; id++) await writePreV2(id, id % 3 ? 'pending' : 'shipped');
  const stampedBefore = '2026-01-01T00:00:00.000Z';
  await repo.putMany([{ id: '100', status: 'cancelled', updatedAt: stampedBefore }]);

  const first = await admin('orders', 'backfill-updated-at');
  expect(first.stderr).toBe('');
  expect(first.code).toBe(0);
  expect(first.stdout).toContain('30 orders stamped');
  for (let id = 1; id <= 30; id++) {
    const found = await item(String(id));
    expect(typeof found.updatedAt).toBe('string');
    expect(found).toMatchObject(syncAttributes(String(id), found.status as 'pending', found.updatedAt as string));
  }
  expect((await item('100')).updatedAt).toBe(stampedBefore);

  const again = await admin('orders', 'backfill-updated-at');
  expect(again.code).toBe(0);
  expect(again.stdout).toContain(' 0 orders stamped');
});

test('a cancel between the read and the stamp wins: the stamp is refused and the cancel stands', async () => {
  await writePreV2(200, 'pending');
  await writePreV2(201, 'pending');
  const read: string[] = [];
  for await (const page of repo.ordersWithoutUpdatedAt()) read.push(...page.map((o) => o.id));
  expect(read.sort()).toEqual(['200', '201']);

  clock.advance(60_000);
  await repo.cancel('200');
  const cancelledAt = new Date(clock.now()).toISOString();
  // A pre-v2 function still serving during the deploy changes the status without a stamp.
  await writePreV2(201, 'cancelled');
  clock.advance(60_000);

  expect(await repo.stampUpdatedAt('200', 'pending')).toBe(false);
  expect(await repo.stampUpdatedAt('201', 'pending')).toBe(false);
  expect(await item('200')).toMatchObject(syncAttributes('200', 'cancelled', cancelledAt));
  expect(await item('201')).not.toHaveProperty('updatedAt');
  // The next run stamps 201 with the status it has now.
  expect((await admin('orders', 'backfill-updated-at')).stdout).toContain(' 1 orders stamped');
  expect(await item('201')).toMatchObject({ status: 'cancelled', statusShard: expect.stringMatching(/^cancelled#/) });
});

test('a deleted order is not re-created by its stamp', async () => {
  expect(await repo.stampUpdatedAt('999', 'pending')).toBe(false);
  expect(await item('999')).toEqual({});
});
