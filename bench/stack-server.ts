// The local stack for the load runs, in its own process as `npm start` runs it (embedded server,
// gateway and handlers in one process), so the load generator does not share its event loop.
// Two gateways on one server: listing reads a small table, cancelling a table of pending orders.
// Prints one JSON line with the URLs and keys, then serves until killed.

import type { AddressInfo } from 'node:net';
import { createDocumentClient, createDynamoClient } from '../lib/aws/dynamo';
import { OrdersRepository } from '../lib/orders/repository';
import { createLocalApp } from '../infra/local/app';
import { startEmbeddedDynamo } from '../infra/local/embedded-dynamo';
import { freshTables, pendingOrders, seedOrders, unlimitedKey } from './fixtures';

export interface LoadStack {
  listUrl: string;
  listKey: string;
  cancelUrl: string;
  cancelKey: string;
  listOrders: number;
  cancelOrders: number;
}

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const LIST_ORDERS = 100;

async function gateway(endpoint: string, label: string, orders: number): Promise<{ url: string; key: string }> {
  const client = createDynamoClient({ endpoint });
  const doc = createDocumentClient(client);
  const tables = await freshTables(client, label);
  if (orders <= LIST_ORDERS) await new OrdersRepository(doc, tables.orders).putMany(pendingOrders(orders));
  else await seedOrders(new OrdersRepository(doc, tables.orders), orders, label);
  const { key } = await unlimitedKey(doc, tables);
  const { server } = createLocalApp({ endpoint, tables });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, key };
}

async function main(): Promise<void> {
  const cancelOrders = Number(process.argv[2] ?? 20_000);
  const dynamo = await startEmbeddedDynamo({ port: 0 });
  const list = await gateway(dynamo.endpoint, 'load-list', LIST_ORDERS);
  const cancel = await gateway(dynamo.endpoint, 'load-cancel', cancelOrders);
  const stack: LoadStack = {
    listUrl: list.url,
    listKey: list.key,
    cancelUrl: cancel.url,
    cancelKey: cancel.key,
    listOrders: LIST_ORDERS,
    cancelOrders,
  };
  process.stdout.write(`${JSON.stringify(stack)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
