// Random interleavings of cancels (HTTP), ships, creates and imports (the repository), held writes
// (up to the bound the watermark allows for), index lag and sync rounds, on the lagging local stack
// with a virtual clock: after the freshness bound and three more syncs the replica equals the store,
// and a replica of the pending orders equals the pending orders.
import fc from 'fast-check';
import { SYNC_TIMING } from '../../lib/contract/sync';
import { startSyncWorld } from '../support/sync-world';

const SEEDED = 12;

type Step =
  | { kind: 'cancel'; order: number }
  | { kind: 'ship'; order: number }
  | { kind: 'create' }
  | { kind: 'import'; count: number }
  | { kind: 'hold'; ms: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'sync'; limit: number };

const order = fc.integer({ min: 1, max: SEEDED });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('cancel' as const), order }),
  fc.record({ kind: fc.constant('ship' as const), order }),
  fc.record({ kind: fc.constant('create' as const) }),
  fc.record({ kind: fc.constant('import' as const), count: fc.integer({ min: 2, max: 6 }) }),
  // Held no longer than a write can take unanswered: the watermark's settling time allows for that.
  fc.record({ kind: fc.constant('hold' as const), ms: fc.integer({ min: 1, max: SYNC_TIMING.unansweredLandingMs }) }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 3_000 }) }),
  fc.record({ kind: fc.constant('sync' as const), limit: fc.integer({ min: 1, max: 8 }) }),
);

test('replica == store (and pending replica == pending orders) after any interleaving of writes, holds, index lag and syncs', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 30 }), fc.integer(), async (steps, seed) => {
      let state = seed;
      // The index lag's draws, repeatable from the run's seed.
      const random = () => (state = (state * 1_103_515_245 + 12_345) & 0x7fffffff) / 0x80000000;
      const world = await startSyncWorld({ random });
      try {
        await world.app.orders.putMany(
          Array.from({ length: SEEDED }, (_, i) => ({ id: String(i + 1), status: 'pending' })),
        );
        const pending = world.replicaOf('pending');
        const writes: Promise<unknown>[] = [];
        let nextId = 1_000;
        let holdNext: number | undefined;
        world.hold(() => {
          const ms = holdNext;
          holdNext = undefined;
          return ms;
        });
        for (const s of steps) {
          if (s.kind === 'cancel') writes.push(world.cancel(String(s.order)));
          // A ship of an order that is no longer pending is refused: that refusal is part of the run.
          else if (s.kind === 'ship') writes.push(world.app.orders.ship(String(s.order)).catch(() => undefined));
          else if (s.kind === 'create')
            writes.push(world.app.orders.create({ id: String(nextId++), status: 'pending' }));
          else if (s.kind === 'import')
            for (let i = 0; i < s.count; i++)
              writes.push(world.app.orders.create({ id: String(nextId++), status: 'pending' }));
          else if (s.kind === 'hold') holdNext = s.ms;
          else if (s.kind === 'advance') world.advance(s.ms);
          else {
            await world.sync(s.limit);
            await pending.sync(s.limit);
          }
        }
        await world.finish(writes);
        await world.expectConverged(5);
        await pending.expectConverged(5);
      } finally {
        await world.close();
      }
    }),
    { numRuns: 10 },
  );
}, 120_000);
