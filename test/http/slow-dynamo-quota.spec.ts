// Slow DynamoDB must not burn a minute's quota (issue 35, item 2), through HTTP: the local gateway
// and handlers on a virtual clock (their deadlines, the limiter's call timing, the client's
// retries), every DynamoDB reply held 0.5-3 s on the same clock by a proxy in front of the embedded
// server, which cuts a reply later than the deployed per-attempt timeout as the SDK would give up on
// it. The embedded server brings no item back with a failed condition, so every failed admission
// costs a read too: the slowest path there is. Minutes of slow traffic run in seconds.
import type { AddressInfo } from 'node:net';
import { PLAN_LIMITS } from '../../lib/contract/plans';
import { unixSeconds, windowAt } from '../../lib/core/limiter/windows';
import { REQUEST_TIMEOUT_MS } from '../../lib/stores/dynamo';
import { createApiKey } from '../../lib/stores/key-service';
import { createLocalApp } from '../../tools/local/app';
import { errorCodeOf } from '../support/documented-response';
import { createTestTables, type TestTables } from '../support/dynamo';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { headerOf, rawRequest } from '../support/raw-http';
import { retryingEach503, VirtualTime } from '../support/virtual-time';

/** Spreads replies over [lowMs, highMs] by their number, deterministically. */
const lateness = (lowMs: number, highMs: number) => (n: number) => lowMs + ((n * 0.618034) % 1) * (highMs - lowMs);
const minuteOf = (ms: number) => windowAt('minute', unixSeconds(ms)).start;

interface Answer {
  orderId: string;
  status: number;
  code: string | undefined;
  /** The minute it was sent in. */
  minute: number;
  retryAfter: string | undefined;
}

let tables: TestTables;
let proxy: FaultProxy;

beforeAll(async () => {
  tables = await createTestTables();
  proxy = await startFaultProxy(Number(new URL(tables.endpoint).port));
});
afterAll(async () => {
  await proxy.close();
  await tables.drop();
});

test('100 cancels at :59.8 and 100 at :00.1 on a free key, every DynamoDB reply 0.5-3 s late: the new minute serves at least 80 % of its limit, under 5 % end 503, and nothing is counted that was not served', async () => {
  const free = PLAN_LIMITS.free;
  const time = new VirtualTime(Date.parse('2026-11-22T10:00:59.800Z'));
  // Setup and checks straight to the server, on the test's clock.
  const stores = tables.stores({ now: time.now });
  // Written before the test's minute, on its clock: a cancel's stamp is later than the order's.
  const updatedAt = new Date(time.now() - 3_600_000).toISOString();
  await stores.seeding.putMany(
    Array.from({ length: 200 }, (_, i) => ({ id: String(i + 1), status: 'pending' as const, updatedAt })),
  );
  const { key, record } = await createApiKey(stores.keys, { plan: 'free' });
  // The SDK's own timeout runs on real time, so it is far off; the proxy keeps the deployed one.
  const app = createLocalApp({
    endpoint: proxy.endpoint,
    tables: tables.names,
    now: time.now,
    timers: time.asTimers,
    requestTimeoutMs: 120_000,
  });
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  let sent = 0;
  let arrived = 0;
  app.server.prependListener('request', () => arrived++);
  proxy.set({ kind: 'late replies', ms: lateness(500, 3_000), sleep: time.sleep, timeoutMs: REQUEST_TIMEOUT_MS });

  const cancelOnce = async (orderId: string): Promise<Answer> => {
    const minute = minuteOf(time.now());
    sent++;
    const response = await rawRequest(baseUrl, 'DELETE', `/v1/store/orders/${orderId}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    const retryAfter = headerOf(response, 'Retry-After');
    return { orderId, status: response.status, code: errorCodeOf(response), minute, retryAfter };
  };
  try {
    const [first, second] = await time.run(
      (async () => {
        const before = Promise.all(Array.from({ length: 100 }, (_, i) => cancelOnce(String(i + 1))));
        await time.sleep(300);
        const after = Promise.all(
          Array.from({ length: 100 }, (_, i) => retryingEach503(time, () => cancelOnce(String(i + 101)))),
        );
        return [await before, await after] as const;
      })(),
      { busy: () => proxy.atServer() > 0 || arrived < sent },
    );
    const next = minuteOf(Date.parse('2026-11-22T10:01:00.100Z'));
    const answers = [...first, ...second.flat()];
    const served = answers.filter((a) => a.status === 204);
    const servedNext = served.filter((a) => a.minute === next).length;
    expect(servedNext).toBeGreaterThanOrEqual(Math.ceil(free.perMinute * 0.8));
    expect(servedNext).toBeLessThanOrEqual(free.perMinute);
    // Of the hundred after the boundary, under 5 % end 503 (after their retries).
    const ended503 = second.filter((mine) => mine.at(-1)?.status === 503).length;
    expect(ended503).toBeLessThan(5);
    expect(answers.filter((a) => ![204, 429, 503].includes(a.status))).toEqual([]);
    expect(answers.filter((a) => a.code === 'KEY_TEMPORARILY_BANNED')).toEqual([]);
    // Nothing counted that was not served, and nothing done for a request not answered 204.
    const stored = await stores.limiter.read(record.id);
    expect(stored).toMatchObject({ minute: next, inMinute: servedNext, day: served.length });
    expect(stored?.bannedUntil).toBeUndefined();
    const all = await Promise.all(Array.from({ length: 200 }, (_, i) => stores.orders.get(String(i + 1))));
    const cancelled = all.filter((o) => o?.status === 'cancelled').map((o) => o?.id);
    expect(cancelled.sort()).toEqual(served.map((a) => a.orderId).sort());
  } finally {
    app.server.closeAllConnections();
    await new Promise<void>((resolve) => app.server.close(() => resolve()));
  }
}, 120_000);
