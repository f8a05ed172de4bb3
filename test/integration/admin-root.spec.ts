// The admin command's stores are the composition root's (lib/root/stores.ts): its stamped order
// writes and its limiter writes go out once, never through the SDK's retries (docs/design.md, "One
// composition root"), as the service's do. Seen on the wire, through the fault proxy's headers.
import { TABLES, type TableId } from '../../lib/contract/tables';
import { MAX_ATTEMPTS } from '../../lib/stores/dynamo';
import { localTarget } from '../../tools/admin/target';
import { adminRunner } from '../support/admin-harness';
import { createTestTables, type TestTables } from '../support/dynamo';
import { startFaultProxy, type FaultProxy, type SeenCall } from '../support/fault-proxy';

let tables: TestTables;
let proxy: FaultProxy;

beforeAll(async () => {
  tables = await createTestTables();
  proxy = await startFaultProxy(Number(new URL(tables.endpoint).port));
  // Throttle mode reads each body, so a call is seen with its table; throttling none, it passes all on.
  proxy.set({ kind: 'throttle', only: () => false });
});
afterAll(async () => {
  await proxy.close();
  await tables.drop();
});

/** The admin command as `npm run admin` runs it, on the tables behind the proxy (DYNAMODB_ENDPOINT and the table variables). */
const admin = adminRunner(() =>
  localTarget({
    DYNAMODB_ENDPOINT: proxy.endpoint,
    ...Object.fromEntries(Object.entries(TABLES).map(([id, table]) => [table.envVar, tables.names[id as TableId]])),
  }),
);

const sent = (operation: string, table: TableId): SeenCall[] =>
  proxy.calls().filter((call) => call.operation === operation && call.table === tables.names[table]);

test('orders ship stamps its write in one attempt', async () => {
  // Seeded past the proxy, by the root's seeding store.
  await tables.stores().seeding.putMany([{ id: '42', status: 'pending' }]);
  proxy.resetStats();
  const run = await admin('orders', 'ship', '42');
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const writes = sent('UpdateItem', 'orders');
  expect(writes.length).toBeGreaterThan(0);
  expect(writes.map((call) => call.maxAttempts)).toEqual(writes.map(() => 1));
});

test('keys revoke marks the limiter item in one attempt; the key record goes through the retrying client', async () => {
  const created = await admin('keys', 'create', '--plan', 'free', '--json');
  expect(created.code).toBe(0);
  const { id } = JSON.parse(created.stdout) as { id: string };
  proxy.resetStats();
  expect((await admin('keys', 'revoke', id)).code).toBe(0);
  const limiterWrites = sent('UpdateItem', 'rateLimits');
  expect(limiterWrites.length).toBeGreaterThan(0);
  expect(limiterWrites.map((call) => call.maxAttempts)).toEqual(limiterWrites.map(() => 1));
  // The proxy tells the clients apart: the key record's own write is retried as the SDK's default.
  const keyWrites = [...sent('UpdateItem', 'apiKeys'), ...sent('PutItem', 'apiKeys')];
  expect(keyWrites.length).toBeGreaterThan(0);
  expect(keyWrites.map((call) => call.maxAttempts)).toEqual(keyWrites.map(() => MAX_ATTEMPTS));
});
