// The local stack for the load suite, in its own process as `npm start` runs it (embedded server,
// gateway and handlers in one process). Two gateways on one server: listing reads a small table,
// cancelling a table of pending orders. Prints one JSON line with the URLs and keys, then serves
// until killed.

import './env';
import type { AddressInfo } from 'node:net';
import { createLocalApp } from '../../tools/local/app';
import { startEmbeddedDynamo } from '../../tools/local/embedded-dynamo';
import { seededTables } from './fixtures';

export interface LoadStack {
  listUrl: string;
  listKey: string;
  cancelUrl: string;
  cancelKey: string;
  listOrders: number;
  cancelOrders: number;
}

const LIST_ORDERS = 100;

async function gateway(endpoint: string, orders: number): Promise<{ url: string; key: string }> {
  const tables = await seededTables(endpoint, orders);
  const { server } = createLocalApp({ endpoint, tables: tables.names });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, key: tables.key };
}

async function main(): Promise<void> {
  const cancelOrders = Number(process.argv[2] ?? 20_000);
  const dynamo = await startEmbeddedDynamo({ port: 0 });
  const list = await gateway(dynamo.endpoint, LIST_ORDERS);
  const cancel = await gateway(dynamo.endpoint, cancelOrders);
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
