// v2 (beta) incremental sync with @store-orders/client: a loop that fetches only what changed.
// Against the local stack (`npm start` prints a key):
//   STORE_ORDERS_API_KEY=sok_... node sync.js [--url http://127.0.0.1:3000/v1] [--rounds 3] [--every 5]
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { StoreOrdersApiError, StoreOrdersClient } from '@store-orders/client';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    key: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    every: { type: 'string', default: '5' },
  },
});
const apiKey = values.key ?? process.env.STORE_ORDERS_API_KEY;
if (!apiKey) {
  console.error('sync: an API key is needed: --key KEY or STORE_ORDERS_API_KEY (npm start prints one)');
  process.exit(2);
}
const api = new StoreOrdersClient({ baseUrl: values.url ?? 'http://127.0.0.1:3000/v1', apiKey });

async function main(): Promise<void> {
  // A real integration keeps the watermark (and the ids seen at it) in its own store between runs.
  let since = '1970-01-01T00:00:00Z';
  let atWatermark = new Set<string>();
  for (let round = 1; round <= Number(values.rounds); round++) {
    const { orders, watermark } = await api.syncOrders({ since, limit: 1000 });
    // Orders changed in the watermark's own millisecond come again: skip the ones already applied.
    const fresh = orders.filter((o) => !(o.updatedAt === since && atWatermark.has(o.id)));
    for (const order of fresh) console.log(`${order.updatedAt} ${order.id} ${order.status}`);
    console.log(`round ${round}: ${fresh.length} changed orders, next sync from ${watermark}`);
    // When nothing newer came, the ids at the watermark are those already known plus any repeats.
    const now = orders.filter((o) => o.updatedAt === watermark).map((o) => o.id);
    atWatermark = watermark === since ? new Set([...atWatermark, ...now]) : new Set(now);
    since = watermark;
    await sleep(Number(values.every) * 1000);
  }
}

main().catch((error: unknown) => {
  if (error instanceof StoreOrdersApiError)
    console.error(`sync: ${error.code} (HTTP ${error.status}): ${error.message}`);
  else console.error(error);
  process.exitCode = 1;
});
