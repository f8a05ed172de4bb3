// @store-orders/client in a few lines: list the orders (whole, then streamed), cancel one, and
// handle a 429 through the client's error type. Against the local stack (`npm start` prints a key):
//   STORE_ORDERS_API_KEY=sok_... node orders.js [--url http://127.0.0.1:3000/v1] [--cancel ID] [--provoke-429]
// --key KEY and --url URL may stand for STORE_ORDERS_API_KEY and STORE_ORDERS_URL; the URL is the
// one npm start's banner shows (3000 is only its default port).
import { parseArgs } from 'node:util';
import { StoreOrdersApiError, StoreOrdersClient } from '@store-orders/client';

const usage =
  'usage: orders [--url URL] [--key KEY] [--cancel ORDER_ID] [--provoke-429] (or STORE_ORDERS_URL, STORE_ORDERS_API_KEY)';

function settings() {
  try {
    const { values } = parseArgs({
      options: {
        url: { type: 'string' },
        key: { type: 'string' },
        cancel: { type: 'string' },
        'provoke-429': { type: 'boolean', default: false },
      },
    });
    const apiKey = values.key ?? process.env.STORE_ORDERS_API_KEY;
    if (!apiKey) throw new Error('an API key is needed: --key KEY or STORE_ORDERS_API_KEY (npm start prints one)');
    const baseUrl = values.url ?? process.env.STORE_ORDERS_URL ?? 'http://127.0.0.1:3000/v1';
    return { apiKey, baseUrl, cancel: values.cancel, provoke429: values['provoke-429'] };
  } catch (error) {
    // One line: the mistake, and its fix (a missing key's message has it; a wrong option gets the usage).
    const message = error instanceof Error ? error.message : String(error);
    console.error(`orders: ${message}${message.includes('--key KEY') ? '' : ` (${usage})`}`);
    process.exit(2);
  }
}

async function main(): Promise<void> {
  const { apiKey, baseUrl, cancel, provoke429 } = settings();
  const api = new StoreOrdersClient({
    baseUrl,
    apiKey,
    timeoutMs: 10_000,
    onRetry: ({ attempt, status, waitMs }) =>
      console.log(`retry ${attempt} after HTTP ${status}: waiting ${waitMs} ms`),
  });

  // The whole list at once; ids are exact decimal strings, never JS numbers.
  const orders = await api.listOrders();
  console.log(`listOrders: ${orders.length} orders, ${orders.filter((o) => o.status === 'pending').length} pending`);

  // The same list, parsed as it arrives: memory stays flat however large the store.
  let streamed = 0;
  for await (const _order of api.listOrdersStream()) streamed++;
  console.log(`listOrdersStream: ${streamed} orders`);

  if (cancel !== undefined) {
    await api.cancelOrder(cancel);
    console.log(`cancelOrder: ${cancel} is cancelled`);
  }

  // A 429 the client does not retry reaches the caller as a StoreOrdersApiError with the server's
  // code and Retry-After: here retries are off; by default, a Retry-After longer than
  // maxRetryAfterMs (a daily quota, a ban) or the last of the retries.
  if (provoke429) {
    const impatient = new StoreOrdersClient({ baseUrl, apiKey, maxRetries: 0 });
    for (let sent = 1; sent <= 10_000; sent++) {
      try {
        await impatient.listOrders();
      } catch (error) {
        if (!(error instanceof StoreOrdersApiError && error.status === 429)) throw error;
        console.log(`429 ${error.code} after ${sent} requests: retry after ${error.retryAfterSeconds ?? '?'} s`);
        break;
      }
    }
  }
}

main().catch((error: unknown) => {
  // Every failure of the client is a StoreOrdersApiError: its code says what happened.
  // Anything else (a proxy variable Node would ignore, say) is its one-line message.
  if (error instanceof StoreOrdersApiError)
    console.error(`orders: ${error.code} (HTTP ${error.status}): ${error.message}`);
  else console.error(`orders: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
