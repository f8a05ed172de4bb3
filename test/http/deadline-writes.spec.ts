// A 503 is not followed by the change (issue 43), through HTTP: the local gateway and handlers on a
// virtual clock (the function's deadline, the write attempts' cuts, the limiter's timing), the
// embedded server holding the cancel's writes on the same clock and applying them even after their
// client gave up (tools/local/write-holds.ts), and a log of when each write landed. A held write
// lands as late as the sync design's landing assumption allows: the landing margin after its client
// hung up, or a whole attempt (the deployed per-attempt timeout) plus that margin after it arrived.
// Then the clock runs on past everything, and no write for the order may have landed after the 503.
import type { AddressInfo } from 'node:net';
import { FUNCTIONS } from '../../lib/contract/deployment';
import { PLAN_LIMITS } from '../../lib/contract/plans';
import { SYNC_TIMING } from '../../lib/contract/sync';
import type { TableId } from '../../lib/contract/tables';
import { DEADLINE_MARGIN_MS } from '../../lib/edge/api-handler';
import { ApiKeysRepository } from '../../lib/stores/api-keys';
import { REQUEST_TIMEOUT_MS } from '../../lib/stores/dynamo';
import { createApiKey } from '../../lib/stores/key-service';
import { OrdersRepository } from '../../lib/stores/orders';
import { createLocalApp } from '../../tools/local/app';
import type { HeldWrite } from '../../tools/local/write-holds';
import { expectUnavailable } from '../support/fault-expectations';
import { startFaultProxy } from '../support/fault-proxy';
import { startLaggingTables } from '../support/lagging-dynamo';
import { rawRequest, type RawResponse } from '../support/raw-http';
import { VirtualTime } from '../support/virtual-time';

const LANDING_MS = SYNC_TIMING.unansweredLandingMs;
/** When a cancel is answered 503 at the latest: its function's timeout less the deadline margin. */
const ANSWER_BY_MS = FUNCTIONS['cancel-order'].timeoutSeconds * 1000 - DEADLINE_MARGIN_MS;
/** Far past every hold and every deadline of one request. */
const PAST_EVERYTHING_MS = 60_000;
const START = Date.parse('2026-11-22T10:00:10.000Z');
const ORDER = '1';

/** A write held on the virtual clock until the promise settles (applied then), or not held. */
type Hold = (write: HeldWrite, time: VirtualTime) => Promise<void> | undefined;

/** The latest the landing assumption allows: the margin after its client hung up, or a whole attempt and the margin after it came. */
const asLateAsAllowed: Hold = (write, time) =>
  new Promise((land) => {
    const stopWaiting = time.after(REQUEST_TIMEOUT_MS + LANDING_MS, land);
    write.abandoned.addEventListener('abort', () => {
      stopWaiting();
      time.after(LANDING_MS, land);
    });
  });

/** Held `ms`, then applied and answered while its client still waits. */
const answeredAfter =
  (ms: number): Hold =>
  (_write, time) =>
    new Promise((land) => time.after(ms, land));

interface Landing {
  table: TableId | undefined;
  /** Virtual epoch ms. */
  at: number;
}

interface Outcome {
  response: RawResponse;
  /** When the gateway answered, virtual epoch ms. */
  answeredAt: number;
  /** The order's writes, when each landed. */
  orderWrites: Landing[];
  order: Awaited<ReturnType<OrdersRepository['getSynced']>>;
  seededAt: string;
}

/**
 * One DELETE of a pending order through a fresh local stack whose writes are held by `hold` (told
 * the table and the write's number on it, from 1), the clock then run past everything.
 */
async function cancelWithHeldWrites(
  hold: (table: TableId | undefined, n: number) => Hold | undefined,
): Promise<Outcome> {
  const time = new VirtualTime(START);
  const landings: Landing[] = [];
  const seen = new Map<TableId | undefined, number>();
  let armed = false;
  /** Held writes whose client still waits for them: at the server, but waiting on the clock. */
  let waiting = 0;
  const tables = await startLaggingTables({
    holdWrites: (write) => {
      if (!armed) return undefined;
      const table = (Object.keys(tables.names) as TableId[]).find((id) => tables.names[id] === write.table);
      const n = (seen.get(table) ?? 0) + 1;
      seen.set(table, n);
      const held = hold(table, n)?.(write, time);
      if (!held) {
        landings.push({ table, at: time.now() });
        return undefined;
      }
      waiting++;
      let counted = true;
      const stopCounting = () => {
        if (counted) waiting--;
        counted = false;
      };
      write.abandoned.addEventListener('abort', stopCounting);
      return held.then(() => {
        stopCounting();
        landings.push({ table, at: time.now() });
      });
    },
  });
  // Every call passes at once; the proxy tells which are still at the server (real I/O, not the clock's).
  const proxy = await startFaultProxy(Number(new URL(tables.endpoint).port));
  proxy.set({ kind: 'late replies', ms: () => 0, sleep: time.sleep });
  const answers: number[] = [];
  const app = createLocalApp({
    endpoint: proxy.endpoint,
    tables: tables.names,
    now: time.now,
    timers: time.asTimers,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    onAccessLog: () => answers.push(time.now()),
  });
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  let arrived = 0;
  app.server.prependListener('request', () => arrived++);
  try {
    const orders = new OrdersRepository(tables.doc, tables.names.orders);
    const seededAt = new Date(START - 3_600_000).toISOString();
    await orders.putMany([{ id: ORDER, status: 'pending', updatedAt: seededAt }]);
    const { key } = await createApiKey(new ApiKeysRepository(tables.doc, tables.names.apiKeys), {
      plan: 'enterprise',
      limits: PLAN_LIMITS.pro,
    });
    armed = true;
    let received = 0;
    const response = await time.run(
      (async () => {
        const answer = await rawRequest(baseUrl, 'DELETE', `/v1/store/orders/${ORDER}`, {
          headers: { Authorization: `Bearer ${key}` },
        });
        received++;
        await time.sleep(PAST_EVERYTHING_MS);
        return answer;
      })(),
      { busy: () => proxy.atServer() > waiting || arrived < 1 || answers.length > received },
    );
    armed = false;
    const answeredAt = answers[0];
    if (answeredAt === undefined) throw new Error('The gateway logged no answer');
    return {
      response,
      answeredAt,
      orderWrites: landings.filter((landing) => landing.table === 'orders'),
      order: await orders.getSynced(ORDER),
      seededAt,
    };
  } finally {
    app.server.closeAllConnections();
    await new Promise<void>((resolve) => app.server.close(() => resolve()));
    await proxy.close();
    await tables.close();
  }
}

test('a cancel admitted too late for its write to end before its answer: 503, and the order never changes', async () => {
  // The limiter's write is answered within its attempt timeout but late: its reply comes when too
  // little time is left for the order's write to end, the landing margin before the answer.
  const limiterLateMs = REQUEST_TIMEOUT_MS - 500;
  const outcome = await cancelWithHeldWrites((table, n) =>
    table === 'rateLimits' && n === 1 ? answeredAfter(limiterLateMs) : table === 'orders' ? asLateAsAllowed : undefined,
  );
  expectUnavailable(outcome.response, false);
  expect(outcome.answeredAt - START).toBeLessThanOrEqual(ANSWER_BY_MS);
  expect(outcome.orderWrites.filter((write) => write.at > outcome.answeredAt)).toEqual([]);
  expect(outcome.order).toEqual({ id: ORDER, status: 'pending', updatedAt: outcome.seededAt });
}, 60_000);

test('a cancel whose every write goes unanswered: 503 by its deadline, and no write for the order lands after it', async () => {
  const outcome = await cancelWithHeldWrites((table) => (table === 'orders' ? asLateAsAllowed : undefined));
  expectUnavailable(outcome.response, true);
  expect(outcome.answeredAt - START).toBeLessThanOrEqual(ANSWER_BY_MS);
  // The cancel was sent, and landed, as late as allowed: before the 503 or with it, never after.
  expect(outcome.orderWrites.length).toBeGreaterThan(0);
  expect(outcome.orderWrites.filter((write) => write.at > outcome.answeredAt)).toEqual([]);
  // A 503 leaves the outcome unknown (the client repeats the DELETE, which is idempotent): here the
  // first attempt landed before the answer.
  expect(outcome.order?.status).toBe('cancelled');
}, 60_000);
