// Changes that reach the table later than the walks' settling time allows (issue 44: a write landing
// 20 s after its stamp, a writer whose clock is 10 minutes slow), through the local stack on a
// virtual clock: a replica that follows the documented loop has already been handed a watermark past
// the change's stamp when the change lands, so no later walk reads it. The orders table's stream
// shows how late it landed, and the sync watch re-stamps it; the replica then ends equal to the
// store within the documented repair time. Without the watch the same scenario loses the change.
import { syncRepairMs } from '../../lib/contract/deployment';
import { SYNC_TIMING } from '../../lib/contract/sync';
import { syncedOrdersById } from '../support/orders-table';
import { startSyncWorld, type SyncWorld } from '../support/sync-world';

/** How late the held cancel lands after its stamp. */
const LATE_MS = 20_000;
const SLOW_CLOCK_MS = 10 * 60_000;

let world: SyncWorld;
afterEach(() => world.close());

const isUpdateOf = (id: string) => (write: { operation: string; body: string }) =>
  write.operation === 'UpdateItem' && write.body.includes(`"N":"${id}"`);

/** Pending orders 1 and 2, settled into the replica. */
async function seeded(): Promise<void> {
  await world.app.orders.putMany([
    { id: '1', status: 'pending' },
    { id: '2', status: 'pending' },
  ]);
  await world.expectConverged();
}

interface Scenario {
  /** Makes order 1's change so that the replica's watermark has passed its stamp when it lands; resolves once it has landed. */
  change(): Promise<{ stamp: string }>;
}

const SCENARIOS: Record<string, Scenario> = {
  [`a cancel landing ${LATE_MS / 1000} s after its stamp`]: {
    async change() {
      // Only the cancel's own write is held: the watch's re-stamp of it lands at once.
      let held = false;
      world.hold((write) => {
        if (held || !isUpdateOf('1')(write)) return undefined;
        held = true;
        return LATE_MS;
      });
      const stampedAt = world.clock.now();
      const cancel = world.cancel('1');
      await world.whenHeld(1);
      // The replica syncs while the cancel is on its way: past the settling time, its watermark
      // is past the cancel's stamp.
      world.advance(world.app.settleMs + 1_000);
      expect(await world.cancel('2')).toBe(204);
      await world.sync();
      expect(Date.parse(world.watermark)).toBeGreaterThan(stampedAt);
      world.advance(LATE_MS - world.app.settleMs - 1_000);
      expect(await cancel).toBe(204);
      const stored = (await syncedOrdersById(world.tables.client, world.tables.names.orders)).get('1');
      expect(stored?.status).toBe('cancelled');
      // Stamped when it was sent, landed LATE_MS later.
      expect(Date.parse(stored?.updatedAt ?? '')).toBe(stampedAt);
      return { stamp: stored?.updatedAt ?? '' };
    },
  },
  'a ship by a writer whose clock is 10 minutes slow': {
    async change() {
      world.advance(world.app.settleMs + 1_000);
      await world.sync();
      const slow = world.tables.stores({ now: () => world.clock.now() - SLOW_CLOCK_MS }).orders;
      await slow.ship('1');
      const stored = (await syncedOrdersById(world.tables.client, world.tables.names.orders)).get('1');
      expect(stored?.status).toBe('shipped');
      // Its stamp follows the order's last one (stamps never go back), long behind the watermark.
      expect(Date.parse(stored?.updatedAt ?? '')).toBeLessThan(Date.parse(world.watermark));
      return { stamp: stored?.updatedAt ?? '' };
    },
  },
};

describe.each(Object.entries(SCENARIOS))('%s', (_name, scenario) => {
  test('is lost by the replica when nothing watches the stream', async () => {
    world = await startSyncWorld({ watch: false });
    await seeded();
    await scenario.change();
    // The documented loop, long after: the freshness bound and three more syncs.
    world.advance(syncRepairMs());
    for (let round = 0; round < 3; round++) await world.sync();
    const store = await syncedOrdersById(world.tables.client, world.tables.names.orders);
    expect(store.get('1')?.status).not.toBe('pending');
    expect(world.replica.get('1')?.status).toBe('pending');
  });

  test('is re-stamped by the sync watch, and the replica ends equal to the store within the repair time', async () => {
    world = await startSyncWorld();
    await seeded();
    const { stamp } = await scenario.change();
    const landedAt = world.clock.now();
    await world.drainStream();
    const restamped = (await syncedOrdersById(world.tables.client, world.tables.names.orders)).get('1');
    expect(Date.parse(restamped?.updatedAt ?? '')).toBeGreaterThan(Date.parse(stamp));
    // The documented loop: a walk starting freshnessMs after the re-stamp has it.
    await world.expectConverged();
    expect(world.clock.now() - landedAt).toBeLessThanOrEqual(syncRepairMs());
    expect(world.replica.get('1')?.updatedAt).toBe(restamped?.updatedAt);
    expect(world.watch?.discarded).toEqual([]);
  });
});

test('the watch re-stamps nothing when every change lands in time, its own re-stamps included', async () => {
  world = await startSyncWorld();
  await seeded();
  for (const id of ['1', '2']) expect(await world.cancel(id)).toBe(204);
  const before = await syncedOrdersById(world.tables.client, world.tables.names.orders);
  await world.drainStream();
  world.advance(SYNC_TIMING.freshnessMs);
  await world.drainStream();
  expect(await syncedOrdersById(world.tables.client, world.tables.names.orders)).toEqual(before);
  expect(world.watch?.nextDueAt()).toBeUndefined();
});
