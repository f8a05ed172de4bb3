// No tool's clock matters (issue 44): the admin command, run as an operator runs it (a child
// process) on a machine whose clock is minutes or hours off (test/support/skewed-clock.cjs), against
// a local stack whose embedded server's replies carry the world's time in their Date header, as
// DynamoDB's carry AWS's. Its stamps and revocations are AWS's time: a replica that follows the
// documented loop gets every change, and a revoked key's next request is refused. Where AWS's time
// cannot be told from the replies, the command refuses in one line and writes nothing.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SYNC_TIMING } from '../../lib/contract/sync';
import { adminCli } from '../support/admin-cli';
import { startLaggingTables } from '../support/lagging-dynamo';
import { bearer, expectError, flowingClock, startLocalStack } from '../support/local-stack';
import { syncedOrdersById } from '../support/orders-table';
import { startSyncWorld, type SyncWorld } from '../support/sync-world';
import { createApiKey } from '../../lib/stores/key-service';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tool-clocks-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('orders import and orders ship', () => {
  let world: SyncWorld;
  afterEach(() => world.close());

  test.each([
    ['10 min slow', -10 * MINUTE],
    ['10 min fast', 10 * MINUTE],
    ['6.5 h slow', -6.5 * HOUR],
    ['6.5 h fast', 6.5 * HOUR],
  ])(
    'from a machine whose clock is %s stamp AWS’s time, and a replica gets every change',
    async (_name, offMs) => {
      world = await startSyncWorld({ clock: flowingClock() });
      await world.app.orders.putMany(['1', '2', '3'].map((id) => ({ id, status: 'pending' as const })));
      await world.expectConverged();
      // More orders than an import writes at once: the first of them are its first writes.
      const file = join(dir, `orders${offMs}.json`);
      const ids = Array.from({ length: 40 }, (_, i) => String(101 + i));
      writeFileSync(file, JSON.stringify(ids.map((id) => ({ id: Number(id), status: 'pending' }))));

      const before = world.clock.now();
      const clock = { offMs, clockMs: world.clock.now };
      const imported = await adminCli(world.tables, ['orders', 'import', file], clock);
      const shipped = await adminCli(world.tables, ['orders', 'ship', '1'], clock);
      const after = world.clock.now();
      expect(imported).toMatchObject({ code: 0 });
      expect(imported.stdout).toContain('40 created');
      expect(shipped).toMatchObject({ code: 0, stdout: 'Order 1 is shipped.\n', stderr: '' });

      // Every stamp is AWS's time when it was written, within the declared clock error.
      const store = await syncedOrdersById(world.tables.client, world.tables.names.orders);
      const written = [...store.values()].filter((order) => order.id === '1' || ids.includes(order.id));
      expect(written).toHaveLength(41);
      const allowance = SYNC_TIMING.clockErrorMs;
      const outside = written.filter((order) => {
        const stamp = Date.parse(order.updatedAt ?? '');
        return !(stamp >= before - allowance && stamp <= after + allowance);
      });
      expect(outside.map((order) => `${order.id} at ${order.updatedAt}`)).toEqual([]);
      await world.expectConverged();
      expect(world.replica.get('1')?.status).toBe('shipped');
    },
    60_000,
  );
});

describe('keys revoke', () => {
  // Times of day at which the machine's clock reads another UTC day than AWS's.
  test.each([
    ['6.5 h slow, on the day before', -6.5 * HOUR, '2026-11-24T02:00:00.000Z'],
    ['6.5 h fast, on the day after', 6.5 * HOUR, '2026-11-24T20:00:00.000Z'],
  ])(
    'from a machine whose clock is %s, refuses the key’s next request',
    async (_name, offMs, at) => {
      const clock = flowingClock(Date.parse(at));
      const stack = await startLocalStack({ clock, dynamo: {} });
      try {
        const { key, id } = await stack.newKey('free');
        // Authorized: the gateway caches the key's Allow for the cache time.
        expect((await stack.call('GET', '/v1/store/orders', bearer(key))).status).toBe(200);
        const run = await adminCli(stack.tables, ['keys', 'revoke', id], { offMs, clockMs: clock.now });
        expect(run).toMatchObject({ code: 0, stderr: '' });
        const revokedAt = clock.now();
        await expectError(await stack.call('GET', '/v1/store/orders', bearer(key)), 401, 'UNAUTHORIZED');
        expect(clock.now() - revokedAt).toBeLessThan(2_000);
      } finally {
        await stack.close();
      }
    },
    60_000,
  );
});

test('where replies carry no usable Date, a command that would stamp or revoke refuses in one line and writes nothing', async () => {
  // A server whose replies' Date header is not a date: nothing bounds the machine's offset from AWS's.
  const tables = await startLaggingTables({ clock: () => NaN });
  try {
    const { orders, keys, limiter } = tables.stores({ now: Date.now });
    await orders.putMany([{ id: '1', status: 'pending', updatedAt: '2026-11-22T12:00:00.000Z' }]);
    const { record } = await createApiKey(keys, { plan: 'free' });
    for (const args of [
      ['orders', 'ship', '1'],
      ['keys', 'revoke', record.id],
    ]) {
      const run = await adminCli(tables, args, { offMs: 0 });
      expect(run).toMatchObject({ code: 1, stdout: '' });
      expect(run.stderr).toMatch(/^Error: [^\n]*clock[^\n]*\n$/);
    }
    expect(await orders.get('1')).toMatchObject({ status: 'pending' });
    expect((await keys.get(record.id))?.revokedAt).toBeUndefined();
    expect(await limiter.read(record.id)).toBeUndefined();
  } finally {
    await tables.close();
  }
}, 60_000);
