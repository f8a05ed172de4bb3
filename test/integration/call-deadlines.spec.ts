// Calls past their time are never sent (lib/stores/call-deadlines.ts), with the service's own
// clients and the orders store on the embedded server, a proxy in front counting what reaches it. A
// Lambda environment frozen after its answer and thawed later runs on before its timers fire: the
// clock is checked right before each call is sent, after signing. Here a clock that jumps while
// the stamp is taken stands for a freeze between stamping and sending.
import { requestDeadline } from '../../lib/commons/deadline';
import { REAL_TIMERS, type Timers } from '../../lib/commons/timers';
import { SYNC_TIMING } from '../../lib/contract/sync';
import { NoTimeToWriteError } from '../../lib/stores/call-deadlines';
import { isDependencyFailure } from '../../lib/stores/dependency-failure';
import { REQUEST_TIMEOUT_MS } from '../../lib/stores/dynamo';
import { createTestTables, type TestTables } from '../support/dynamo';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';

let tables: TestTables;
let proxy: FaultProxy;
const seededAt = '2026-11-22T11:00:00.000Z';

beforeAll(async () => {
  tables = await createTestTables();
  proxy = await startFaultProxy(Number(new URL(tables.endpoint).port));
});
afterAll(async () => {
  await proxy.close();
  await tables.drop();
});
beforeEach(() => proxy.resetStats());

/** A clock moved by hand; its timers run on real time (a short backoff), the attempts' cuts far off. */
function handClock(start: number): Timers & { jump(ms: number): void } {
  let now = start;
  return {
    now: () => now,
    after: (ms, fire) => REAL_TIMERS.after(ms, fire),
    jump: (ms) => {
      now += ms;
    },
  };
}

/** The composition root's orders store, its calls through the proxy, on `timers`, stamped by `stampNow`. */
function ordersStore(timers: Timers, stampNow: () => number) {
  return tables.stores({ endpoint: proxy.endpoint, timers, now: stampNow, requestTimeoutMs: REQUEST_TIMEOUT_MS })
    .orders;
}

const updateItems = () => proxy.calls().filter((call) => call.operation === 'UpdateItem');

test('a write whose attempt time passed between its stamp and its send is not sent: a freeze cannot land an old stamp', async () => {
  const id = '1';
  await tables.stores().seeding.putMany([{ id, status: 'pending', updatedAt: seededAt }]);
  const clock = handClock(Date.parse('2026-11-22T12:00:00.000Z'));
  // Frozen just after each stamp is taken, for longer than an attempt's time: no timer has fired.
  const frozen = ordersStore(clock, () => {
    const stamp = clock.now();
    clock.jump(REQUEST_TIMEOUT_MS + 1);
    return stamp;
  });
  const refused = await frozen.cancel(id).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(isDependencyFailure(refused)).toBe(true);
  expect(updateItems()).toEqual([]);
  expect(await frozen.getSynced(id)).toEqual({ id, status: 'pending', updatedAt: seededAt });

  // The same store, its clock steady: the write is sent and applied.
  const steady = ordersStore(clock, clock.now);
  await steady.cancel(id);
  expect(updateItems()).toHaveLength(1);
  expect((await steady.getSynced(id))?.status).toBe('cancelled');
});

test('once its request is answered, nothing of it is sent: no write, no read', async () => {
  const id = '2';
  await tables.stores().seeding.putMany([{ id, status: 'pending', updatedAt: seededAt }]);
  const store = ordersStore(REAL_TIMERS, Date.now);
  const deadline = requestDeadline(REAL_TIMERS, 9_500, SYNC_TIMING.unansweredLandingMs);
  deadline.answered();
  await expect(store.cancel(id, deadline)).rejects.toBeInstanceOf(NoTimeToWriteError);
  await expect(store.getSynced(id, deadline)).rejects.toMatchObject({ name: 'AbortError' });
  expect(proxy.calls()).toEqual([]);
  expect(await store.getSynced(id)).toEqual({ id, status: 'pending', updatedAt: seededAt });
});

test('a read sent after its request’s answer time, before the deadline’s timer has fired, is not sent', async () => {
  const id = '3';
  await tables.stores().seeding.putMany([{ id, status: 'pending', updatedAt: seededAt }]);
  const clock = handClock(Date.parse('2026-11-22T12:00:00.000Z'));
  const store = ordersStore(clock, clock.now);
  const deadline = requestDeadline(clock, 9_500, SYNC_TIMING.unansweredLandingMs);
  expect(await store.getSynced(id, deadline)).toMatchObject({ status: 'pending' });
  clock.jump(9_500);
  await expect(store.getSynced(id, deadline)).rejects.toMatchObject({ name: 'AbortError' });
  expect(proxy.calls().filter((call) => call.operation === 'GetItem')).toHaveLength(1);
});
