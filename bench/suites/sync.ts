// v2's incremental sync against a v1 listing of the same store, side by side: one store grown to
// 20k, 200k and (with --sync-1m) 1M orders (2k and 20k quick), of which the same 1,000 changed since
// the last sync. Seeded for real, since the index the sync queries is the embedded server's, on a
// server in a process of its own (bench/support/dynamo-process.ts). Both over HTTP on the local
// stack: DynamoDB items read (ScannedCount of every Scan and Query), bytes on the wire and time.

import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { createApiKey } from '../../lib/stores/key-service';
import type { OrdersRepository } from '../../lib/stores/orders';
import { seedingOrdersStore } from '../../lib/root/stores';
import { closeClients, type Wiring } from '../../lib/root/wiring';
import { FUNCTIONS } from '../../lib/contract/deployment';
import { MAX_CUSTOM_LIMITS } from '../../lib/contract/plans';
import { createDynamoClient } from '../../lib/stores/dynamo';
import { tableNamesWithPrefix } from '../../lib/contract/tables';
import { createTables } from '../../tools/local/create-tables';
import { createLocalApp } from '../../tools/local/app';
import { startDynamoProcess } from '../support/dynamo-process';
import { variedOrders } from '../support/fixtures';
import { countItemsRead, listingFigures, syncFigures, type ReadFigures } from '../support/sync-reads';
import type { Suite } from '../suite';

export type { ReadFigures } from '../support/sync-reads';
export interface SyncStore {
  orders: number;
  changed: number;
  /** Orders written to grow the store to this size, and how long that took. */
  seeded: { orders: number; ms: number };
  listing: ReadFigures;
  sync: ReadFigures;
  /** The same sync with Accept-Encoding: gzip (absent from runs before v2 pages were compressed). */
  syncGzip?: ReadFigures;
}
export type SyncFigures = { stores: SyncStore[] };

const CHANGED = 1_000;
const T0 = Date.UTC(2026, 10, 1);
const T1 = T0 + 86_400_000;
/** BatchWriteItem calls in flight while seeding: enough to keep the server's process busy. */
const SEED_LANES = 8;
/** Orders generated and written at a time, so a million never sit in memory at once. */
const SEED_CHUNK = 50_000;
/**
 * Per DynamoDB attempt, for the seeder's and the stack's clients: a server holding a million items
 * in LevelDB, niced on a shared machine, stalls past the local stack's 8 s (a 1M run failed so).
 */
const REQUEST_TIMEOUT_MS = 120_000;

/** Appends orders [from, to) to the store: the first CHANGED changed since the last sync (T1), the rest long before. */
async function grow(orders: OrdersRepository, from: number, to: number): Promise<void> {
  for (let start = from; start < to; start += SEED_CHUNK) {
    const chunk = variedOrders(Math.min(SEED_CHUNK, to - start), start).map((order, i) => ({
      ...order,
      updatedAt: new Date(start + i < CHANGED ? T1 : T0).toISOString(),
    }));
    const share = Math.ceil(chunk.length / SEED_LANES);
    await Promise.all(
      Array.from({ length: SEED_LANES }, (_, lane) => orders.putMany(chunk.slice(lane * share, (lane + 1) * share))),
    );
  }
}

export const sync: Suite<SyncFigures> = {
  name: 'sync versus listing',
  async run({ quick, syncMillion, outDir, log }) {
    const sizes = quick ? [2_000, 20_000] : [20_000, 200_000, ...(syncMillion ? [1_000_000] : [])];
    const dynamo = await startDynamoProcess(path.join(outDir, 'sync-store'));
    const client = createDynamoClient({ endpoint: dynamo.endpoint, requestTimeoutMs: REQUEST_TIMEOUT_MS });
    const names = tableNamesWithPrefix('bench-sync');
    await createTables(client, names);
    // The root's orders store on a wiring of its own, so the seeding does not count as store growth.
    const seeding: Wiring = { endpoint: dynamo.endpoint, tables: names, requestTimeoutMs: REQUEST_TIMEOUT_MS };
    // The embedded server scans far slower than DynamoDB: a deadline of its own keeps a 1M listing whole.
    const listOrders = { ...FUNCTIONS['list-orders'], timeoutSeconds: 3_600 };
    const app = createLocalApp({
      endpoint: dynamo.endpoint,
      tables: names,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      functions: { ...FUNCTIONS, 'list-orders': listOrders },
    });
    const figures: SyncFigures = { stores: [] };
    try {
      await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
      const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      const { key } = await createApiKey(app.keys, { plan: 'enterprise', limits: MAX_CUSTOM_LIMITS });
      // Seeded without the service's store-growth counter: one item that every lane would update.
      const seeder = seedingOrdersStore(seeding);
      const itemsRead = countItemsRead(app.dynamo);
      let held = 0;
      for (const count of sizes) {
        const started = performance.now();
        await grow(seeder, held, count);
        const seeded = { orders: count - held, ms: performance.now() - started };
        held = count;
        log(`  ${count} orders: seeded ${seeded.orders} in ${Math.round(seeded.ms / 1000)} s`);
        const listing = await listingFigures(base, key, itemsRead);
        const synced = await syncFigures(base, key, new Date(T1).toISOString(), itemsRead);
        const syncGzip = await syncFigures(base, key, new Date(T1).toISOString(), itemsRead, 'gzip');
        if (listing.orders !== count || synced.orders !== CHANGED || syncGzip.orders !== CHANGED)
          throw new Error(
            `listing gave ${listing.orders} of ${count} orders, sync ${synced.orders} (gzip ${syncGzip.orders}) of ${CHANGED}`,
          );
        figures.stores.push({ orders: count, changed: CHANGED, seeded, listing, sync: synced, syncGzip });
        // Whole, so a later size that fails loses none of this one's figures.
        log(`  ${count} orders: ${JSON.stringify(figures.stores.at(-1))}`);
      }
    } finally {
      // The tables go with the server's files in the run's scratch folder: no DeleteTable of a million items.
      app.server.closeAllConnections();
      await new Promise<void>((resolve) => app.server.close(() => resolve()));
      client.destroy();
      closeClients(seeding);
      log(`  the DynamoDB server used ${Math.round((await dynamo.close()) / 1000)} s of CPU`);
    }
    return figures;
  },
};
