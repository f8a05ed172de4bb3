// The index-lag canary against the embedded server whose indexes lag (tools/local/index-lag.ts) on
// a virtual clock: what a run measures and keeps on the sentinel, a probe never seen within the
// read-back time and bounded by a later one, two runs that overlap; the sentinel in no listing and
// no stream consumer's orders; the sweep of an episode, and the sync watch doing it when, and only
// when, the sentinel's stream record asks.
import type { DynamoDBRecord } from 'aws-lambda';
import { INDEX_CANARY, SENTINEL_ID } from '../../lib/contract/index-canary';
import { SYNC_TIMING } from '../../lib/contract/sync';
import { ORDER_INDEXES } from '../../lib/contract/tables';
import { isSentinel } from '../../lib/core/sync/sentinel';
import { runCanary, type IndexCanaryDeps } from '../../lib/edge/index-canary-handler';
import { watchBatch } from '../../lib/edge/sync-watch-handler';
import { indexLagRepairStore, storesFor, type Stores } from '../../lib/root/stores';
import { lagTimingOf, watchBoundsOf, type Wiring } from '../../lib/root/wiring';
import { repairAskedBy } from '../../lib/stores/index-canary';
import { orderChangeOf } from '../../lib/stores/order-changes';
import { OrderPages } from '../../lib/stores/order-pages';
import { storeIsEmpty } from '../../tools/local/demo-data';
import { startLaggingTables, type LaggingTables } from '../support/lagging-dynamo';
import { testClock } from '../support/local-stack';

const clock = testClock();
let tables: LaggingTables;
let wiring: Wiring;
let stores: Stores;
let records: DynamoDBRecord[];

beforeEach(async () => {
  // Every write's index changes show exactly the lag later (set per test with setIndexLagMs).
  tables = await startLaggingTables({
    indexLag: { maxMs: 0, now: clock.now, random: () => 1 },
    stream: { now: clock.now },
  });
  wiring = { endpoint: tables.endpoint, tables: tables.names, now: clock.now };
  stores = storesFor(wiring);
  records = [];
  tables.dynamo.stream?.subscribe(tables.names.orders, (r) => records.push(r.record));
});
afterEach(() => tables.close());

/** The canary as the root makes it, its waits moving the virtual clock. */
const canary = (): IndexCanaryDeps => ({
  canary: stores.canary,
  now: clock.now,
  timing: lagTimingOf(wiring),
  sleep: async (ms) => clock.advance(ms),
});
const INDEXES = Object.values(ORDER_INDEXES).map((index) => index.name);
const iso = (ms: number) => new Date(ms).toISOString();

test('a run reads its probe back through each index and keeps what it measured on the sentinel', async () => {
  tables.dynamo.setIndexLagMs(3_000);
  const start = clock.now();
  const run = await runCanary(canary());
  if (run.kind !== 'measured') throw new Error('overtaken');
  expect(Object.keys(run.lagByIndex).sort()).toEqual([...INDEXES].sort());
  for (const lag of Object.values(run.lagByIndex)) {
    expect(lag).toBeGreaterThanOrEqual(3_000);
    expect(lag).toBeLessThan(3_000 + INDEX_CANARY.pollMs);
  }
  expect(run.measurement).toEqual({ probeMs: start, lagMs: Math.max(...Object.values(run.lagByIndex)), seen: true });
  expect(await stores.canary.read()).toEqual({ probeMs: start, measurements: [run.measurement] });
  expect(run.repairs).toEqual([]);
});

test('a probe unseen within the read-back time is recorded unseen; the next one seen bounds it', async () => {
  tables.dynamo.setIndexLagMs(INDEX_CANARY.readBackMs + 30_000);
  const first = await runCanary(canary());
  expect(first).toMatchObject({ kind: 'measured', measurement: { seen: false } });
  tables.dynamo.setIndexLagMs(500);
  // Past the first probe's index change, and the first run's record's (the item's next change).
  clock.set(clock.now() + 2 * (INDEX_CANARY.readBackMs + 30_000));
  const second = await runCanary(canary());
  if (first.kind !== 'measured' || second.kind !== 'measured') throw new Error('overtaken');
  // The index shows one item's changes in order: the second probe waited for the first.
  const seenAt = second.measurement.probeMs + second.measurement.lagMs;
  const record = await stores.canary.read();
  expect(record?.measurements[0]).toEqual({
    probeMs: first.measurement.probeMs,
    lagMs: seenAt - first.measurement.probeMs,
    seen: true,
  });
  // The first over the budget opened an episode (from a period before it: no probe came before);
  // the second, back within it, ended it and asked for its first sweep.
  expect(record?.episode).toEqual({
    fromMs: first.measurement.probeMs - INDEX_CANARY.periodSeconds * 1000,
    toMs: second.measurement.probeMs,
    sweeps: 1,
  });
  expect(second.repairs).toMatchObject([{ sweep: 1 }]);
});

test('of two runs that overlap, the one whose probe came later keeps the record; the other measures nothing', async () => {
  const previous = await stores.canary.read();
  expect(previous).toBeUndefined();
  expect(await stores.canary.writeProbe({ probeMs: clock.now(), measurements: [] }, undefined, undefined)).toBe(true);
  // A run that read nothing before that probe was written is refused its own.
  clock.advance(10);
  expect(await stores.canary.writeProbe({ probeMs: clock.now(), measurements: [] }, undefined, undefined)).toBe(false);
  // Its record is refused too, once another probe is the latest.
  expect(await stores.canary.writeRecord({ probeMs: clock.now(), measurements: [] }, undefined)).toBe(false);
});

test('the sentinel is in no listing, no backfill, no order of the stream, and leaves the store empty of orders', async () => {
  await runCanary(canary());
  expect(records.length).toBeGreaterThan(0);
  expect(records.every((record) => isSentinel(record.dynamodb?.Keys) && orderChangeOf(record) === undefined)).toBe(
    true,
  );
  expect(await storeIsEmpty(tables.client, tables.names)).toBe(true);
  await stores.orders.create({ id: '5', status: 'pending' });
  await tables.dynamo.settleIndexes();
  // v1's listing, a page an item (the sentinel's page is declined by the transcoder, and left out).
  const v1: Buffer[] = [];
  for await (const page of stores.orders.listingPages({ pageSize: 1, firstPageSize: 1 })) v1.push(page.json);
  expect(Buffer.concat(v1).toString()).toBe(',{"id":5,"status":"pending"}');
  const backfill = [];
  for await (const page of stores.orders.ordersWithoutUpdatedAt()) backfill.push(...page);
  expect(backfill).toEqual([]);
  const pages = new OrderPages(tables.doc, tables.names.orders);
  const everything = [
    ...(await pages.page({}, undefined, 10)).orders,
    ...(await pages.page({ updatedSince: iso(0) }, undefined, 10)).orders,
    ...(await pages.page({ status: 'pending' }, undefined, 10)).orders,
    ...(await pages.page({ status: 'pending', updatedSince: iso(0) }, undefined, 10)).orders,
  ];
  expect(everything.map((order) => order.id)).toEqual(['5', '5', '5', '5']);
  expect(JSON.stringify(everything)).not.toContain(SENTINEL_ID);
});

test('a sweep re-stamps the orders whose latest change is stamped within its window, once', async () => {
  const t = clock.now();
  await stores.orders.putMany([
    { id: '1', status: 'pending', updatedAt: iso(t - 120_000) },
    { id: '2', status: 'cancelled', updatedAt: iso(t - 60_000) },
    { id: '3', status: 'pending', updatedAt: iso(t - 30_000) },
    { id: '4', status: 'shipped', updatedAt: iso(t + 5_000) },
  ]);
  await tables.dynamo.settleIndexes();
  clock.advance(10_000);
  const window = { fromMs: t - 60_000, toMs: t, sweep: 1 };
  expect(await indexLagRepairStore(wiring).sweep(window)).toBe(2);
  const now = iso(clock.now());
  const stored = async (id: string) => (await stores.orders.getSynced(id))?.updatedAt;
  expect([await stored('1'), await stored('2'), await stored('3'), await stored('4')]).toEqual([
    iso(t - 120_000),
    now,
    now,
    iso(t + 5_000),
  ]);
  await tables.dynamo.settleIndexes();
  expect(await indexLagRepairStore(wiring).sweep({ ...window, sweep: 2 })).toBe(0);
});

test('the sync watch sweeps the episode its sentinel record asks for, and nothing for its other records', async () => {
  const watching = {
    restamps: stores.restamps,
    lagRepair: indexLagRepairStore(wiring),
    bounds: () => watchBoundsOf(wiring),
  };
  await runCanary(canary());
  clock.advance(60_000);
  // An order changed, then a minute of lag beyond the budget, then the lag back.
  await stores.orders.create({ id: '9', status: 'pending' });
  tables.dynamo.setIndexLagMs(SYNC_TIMING.indexLagMs + 10_000);
  await runCanary(canary());
  tables.dynamo.setIndexLagMs(0);
  clock.advance(60_000);
  records.length = 0;
  const back = await runCanary(canary());
  expect(back).toMatchObject({ kind: 'measured', repairs: [{ sweep: 1 }] });
  const asking = records.filter((record) => repairAskedBy(record) !== undefined);
  expect(asking).toHaveLength(1);
  const before = (await stores.orders.getSynced('9'))?.updatedAt;
  const { batch, failedAt } = await watchBatch({ Records: [...records] }, watching);
  expect(failedAt).toBeUndefined();
  expect(batch).toMatchObject({ watched: 0, swept: 1 });
  expect((await stores.orders.getSynced('9'))?.updatedAt).not.toBe(before);
  // The order's re-stamp has its own record, an order's; the sentinel's other records ask for nothing.
  const others = records.filter((record) => repairAskedBy(record) === undefined);
  expect((await watchBatch({ Records: others }, watching)).batch).toMatchObject({ swept: 0 });
});
