import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { OrdersRepository } from '../../lib/stores/orders';
import { awsClock } from '../../lib/stores/aws-clock';
import { SYNC_TIMING } from '../../lib/contract/sync';
import { OrderAlreadyShippedError } from '../../lib/core/orders/order-errors';
import { syncAttributes } from '../../lib/core/sync/keys';
import type { OrderStatus } from '../../lib/contract/order';
import { createTestTables, type TestTables } from '../support/dynamo';
import { testClock } from '../support/local-stack';

let tables: TestTables;
const clock = testClock();
let repo: OrdersRepository;

beforeAll(async () => {
  tables = await createTestTables();
  repo = tables.stores({ now: clock.now }).orders;
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

test('two changes in one millisecond: the second is stamped one millisecond after the first', async () => {
  await repo.create({ id: '30', status: 'pending' });
  await repo.cancel('30');
  await expectStamped('30', 'cancelled', clock.now() + 1);
});

test('a writer whose clock is a minute ahead cannot hide a later change: the next stamp follows its stamp', async () => {
  const ahead = tables.stores({ now: () => clock.now() + 60_000 }).orders;
  await ahead.create({ id: '31', status: 'pending' });
  await repo.ship('31');
  await expectStamped('31', 'shipped', clock.now() + 60_001);
});

/**
 * A writer client whose first stamped write is not answered: `landed` applies it and loses the reply
 * (an attempt that reached the table unanswered), `held` keeps it back to send later (one that lands
 * after its writer gave up). Either way the writer sees a timeout; the table is the real one.
 */
function unansweredOnce(mode: 'landed' | 'held') {
  let first = true;
  const held: { send?: () => Promise<unknown> } = {};
  const writer = new Proxy(tables.doc, {
    get(target, name, receiver) {
      if (name !== 'send') return Reflect.get(target, name, receiver) as unknown;
      return async (command: Parameters<typeof tables.doc.send>[0]) => {
        if (!first) return target.send(command);
        first = false;
        if (mode === 'landed') await target.send(command);
        else held.send = () => target.send(command);
        throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
      };
    },
  });
  // Built by hand on purpose: its writer is that stand-in client, which no wiring gives.
  return { repo: new OrdersRepository(tables.doc, tables.names.orders, { clock: clock.now, writer }), held };
}

test.each([
  ['create', (r: OrdersRepository) => r.create({ id: '40', status: 'pending' }), '40', 'pending'],
  ['cancel', (r: OrdersRepository) => r.cancel('41'), '41', 'cancelled'],
  ['ship', (r: OrdersRepository) => r.ship('42'), '42', 'shipped'],
] as const)(
  'an attempt that landed unanswered is stamped again by the retry (%s), which reports the write as done',
  async (_name, write, id, status) => {
    if (status !== 'pending') await repo.create({ id, status: 'pending' });
    clock.advance(1_000);
    const { repo: retrying } = unansweredOnce('landed');
    expect(await write(retrying)).not.toBe(false);
    // The retry's stamp: later than the attempt that landed, in the same millisecond.
    await expectStamped(id, status, clock.now() + 1);
  },
);

test('an attempt that reaches the table after its retry was applied changes nothing', async () => {
  await repo.create({ id: '50', status: 'pending' });
  clock.advance(1_000);
  const { repo: retrying, held } = unansweredOnce('held');
  await retrying.cancel('50');
  const retried = await rawItem('50');
  expect(retried).toMatchObject(syncAttributes('50', 'cancelled', new Date(clock.now() + 1).toISOString()));
  // The first attempt lands now, late, with its older stamp: its condition (pending) no longer holds.
  await expect(held.send?.()).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
  expect(await rawItem('50')).toEqual(retried);
});

test('the clock updatedAt is stamped from is corrected from DynamoDB replies: an operator clock a minute fast is not', async () => {
  const fast = () => Date.now() + 60_000;
  const stamps = awsClock(tables.client, fast);
  expect(stamps.now() - Date.now()).toBeGreaterThan(59_000);
  await tables.client.send(new GetItemCommand({ TableName: tables.names.orders, Key: { id: { N: '1' } } }));
  expect(Math.abs(stamps.now() - Date.now())).toBeLessThanOrEqual(SYNC_TIMING.clockErrorMs);
});
