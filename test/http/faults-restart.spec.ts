// The real fault: the embedded server itself stops and comes back on the same port and the same
// data folder, while the local stack keeps running. The proxy only passes traffic here.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedDynamo, type EmbeddedDynamo } from '../../tools/local/embedded-dynamo';
import { responseProblems } from '../support/documented-response';
import { expectUnavailable } from '../support/fault-expectations';
import { startProxiedStack, type ProxiedStack } from '../support/proxied-stack';

const ORDERS = '/v1/store/orders';

let dataDir: string;
let dynamo: EmbeddedDynamo;
let stack: ProxiedStack;
let key: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'store-orders-faults-'));
  dynamo = await startEmbeddedDynamo({ port: 0, dataDir });
  stack = await startProxiedStack(dynamo.endpoint);
  key = await stack.newKey('pro');
  await stack.orders.putMany([
    { id: '1', status: 'pending' },
    { id: '2', status: 'shipped' },
    { id: '9223372036854775807', status: 'pending' },
  ]);
});
afterAll(async () => {
  await stack.close();
  await dynamo.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** Each order's JSON text, sorted: exact (int64 digits untouched) and blind to item order. */
const ordersIn = (body: string) => (body.match(/\{[^}]*\}/g) ?? []).sort();

test('DynamoDB stopped: 503; restarted on its data: served again with nothing lost, the stack never restarted', async () => {
  const before = await stack.request('GET', ORDERS, key);
  expect(before.status).toBe(200);

  await dynamo.close();
  expectUnavailable(await stack.request('DELETE', `${ORDERS}/1`, key), false);
  expectUnavailable(await stack.request('GET', ORDERS, key), false);

  dynamo = await startEmbeddedDynamo({ port: dynamo.port, dataDir });
  const after = await stack.request('GET', ORDERS, key);
  expect(responseProblems(after)).toEqual([]);
  expect(ordersIn(after.body)).toEqual(ordersIn(before.body));
  expect((await stack.request('DELETE', `${ORDERS}/1`, key)).status).toBe(204);
  expect((await stack.request('DELETE', `${ORDERS}/2`, key)).status).toBe(409);
  expect((await stack.orders.get('1'))?.status).toBe('cancelled');
});
