// v2 (beta) incremental sync with @store-orders/client: a loop that fetches only what changed, of
// every order or (--status) of one status. Against the local stack (`npm start` prints a key):
//   STORE_ORDERS_API_KEY=sok_... node sync.js [--url http://127.0.0.1:3000/v1] [--status pending] [--rounds 3] [--every 5]
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import {
  applySync,
  StoreOrdersApiError,
  StoreOrdersClient,
  type OrderStatus,
  type SyncedListedOrder,
} from '@store-orders/client';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    key: { type: 'string' },
    status: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    every: { type: 'string', default: '5' },
  },
});
const status = values.status as OrderStatus | undefined;
const apiKey = values.key ?? process.env.STORE_ORDERS_API_KEY;
if (!apiKey) {
  console.error('sync: an API key is needed: --key KEY or STORE_ORDERS_API_KEY (npm start prints one)');
  process.exit(2);
}
const api = new StoreOrdersClient({ baseUrl: values.url ?? 'http://127.0.0.1:3000/v1', apiKey });

async function main(): Promise<void> {
  // A real integration keeps the replica and the watermark in its own store between runs, and
  // saves the watermark only after the walk's orders are applied.
  const replica = new Map<string, SyncedListedOrder>();
  let since = '1970-01-01T00:00:00Z';
  for (let round = 1; round <= Number(values.rounds); round++) {
    const result = await api.syncOrders({ since, limit: 1000, ...(status ? { status } : {}) });
    // A change can come more than once: an order is kept only when it is later than the copy held,
    // and (with --status) a copy is dropped when the order has left the status since.
    const { applied, dropped } = applySync(replica, result);
    for (const order of applied) console.log(`${order.updatedAt} ${order.id} ${order.status}`);
    for (const order of dropped) console.log(`${order.updatedAt} ${order.id} ${order.status} (left ${status})`);
    console.log(
      `round ${round}: ${applied.length} changes applied, ${dropped.length} dropped, ${replica.size} orders held, ` +
        `next sync from ${result.watermark}`,
    );
    since = result.watermark;
    await sleep(Number(values.every) * 1000);
  }
}

main().catch((error: unknown) => {
  if (error instanceof StoreOrdersApiError)
    console.error(`sync: ${error.code} (HTTP ${error.status}): ${error.message}`);
  else console.error(error);
  process.exitCode = 1;
});
