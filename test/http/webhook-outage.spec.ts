// Issue 45's "done when", through the local stack: 2,000 order changes while one receiver is down for
// 10 minutes (of the world's clock), then up. Every change reaches it (or a later change of the same
// order does, which carries the whole order: an older one is never sent after it), its copy ends equal
// to the store, its retries are spaced as lib/contract/webhook-delivery.ts declares, and the other
// endpoint gets every change within seconds all along. The queue is no kinder than SQS: any order, 2 %
// of receives duplicated; the jitter and the queue's order are seeded.
import { retryStepMs, WEBHOOK_DELIVERY, type WebhookDeliveryAttempt } from '../../lib/contract/webhook-delivery';
import type { SyncedOrder } from '../../lib/contract/synced-order';
import { seededRandom } from '../support/load-driver';
import { startWebhookWorld, type Received, type WebhookWorld } from '../support/webhook-world';

const MINUTE = 60_000;
const ORDERS = 1_000;
/** Each order is created, then cancelled or shipped: two changes each. */
const CHANGES = 2 * ORDERS;

let world: WebhookWorld;
afterAll(() => world?.close());

/** (id, updatedAt) of every order event a receiver acknowledged. */
const changesOf = (received: readonly Received[]) =>
  new Set(
    received.flatMap((r) => (r.event && 'id' in r.event.data ? [`${r.event.data.id}@${r.event.data.updatedAt}`] : [])),
  );

test('2,000 changes while a receiver is down for 10 minutes: all delivered once it is up, retries spaced as declared, the other endpoint unaffected', async () => {
  world = await startWebhookWorld({
    deliveryQueue: { duplicateRate: 0.02, random: seededRandom(45) },
    random: seededRandom(7),
  });
  const { orders } = world.stack.app;
  const dead = await world.receiver();
  const live = await world.receiver();
  await dead.down();
  const downAt = world.stack.clock.now();
  // Every change, as the store stamped it: (id, updatedAt) → when it was made.
  const changes = new Map<string, number>();
  const note = async (ids: readonly string[]) => {
    for (const id of ids) {
      const order = await orders.getSynced(id);
      changes.set(`${id}@${order?.updatedAt}`, world.stack.clock.now());
    }
  };
  // Ten rounds a minute apart: 100 orders created, and the 100 of the round before cancelled or shipped.
  for (let round = 0; round <= 10; round++) {
    const created = Array.from({ length: round < 10 ? 100 : 0 }, (_, i) => String(round * 100 + i + 1));
    const at = new Date(world.stack.clock.now()).toISOString();
    if (created.length > 0)
      await orders.putMany(created.map((id) => ({ id, petId: '5', quantity: 1, status: 'pending', updatedAt: at })));
    const previous = Array.from({ length: round > 0 ? 100 : 0 }, (_, i) => String((round - 1) * 100 + i + 1));
    for (const id of previous) await (Number(id) % 2 === 0 ? orders.ship(id) : orders.cancel(id));
    await note([...created, ...previous]);
    await world.runFor(MINUTE - 1);
  }
  expect(changes.size).toBe(CHANGES);
  expect(world.stack.clock.now() - downAt).toBeGreaterThanOrEqual(10 * MINUTE);

  // The live endpoint had every change, each within seconds of it, while the other was down.
  const liveChanges = changesOf(live.received);
  expect([...changes.keys()].filter((change) => !liveChanges.has(change))).toEqual([]);
  for (const r of live.received)
    if (r.event && 'id' in r.event.data) {
      const made = changes.get(`${r.event.data.id}@${r.event.data.updatedAt}`) ?? -Infinity;
      expect(r.at - made).toBeLessThanOrEqual(5_000);
    }

  // Up again: within one step of the schedule (and the spread of the waiting events) it has everything.
  await dead.up();
  await world.runFor(30 * MINUTE);
  expect(dead.received.length).toBeGreaterThan(0);
  expect(dead.received.every((r) => r.verified)).toBe(true);
  const store = await world.store();
  expect(dead.replica).toEqual(store);
  expect(live.replica).toEqual(store);

  // Every change reached it, or a later change of its order did first (which holds the whole order).
  const attempts = await world.stack.app.webhookDeliveries.recentAttempts(
    dead.endpoint.id,
    world.stack.clock.now(),
    100_000,
  );
  const deadChanges = changesOf(dead.received);
  const superseded = new Set(
    attempts.filter((a) => a.outcome === 'superseded').map((a) => `${a.orderId}@${a.updatedAt}`),
  );
  const latest = new Map<string, string>();
  for (const order of store.values()) latest.set(order.id, (order as SyncedOrder).updatedAt ?? '');
  for (const change of changes.keys()) {
    if (deadChanges.has(change)) continue;
    expect(superseded.has(change) ? change : `${change} neither delivered nor superseded`).toBe(change);
    const [id, updatedAt] = change.split('@') as [string, string];
    expect(deadChanges.has(`${id}@${latest.get(id)}`) && (latest.get(id) ?? '') > updatedAt).toBe(true);
  }
  // No older change of an order after a newer one it acknowledged.
  const seen = new Map<string, string>();
  for (const r of dead.received)
    if (r.event && 'id' in r.event.data) {
      const { id, updatedAt = '' } = r.event.data;
      expect(updatedAt >= (seen.get(id) ?? '')).toBe(true);
      seen.set(id, updatedAt);
    }

  // Its retries: after the first failure, one attempt a step, each wait within the step's bounds
  // (half the step to the whole), joined by the waiting events within a lease.
  const failedAt = [...new Set(failedTimes(attempts))].sort((a, b) => a - b);
  const [first, ...probes] = failedAt;
  expect(first).toBeDefined();
  let previous = first ?? 0;
  const offSchedule = probes.flatMap((at, n) => {
    const [step, waitedMs] = [retryStepMs(n + 1), at - previous];
    previous = at;
    return waitedMs >= step / 2 && waitedMs <= step + WEBHOOK_DELIVERY.leaseMs
      ? []
      : [{ retry: n + 1, waitedMs, step }];
  });
  expect(offSchedule).toEqual([]);
  expect(probes.length).toBeGreaterThanOrEqual(7);
  // Nothing was given up on: no batch of the stream, no message of the queue.
  for (const mapping of Object.values(world.stack.app.streamMappings)) expect(mapping.discarded).toEqual([]);
  expect(world.stack.app.webhookQueue.queue.deadLetters).toEqual([]);
}, 600_000);

function failedTimes(attempts: readonly WebhookDeliveryAttempt[]): number[] {
  return attempts.filter((a) => a.outcome === 'failed').map((a) => Date.parse(a.attemptedAt));
}
