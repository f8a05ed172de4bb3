// A cancel sends at most STAMPED_ATTEMPTS UpdateItems (lib/core/sync/stamps.ts), through HTTP: the
// local stack's DynamoDB client goes through a fault proxy that throttles some of the cancel's
// UpdateItems, and the embedded server holds each one that gets through while another writer
// stamps the order later, still pending (as a re-stamping stream consumer or a second admin would),
// so its condition fails. Failures and later stamps alike count toward the one cap.
import { STAMPED_ATTEMPTS } from '../../lib/core/sync/stamps';
import { startEmbeddedDynamo, type EmbeddedDynamo, type HeldWrite } from '../../tools/local/embedded-dynamo';
import { expectUnavailable } from '../support/fault-expectations';
import { startProxiedStack, type ProxiedStack } from '../support/proxied-stack';

const ORDERS = '/v1/store/orders';
/** The order every cancel here is for, pending, last changed long before the stack's clock. */
const ORDER = '11';
const SEEDED_AT = Date.UTC(2026, 10, 22, 11, 0, 0);

let dynamo: EmbeddedDynamo;
let stack: ProxiedStack;
let key: string;
/** How many more of the cancel's UpdateItems that reach the server meet a later stamp first. */
let restampsLeft = 0;
let restamps = 0;

/** Another writer stamps the order a minute later than the last such stamp, still pending. */
async function restamp(write: HeldWrite): Promise<void> {
  if (restampsLeft <= 0 || write.operation !== 'UpdateItem' || write.table !== stack.tables.names.orders) return;
  restampsLeft--;
  restamps++;
  await stack.orders.putMany([
    { id: ORDER, status: 'pending', updatedAt: new Date(stack.clock.now() + restamps * 60_000).toISOString() },
  ]);
}

beforeAll(async () => {
  dynamo = await startEmbeddedDynamo({ port: 0, holdWrites: (write) => restamp(write) });
  stack = await startProxiedStack(dynamo.endpoint);
  key = await stack.newKey('enterprise', { perMinute: 100_000, perDay: 1_000_000 });
});
beforeEach(async () => {
  restampsLeft = 0;
  stack.proxy.set({ kind: 'pass' });
  await stack.orders.putMany([{ id: ORDER, status: 'pending', updatedAt: new Date(SEEDED_AT).toISOString() }]);
  stack.proxy.resetStats();
});
afterAll(async () => {
  await stack.close();
  await dynamo.close();
});

/** The cancel's UpdateItems the proxy saw (the limiter's are on its own table). */
const cancelWrites = () =>
  stack.proxy.calls().filter((call) => call.operation === 'UpdateItem' && call.table === stack.tables.names.orders);

/** Throttles every other UpdateItem of the orders table, the first included; everything else passes. */
function throttleEveryOtherOrderWrite(): void {
  let writes = 0;
  stack.proxy.set({
    kind: 'throttle',
    only: ({ operation, table }) =>
      operation === 'UpdateItem' && table === stack.tables.names.orders && ++writes % 2 === 1,
  });
}

test('throttled and stamped later by turns: at most STAMPED_ATTEMPTS UpdateItems, then 503, the order unchanged', async () => {
  throttleEveryOtherOrderWrite();
  restampsLeft = Infinity;
  const response = await stack.request('DELETE', `${ORDERS}/${ORDER}`, key);
  expectUnavailable(response, true);
  expect(cancelWrites().length).toBeGreaterThan(1);
  expect(cancelWrites().length).toBeLessThanOrEqual(STAMPED_ATTEMPTS);
  // Each was one SDK attempt of its own: a stamped write's attempts are sends, never the SDK's retries.
  expect(cancelWrites().every((call) => call.maxAttempts === 1)).toBe(true);
  expect((await stack.orders.getSynced(ORDER))?.status).toBe('pending');
});

test('an order stamped later before each UpdateItem: STAMPED_ATTEMPTS of them, then 503 (not 500)', async () => {
  stack.proxy.set({ kind: 'throttle', only: () => false });
  restampsLeft = Infinity;
  const response = await stack.request('DELETE', `${ORDERS}/${ORDER}`, key);
  expectUnavailable(response, true);
  expect(cancelWrites()).toHaveLength(STAMPED_ATTEMPTS);
  expect((await stack.orders.getSynced(ORDER))?.status).toBe('pending');
});
