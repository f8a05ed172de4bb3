// `npm run soak:sync [-- --orders 200000 --minutes 5]`: exact sync under a real-time load, no kinder
// than AWS. The local stack on an embedded server whose indexes lag (random, up to --index-lag-ms) and
// that holds every 10th write to the orders table 0.5 to 5 s (applied even when its writer gave up):
// a store of --orders orders, then for --minutes an import of new orders, cancels over HTTP, ships,
// ships by a writer whose clock is --slow-clock-ms behind (each of its changes lands that late after
// its stamp), v1 listings and a replica syncing from the server's watermark, all at once, on real
// clocks, with the orders table's stream read by the sync watch (the same handler, through the
// emulated event source mapping). Then the stream drained, the freshness bound, three more syncs,
// and the replica compared with a consistent Scan. Prints one JSON line, with how many changes the
// watch judged and how many it had to re-stamp; exits 1 when any change was missed.
// docs/benchmarks.md keeps the latest run.
import './support/env';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { StoreOrdersClient } from '../client/client';
import { applyChange, type SyncedListedOrder } from '../client/pages';
import { MAX_CUSTOM_LIMITS } from '../lib/contract/plans';
import { BASE_PATH } from '../lib/contract/routes';
import { STREAM_MAPPINGS } from '../lib/contract/deployment';
import { SYNC_TIMING } from '../lib/contract/sync';
import { makeSyncWatchHandler } from '../lib/edge/sync-watch-handler';
import { tableNamesWithPrefix } from '../lib/contract/tables';
import { mapBounded } from '../tools/admin/map-bounded';
import { createDynamoClient } from '../lib/stores/dynamo';
import { createApiKey } from '../lib/stores/key-service';
import { OrdersRepository, syncedOrderFromAttributes } from '../lib/stores/orders';
import { isSentinel } from '../lib/core/sync/sentinel';
import { createDocumentClient } from '../lib/stores/dynamo';
import { ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { createLocalApp } from '../tools/local/app';
import { createTables } from '../tools/local/create-tables';
import { startEmbeddedDynamo } from '../tools/local/embedded-dynamo';
import { lambdaContext } from '../tools/local/proxy-event';
import { EventSourceMapping } from '../tools/local/stream-mapping';
import { variedOrders } from './support/fixtures';

const { values } = parseArgs({
  options: {
    orders: { type: 'string', default: '200000' },
    minutes: { type: 'string', default: '5' },
    'index-lag-ms': { type: 'string', default: '1000' },
    'slow-clock-ms': { type: 'string', default: '600000' },
  },
});
const ORDERS = Number(values.orders);
const MINUTES = Number(values.minutes);
const INDEX_LAG_MS = Number(values['index-lag-ms']);
const SLOW_CLOCK_MS = Number(values['slow-clock-ms']);
for (const [name, value] of [
  ['orders', ORDERS],
  ['minutes', MINUTES],
  ['index-lag-ms', INDEX_LAG_MS],
  ['slow-clock-ms', SLOW_CLOCK_MS],
] as const)
  if (!(Number.isFinite(value) && value >= 0)) {
    console.error(`soak:sync: --${name} must be a number, 0 or more`);
    process.exit(2);
  }

const log = (text: string) => console.error(`soak:sync: ${text}`);

async function main(): Promise<void> {
  let ordersTable = '';
  let writes = 0;
  let held = 0;
  const dynamo = await startEmbeddedDynamo({
    port: 0,
    indexLag: { maxMs: INDEX_LAG_MS },
    holdWrites: (write) => {
      if (write.table !== ordersTable || ++writes % 10 !== 0) return undefined;
      held++;
      return 500 + Math.random() * 4_500;
    },
    stream: {},
  });
  const names = tableNamesWithPrefix('soak');
  ordersTable = names.orders;
  const client = createDynamoClient({ endpoint: dynamo.endpoint, requestTimeoutMs: 60_000 });
  await createTables(client, names);
  // The real clock, corrected from the server's replies as a deployed writer's would be.
  const app = createLocalApp({ endpoint: dynamo.endpoint, tables: names });
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}${BASE_PATH}`;
  const { key } = await createApiKey(app.keys, { plan: 'enterprise', limits: MAX_CUSTOM_LIMITS });
  const api = new StoreOrdersClient({ baseUrl, apiKey: key, timeoutMs: 120_000 });
  // The sync watch on the orders table's stream, counting what it judges and what it re-stamps.
  const watchFigures = { changes: new Set<string>(), restamped: 0 };
  const watchHandler = makeSyncWatchHandler({
    restamps: {
      restamp: async (seen) => {
        const stamp = await app.restamps.restamp(seen);
        if (stamp !== undefined) watchFigures.restamped++;
        return stamp;
      },
    },
    bounds: () => ({
      settleMs: app.settleMs,
      clockErrorMs: SYNC_TIMING.clockErrorMs,
      indexLagMs: SYNC_TIMING.indexLagMs,
    }),
  });
  if (!dynamo.stream) throw new Error('the embedded server streams no changes');
  const watch = new EventSourceMapping(dynamo.stream, names.orders, {
    settings: STREAM_MAPPINGS['sync-watch'],
    handler: async (event, context) => {
      for (const record of event.Records) watchFigures.changes.add(record.dynamodb?.SequenceNumber ?? '');
      return watchHandler(event, context);
    },
    context: () => lambdaContext('sync-watch'),
    autoDeliver: true,
  });
  // A writer whose clock is behind: each of its changes lands long after its stamp.
  const slow = new OrdersRepository(createDocumentClient(client), names.orders, {
    clock: () => Date.now() - SLOW_CLOCK_MS,
  });

  log(`seeding ${ORDERS} orders`);
  const seededIds: string[] = [];
  for (let start = 0; start < ORDERS; start += 25_000) {
    const chunk = variedOrders(Math.min(25_000, ORDERS - start), start);
    seededIds.push(...chunk.map((order) => order.id));
    await mapBounded(
      Array.from({ length: Math.ceil(chunk.length / 1_000) }, (_, i) => i),
      8,
      (i) => app.orders.putMany(chunk.slice(i * 1_000, (i + 1) * 1_000)),
    );
  }

  const replica = new Map<string, SyncedListedOrder>();
  let since = '1970-01-01T00:00:00Z';
  const figures = {
    syncs: 0,
    delivered: 0,
    applied: 0,
    created: 0,
    cancels: 0,
    ships: 0,
    listings: 0,
    slowClockShips: 0,
    refused: 0,
    /** Requests that failed after the client's retries (503 on a loaded machine): a failed walk keeps its watermark. */
    failed: 0,
  };
  const sync = async () => {
    const { orders, watermark } = await api.syncOrders({ since, limit: 1_000 });
    figures.syncs++;
    figures.delivered += orders.length;
    for (const order of orders) if (applyChange(replica, order)) figures.applied++;
    since = watermark;
  };
  log('first sync');
  await sync();

  log(`${MINUTES} minutes of imports, cancels, ships, listings and syncs`);
  const until = Date.now() + MINUTES * 60_000;
  const running = () => Date.now() < until;
  const pick = () => seededIds[Math.floor(Math.random() * seededIds.length)] ?? '1';
  let nextId = ORDERS + 1;
  const loop = async (work: () => Promise<void>, pause = 0) => {
    while (running()) {
      await work().catch(() => void figures.failed++);
      if (pause) await sleep(pause);
    }
  };
  await Promise.all([
    ...Array.from({ length: 8 }, () =>
      loop(async () => {
        if (await app.orders.create({ id: String(nextId++), status: 'pending' })) figures.created++;
      }),
    ),
    ...Array.from({ length: 4 }, () =>
      loop(async () => {
        const status = (
          await fetch(`${baseUrl}/store/orders/${pick()}`, {
            method: 'DELETE',
            headers: { Authorization: `Bearer ${key}` },
          })
        ).status;
        if (status === 204) figures.cancels++;
        else figures.refused++;
      }),
    ),
    loop(async () => {
      await app.orders.ship(pick()).then(
        () => void figures.ships++,
        () => void figures.refused++,
      );
    }),
    loop(async () => {
      await slow.ship(pick()).then(
        () => void figures.slowClockShips++,
        () => void figures.refused++,
      );
    }, 500),
    loop(async () => {
      for await (const _ of api.listOrdersStream()) void _;
      figures.listings++;
    }, 20_000),
    loop(sync, 2_000),
  ]);

  log('writes stopped; the sync watch drains the stream');
  while (watch.nextDueAt() !== undefined) await sleep(100);
  log(`waiting the freshness bound (${SYNC_TIMING.freshnessMs} ms), then three syncs`);
  await sleep(SYNC_TIMING.freshnessMs);
  // Three walks that complete: a walk that failed is walked again from the same watermark.
  for (let done = 0, tries = 0; done < 3 && tries < 20; tries++)
    await sync().then(
      () => void done++,
      () => void figures.failed++,
    );

  const store = new Map<string, SyncedListedOrder>();
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: names.orders, ConsistentRead: true, ExclusiveStartKey: start }),
    );
    for (const item of page.Items ?? []) {
      if (isSentinel(item)) continue;
      const order = syncedOrderFromAttributes(item);
      store.set(order.id, order);
    }
    start = page.LastEvaluatedKey;
  } while (start);
  const missed = [...store.values()].filter((order) => replica.get(order.id)?.updatedAt !== order.updatedAt);
  const changes = figures.created + figures.cancels + figures.ships + figures.slowClockShips;
  watch.close();
  const watched = watchFigures.changes.size;
  console.log(
    JSON.stringify({
      orders: ORDERS,
      minutes: MINUTES,
      indexLagMs: INDEX_LAG_MS,
      heldWrites: held,
      changes,
      ...figures,
      stored: store.size,
      missed: missed.length,
      watch: {
        changes: watched,
        restamped: watchFigures.restamped,
        restampedShare: watched === 0 ? 0 : watchFigures.restamped / watched,
        invocations: watch.invocations,
        discarded: watch.discarded.length,
      },
    }),
  );
  app.server.closeAllConnections();
  app.server.close();
  client.destroy();
  await dynamo.close();
  process.exit(missed.length === 0 && watch.discarded.length === 0 ? 0 : 1);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
