// A world no kinder than AWS for exact-sync tests: the local stack on a private embedded server
// whose indexes lag (up to the declared bound) and whose writes can be held, a virtual clock the
// stamps, the walks, the index lag and the holds all read (no real waiting), and replicas that
// follow docs/client.md: sync from the server's watermark, apply an order when it is later (and,
// for a replica of one status, drop the copy of an order that left it when the copy is older).
// Every walk's watermark is checked: never past the walk's start less the settling time. The orders
// table's stream runs too, read by the sync watch as on AWS (unless a test turns it off to show what
// is lost without it): a walk first lets the watch have the batches due by the virtual clock. Where a
// test asks for it, the index-lag canary runs every minute on the same clock, and the walks hold
// their watermark back by what it measures; such a test moves time with `pass`, through the
// canary's steps.
import { StoreOrdersClient } from '../../client/client';
import { applySync, type SyncedListedOrder } from '../../client/pages';
import type { OrderStatus } from '../../lib/contract/order';
import { MAX_CUSTOM_LIMITS } from '../../lib/contract/plans';
import { BASE_PATH } from '../../lib/contract/routes';
import { SYNC_TIMING } from '../../lib/contract/sync';
import type { createLocalApp } from '../../tools/local/app';
import type { EventSourceMapping } from '../../tools/local/stream-mapping';
import type { LocalSchedule } from '../../tools/local/schedule';
import type { HeldWrite } from '../../tools/local/embedded-dynamo';
import type { TestTables } from './dynamo';
import { bearer, startLocalStack, type LocalStack, type TestClock } from './local-stack';
import { syncedOrdersById } from './orders-table';

/** Virtual ms to hold the `n`th write to the orders table (1-based), or undefined for none. */
export type HoldPolicy = (write: HeldWrite, n: number) => number | undefined;

/** A replica that follows docs/client.md, of every order or of one status. */
export interface Replica {
  /** Where the replica syncs from next: the server's last watermark. */
  watermark: string;
  orders: Map<string, SyncedListedOrder>;
  /** One walk from the watermark, applied to the replica; the orders delivered. */
  sync(limit?: number): Promise<SyncedListedOrder[]>;
  /** What docs/client.md promises: after the freshness bound and three more syncs, replica == store (of its status). */
  expectConverged(limit?: number): Promise<void>;
}

export interface SyncWorld {
  clock: TestClock;
  app: ReturnType<typeof createLocalApp>;
  tables: TestTables;
  api: StoreOrdersClient;
  /** Where the replica syncs from next: the server's last watermark. */
  watermark: string;
  replica: Map<string, SyncedListedOrder>;
  /** Holds the orders table's writes as the policy says, from now on. */
  hold(policy: HoldPolicy | undefined): void;
  /** Writes held now. */
  held(): number;
  /** Resolves once `count` writes are held at once (a write reaches the server when it reaches it). */
  whenHeld(count: number): Promise<void>;
  /** Moves the virtual clock, releasing the holds that are over. */
  advance(ms: number): void;
  /** Awaits writes under way, moving the clock on each time one of them is held until none is. */
  finish(writes: readonly Promise<unknown>[]): Promise<void>;
  /** DELETE /v1/store/orders/{id}; resolves to the status. */
  cancel(id: string): Promise<number>;
  /** One walk from the watermark, applied to the replica; the orders delivered. */
  sync(limit?: number): Promise<SyncedListedOrder[]>;
  /** What docs/client.md promises: after the freshness bound and three more syncs, replica == store. */
  expectConverged(limit?: number): Promise<void>;
  /** A replica of the orders of one status, empty, syncing from the epoch. */
  replicaOf(status: OrderStatus): Replica;
  /** The index-lag canary's schedule; absent unless the world runs it (`canary: true`). */
  canary: LocalSchedule | undefined;
  /** The index lag of the writes from now on. */
  setIndexLagMs(maxMs: number): void;
  /**
   * Moves the virtual clock `ms` on, stopping at each step of the canary due on the way (a run's
   * start, the end of its wait between two reads) to run it at its time.
   */
  pass(ms: number): Promise<void>;
  /** The sync watch's event source mapping on the orders table's stream; absent with `watch: false`. */
  watch: EventSourceMapping | undefined;
  /**
   * Moves the virtual clock to each batch of the stream as it comes due and lets the watch have it,
   * until none waits (the watch's own re-stamps included); resolves to the time moved.
   */
  drainStream(): Promise<number>;
  close(): Promise<void>;
}

export interface SyncWorldOptions {
  indexLagMs?: number;
  random?: () => number;
  clock?: TestClock;
  /** Run the sync watch on the orders table's stream (default true). */
  watch?: boolean;
  /** Run the index-lag canary, and hold the walks' watermarks back by it (default false). */
  canary?: boolean;
}

export async function startSyncWorld(options: SyncWorldOptions = {}): Promise<SyncWorld> {
  let policy: HoldPolicy | undefined;
  let writes = 0;
  const holds: { until: number; release: () => void }[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const wake = () => {
    for (const waiter of waiters.filter((w) => holds.length >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  let ordersTable = '';
  const stack: LocalStack = await startLocalStack({
    ...(options.clock ? { clock: options.clock } : {}),
    dynamo: {
      // On the stack's virtual clock (startLocalStack's default for a lag).
      indexLag: {
        maxMs: options.indexLagMs ?? SYNC_TIMING.indexLagMs,
        ...(options.random ? { random: options.random } : {}),
      },
      holdWrites: (write) => {
        if (write.table !== ordersTable) return undefined;
        const ms = policy?.(write, ++writes);
        if (ms === undefined || ms <= 0) return undefined;
        return new Promise<void>((release) => {
          holds.push({ until: stack.clock.now() + ms, release });
          wake();
        });
      },
      ...(options.watch === false ? {} : { stream: {} }),
    },
    ...(options.canary ? { indexCanary: true } : {}),
  });
  const { clock, app, tables } = stack;
  const watch = app.streamMappings['sync-watch'];
  const canary = app.indexCanary;
  ordersTable = tables.names.orders;
  const { key } = await stack.newKey('enterprise', MAX_CUSTOM_LIMITS);
  // Through stack.call, so every answer the client reads is also checked against the v2 document.
  const viaStack = stack.fetch;
  const api = new StoreOrdersClient({ baseUrl: `${stack.baseUrl}${BASE_PATH}`, apiKey: key, fetch: viaStack });

  function newReplica(status?: OrderStatus): Replica {
    const replica: Replica = {
      watermark: '1970-01-01T00:00:00.000Z',
      orders: new Map(),
      sync: async (limit = 100) => {
        // The watch and the canary run beside the walks: whatever is due by now is theirs.
        await canary?.runDue();
        await watch?.deliverDue();
        const started = clock.now();
        const result = await api.syncOrders({ since: replica.watermark, limit, ...(status ? { status } : {}) });
        // Never past what had settled when the walk began, whatever it asked from; without a canary,
        // exactly that (with one, further back while it measures more lag than the budget).
        const settled = Date.parse(result.watermark) + app.settleMs;
        if (canary === undefined) expect(settled).toBeGreaterThanOrEqual(started);
        expect(settled).toBeLessThanOrEqual(clock.now());
        applySync(replica.orders, result);
        replica.watermark = result.watermark;
        return result.orders;
      },
      expectConverged: async (limit) => {
        await world.pass(SYNC_TIMING.freshnessMs);
        for (let round = 0; round < 3; round++) await replica.sync(limit);
        const all = await syncedOrdersById(tables.client, tables.names.orders);
        const store = new Map([...all].filter(([, order]) => status === undefined || order.status === status));
        const missed = [...store.values()].filter(
          (order) => replica.orders.get(order.id)?.updatedAt !== order.updatedAt,
        );
        expect(missed).toEqual([]);
        expect(replica.orders).toEqual(store);
        // The watch gave up on no batch (its on-failure destination stayed empty).
        expect(watch?.discarded ?? []).toEqual([]);
      },
    };
    return replica;
  }
  const main = newReplica();

  const world: SyncWorld = {
    clock,
    app,
    tables,
    api,
    get watermark() {
      return main.watermark;
    },
    set watermark(value: string) {
      main.watermark = value;
    },
    replica: main.orders,
    hold: (next) => {
      policy = next;
    },
    held: () => holds.length,
    whenHeld: (count) =>
      new Promise<void>((resolve) => {
        waiters.push({ count, resolve });
        wake();
      }),
    advance: (ms) => {
      clock.advance(ms);
      for (const hold of holds.filter((h) => h.until <= clock.now())) {
        holds.splice(holds.indexOf(hold), 1);
        hold.release();
      }
    },
    finish: async (writes) => {
      let done = false;
      const all = Promise.all(writes).finally(() => {
        done = true;
      });
      while (!done) {
        await Promise.race([all, world.whenHeld(1)]);
        const longest = Math.max(0, ...holds.map((h) => h.until - clock.now()));
        if (longest > 0) world.advance(longest);
      }
      await all;
    },
    cancel: async (id) => (await stack.call('DELETE', `${BASE_PATH}/store/orders/${id}`, bearer(key))).status,
    sync: (limit) => main.sync(limit),
    expectConverged: (limit) => main.expectConverged(limit),
    replicaOf: (status) => newReplica(status),
    watch,
    canary,
    setIndexLagMs: (maxMs) => stack.setIndexLagMs(maxMs),
    pass: async (ms) => {
      const until = clock.now() + ms;
      for (let due = canary?.nextDueAt(); due !== undefined && due <= until; due = canary?.nextDueAt()) {
        if (due > clock.now()) world.advance(due - clock.now());
        await canary?.runDue();
      }
      world.advance(until - clock.now());
      await canary?.runDue();
    },
    drainStream: async () => {
      const from = clock.now();
      for (let due = watch?.nextDueAt(); due !== undefined; due = watch?.nextDueAt()) {
        if (due > clock.now()) world.advance(due - clock.now());
        await watch?.deliverDue();
      }
      return clock.now() - from;
    },
    close: async () => {
      watch?.close();
      await canary?.close();
      for (const hold of holds.splice(0)) hold.release();
      await stack.close();
    },
  };
  return world;
}
