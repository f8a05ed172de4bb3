// v2's incremental sync against a v1 listing of the same store, side by side: a store of 20k and
// 200k orders (2k, 20k quick) of which 1,000 changed since the last sync. Seeded for real (the index
// is the embedded server's), so not 1M: seeding that takes most of an hour. Both over HTTP on the
// local stack: DynamoDB items read (ScannedCount of every Scan and Query), bytes on the wire and time.

import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { createApiKey } from '../../lib/stores/key-service';
import { MAX_CUSTOM_LIMITS } from '../../lib/contract/plans';
import { BASE_PATH, V2_BASE_PATH } from '../../lib/contract/routes';
import { SYNC_PAGE } from '../../lib/contract/sync';
import { createTestTables } from '../../test/support/dynamo';
import { createLocalApp } from '../../tools/local/app';
import { variedOrders } from '../support/fixtures';
import type { Suite } from '../suite';

export interface ReadFigures {
  itemsRead: number;
  bytes: number;
  ms: number;
  requests: number;
  /** Orders in the answer, checked against what the store holds. */
  orders: number;
}
export interface SyncStore {
  orders: number;
  changed: number;
  listing: ReadFigures;
  sync: ReadFigures;
}
export type SyncFigures = { stores: SyncStore[] };

const CHANGED = 1_000;
const T0 = Date.UTC(2026, 10, 1);
const T1 = T0 + 86_400_000;

/** One GET's status and raw body bytes (compressed as sent), and how long it took. */
function get(url: string, headers: Record<string, string>): Promise<{ status: number; body: Buffer; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), ms: performance.now() - started }),
      );
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

export const sync: Suite<SyncFigures> = {
  name: 'sync versus listing',
  async run({ quick, endpoint, log }) {
    const figures: SyncFigures = { stores: [] };
    for (const count of quick ? [2_000, 20_000] : [20_000, 200_000]) {
      const tables = await createTestTables(endpoint);
      const app = createLocalApp({ endpoint, tables: tables.names });
      await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
      const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      const orders = variedOrders(count);
      const lanes = 6;
      const share = Math.ceil(count / lanes);
      const at = (t: number) => new Date(t).toISOString();
      await Promise.all(
        Array.from({ length: lanes }, (_, lane) =>
          app.orders.putMany(
            orders.slice(lane * share, (lane + 1) * share).map((o, i) => ({
              ...o,
              // The first CHANGED orders changed since the last sync (T1); the rest long before.
              updatedAt: at(lane * share + i < CHANGED ? T1 : T0),
            })),
          ),
        ),
      );
      const { key } = await createApiKey(app.keys, { plan: 'enterprise', limits: MAX_CUSTOM_LIMITS });
      const auth = { Authorization: `Bearer ${key}` };

      let itemsRead = 0;
      app.dynamo.middlewareStack.add(
        (next) => async (args) => {
          const result = await next(args);
          const scanned = (result.output as { ScannedCount?: number }).ScannedCount;
          if (typeof scanned === 'number') itemsRead += scanned;
          return result;
        },
        { step: 'initialize', name: 'countItemsRead' },
      );

      itemsRead = 0;
      const listed = await get(`${base}${BASE_PATH}/store/orders`, { ...auth, 'Accept-Encoding': 'gzip' });
      if (listed.status !== 200)
        throw new Error(`listing answered ${listed.status}: ${listed.body.toString().slice(0, 200)}`);
      const listedOrders = (gunzipSync(listed.body).toString().match(/"id":/g) ?? []).length;
      const listing = { itemsRead, bytes: listed.body.length, ms: listed.ms, requests: 1, orders: listedOrders };

      itemsRead = 0;
      const syncFigures = { itemsRead: 0, bytes: 0, ms: 0, requests: 0, orders: 0 };
      let target: string | undefined =
        `${base}${V2_BASE_PATH}/store/orders?updatedSince=${encodeURIComponent(at(T1))}&limit=${SYNC_PAGE.maxLimit}`;
      while (target !== undefined) {
        const page = await get(target, auth);
        if (page.status !== 200) throw new Error(`sync page answered ${page.status}`);
        const body = JSON.parse(page.body.toString()) as { orders: unknown[]; nextCursor?: string };
        syncFigures.bytes += page.body.length;
        syncFigures.ms += page.ms;
        syncFigures.requests++;
        syncFigures.orders += body.orders.length;
        target =
          body.nextCursor === undefined
            ? undefined
            : `${base}${V2_BASE_PATH}/store/orders?cursor=${encodeURIComponent(body.nextCursor)}&limit=${SYNC_PAGE.maxLimit}`;
      }
      syncFigures.itemsRead = itemsRead;
      if (listedOrders !== count || syncFigures.orders !== CHANGED)
        throw new Error(`listing gave ${listedOrders} of ${count} orders, sync ${syncFigures.orders} of ${CHANGED}`);
      figures.stores.push({ orders: count, changed: CHANGED, listing, sync: syncFigures });
      log(`  ${count} orders: listing ${Math.round(listing.ms)} ms, sync ${Math.round(syncFigures.ms)} ms`);
      app.server.closeAllConnections();
      await new Promise<void>((resolve) => app.server.close(() => resolve()));
      await tables.drop();
    }
    return figures;
  },
};
