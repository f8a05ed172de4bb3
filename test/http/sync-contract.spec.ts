// The v2 sync contract's edges through the local stack, on the same lagging, virtual-time world as
// the exact-sync scenarios (issue 44): a walk never vouches past what is settled (an updatedSince
// in the future is refused; one that is not a watermark still gives a settled one), and a replica
// of one status ends equal to that status's orders, told which orders left it.
import { StoreOrdersApiError } from '../../client/client';
import { ORDER_STATUSES } from '../../lib/contract/order';
import { startSyncWorld, type SyncWorld } from '../support/sync-world';

let world: SyncWorld;
beforeEach(async () => {
  world = await startSyncWorld();
});
afterEach(() => world.close());

const iso = (ms: number) => new Date(ms).toISOString();
const isWriteOf = (id: string) => (write: { operation: string; body: string }) =>
  write.operation === 'UpdateItem' && write.body.includes(`"N":"${id}"`);

test("an updatedSince in the future is 400 INVALID_QUERY, naming the server's time", async () => {
  await world.app.orders.create({ id: '1', status: 'pending' });
  const now = world.clock.now();
  const refused: unknown = await world.api.syncOrders({ since: iso(now + 120_000) }).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(StoreOrdersApiError);
  expect(refused).toMatchObject({ code: 'INVALID_QUERY', status: 400 });
  expect((refused as Error).message).toBe(
    `updatedSince: ${iso(now + 120_000)} is later than the server's time (${iso(now)}); ` +
      "give your last walk's watermark, or an earlier instant",
  );
  // The case: a cancel acknowledged after that instant reaches a replica that syncs on.
  expect(await world.cancel('1')).toBe(204);
  await world.expectConverged();
  expect(world.replica.get('1')?.status).toBe('cancelled');
});

test('a walk from an instant that is not a watermark answers a settled one, and a late write is not missed', async () => {
  await world.app.orders.putMany(['1', '2'].map((id) => ({ id, status: 'pending' as const })));
  await world.expectConverged();
  // A cancel stamped now whose write reaches the table 2 s later.
  world.hold((write) => (isWriteOf('1')(write) ? 2_000 : undefined));
  const slow = world.cancel('1');
  await world.whenHeld(1);
  world.advance(500);
  // A client that syncs from its own reading of the time, later than the held cancel's stamp: the
  // walk's watermark is its start less the settling time (the world checks every walk's).
  const asked = iso(world.clock.now());
  world.watermark = asked;
  await world.sync();
  expect(world.watermark).toBe(iso(world.clock.now() - world.app.settleMs));
  expect(world.watermark < asked).toBe(true);
  expect(world.replica.get('1')?.status).toBe('pending');
  world.advance(2_000);
  expect(await slow).toBe(204);
  await world.expectConverged();
  expect(world.replica.get('1')?.status).toBe('cancelled');
});

test('replicas of each status end equal to the orders of that status: cancelled, shipped, created and late', async () => {
  await world.app.orders.putMany([
    ...Array.from({ length: 12 }, (_, i) => ({ id: String(i + 1), status: 'pending' as const })),
    { id: '100', status: 'shipped' as const, complete: true },
    { id: '101', status: 'cancelled' as const },
  ]);
  const replicas = ORDER_STATUSES.map((status) => ({ status, replica: world.replicaOf(status) }));
  // First syncs from the epoch, in pages of 2 so that a walk crosses pages and shards.
  for (const { replica } of replicas) await replica.expectConverged(2);
  expect(replicas.find((r) => r.status === 'pending')?.replica.orders.size).toBe(12);

  world.advance(1_000);
  expect(await world.cancel('1')).toBe(204);
  await world.app.orders.ship('2');
  // Created and cancelled between two syncs: the pending replica never held it.
  await world.app.orders.create({ id: '20', status: 'pending' });
  expect(await world.cancel('20')).toBe(204);
  // A ship whose write reaches the table 2 s after its stamp, while the replicas sync.
  world.hold((write) => (isWriteOf('3')(write) ? 2_000 : undefined));
  const slow = world.app.orders.ship('3');
  await world.whenHeld(1);
  world.advance(500);
  for (const { replica } of replicas) await replica.sync(2);
  world.hold(undefined);
  world.advance(2_000);
  await slow;
  // More changes after the late one: a cancel and a ship of orders the replicas have synced.
  expect(await world.cancel('4')).toBe(204);
  await world.app.orders.ship('5');

  for (const { replica } of replicas) await replica.expectConverged(2);
  const pending = replicas.find((r) => r.status === 'pending')?.replica;
  expect([...(pending?.orders.keys() ?? [])].sort()).toEqual(['10', '11', '12', '6', '7', '8', '9']);
  await world.expectConverged(2);
});
