// One request through a fresh local stack on a virtual clock (the functions' deadlines, the write
// attempts' cuts, the limiter's timing), its DynamoDB's writes held on the same clock by the
// embedded server and applied even after their client gave up (tools/local/held-calls.ts), and a
// log of when each write landed. Then the clock runs on past everything, so a test can see whether
// any write landed after the answer (docs/design.md#a-503-is-not-followed-by-the-change).
import type { AddressInfo } from 'node:net';
import { PLAN_LIMITS } from '../../lib/contract/plans';
import { SYNC_TIMING } from '../../lib/contract/sync';
import type { TableId } from '../../lib/contract/tables';
import { REQUEST_TIMEOUT_MS } from '../../lib/stores/dynamo';
import { createApiKey } from '../../lib/stores/key-service';
import type { OrdersRepository } from '../../lib/stores/orders';
import { createLocalApp } from '../../tools/local/app';
import type { HeldWrite } from '../../tools/local/embedded-dynamo';
import { startFaultProxy } from './fault-proxy';
import { startLaggingTables } from './lagging-dynamo';
import { rawRequest, type RawResponse } from './raw-http';
import { VirtualTime } from './virtual-time';

const LANDING_MS = SYNC_TIMING.unansweredLandingMs;
/** Far past every hold and every deadline of one request (a listing: of its part before the first byte). */
const PAST_EVERYTHING_MS = 60_000;
export const HELD_START = Date.parse('2026-11-22T10:00:10.000Z');
/** The pending order the stack is seeded with. */
export const HELD_ORDER = '1';

/** A write held on the virtual clock until the promise settles (applied then), or not held. */
export type Hold = (write: HeldWrite, time: VirtualTime) => Promise<void> | undefined;

/** The latest the landing assumption allows: the margin after its client hung up, or a whole attempt and the margin after it came. */
export const asLateAsAllowed: Hold = (write, time) =>
  new Promise((land) => {
    const stopWaiting = time.after(REQUEST_TIMEOUT_MS + LANDING_MS, land);
    write.abandoned.addEventListener('abort', () => {
      stopWaiting();
      time.after(LANDING_MS, land);
    });
  });

/** Held `ms`, then applied and answered while its client still waits. */
export const answeredAfter =
  (ms: number): Hold =>
  (_write, time) =>
    new Promise((land) => time.after(ms, land));

export interface Landing {
  table: TableId | undefined;
  /** The DynamoDB operation, e.g. `PutItem`. */
  operation: string;
  /** Virtual epoch ms. */
  at: number;
}

export interface HeldOutcome {
  response: RawResponse;
  /** When the gateway answered, virtual epoch ms. */
  answeredAt: number;
  /** Every write of the request, when each landed. */
  landings: Landing[];
  order: Awaited<ReturnType<OrdersRepository['getSynced']>>;
  seededAt: string;
}

/**
 * One request (`method` `path`, with a key of its own) through a fresh local stack whose writes are
 * held by `hold` (told the table, the write's number on it from 1, and the write), the clock then
 * run past everything. `replyMs` holds each of the stack's DynamoDB replies (n from 1) on the clock:
 * none by default.
 */
export async function requestWithHeldWrites(
  method: string,
  path: string,
  hold: (table: TableId | undefined, n: number, write: HeldWrite) => Hold | undefined,
  replyMs: (n: number) => number = () => 0,
): Promise<HeldOutcome> {
  const time = new VirtualTime(HELD_START);
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
      const landed = () => landings.push({ table, operation: write.operation, at: time.now() });
      const held = hold(table, n, write)?.(write, time);
      if (!held) {
        landed();
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
        landed();
      });
    },
  });
  // Every call passes at once; the proxy tells which are still at the server (real I/O, not the clock's).
  const proxy = await startFaultProxy(Number(new URL(tables.endpoint).port));
  proxy.set({ kind: 'late replies', ms: replyMs, sleep: time.sleep });
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
    const stores = tables.stores();
    const seededAt = new Date(HELD_START - 3_600_000).toISOString();
    await stores.seeding.putMany([{ id: HELD_ORDER, status: 'pending', updatedAt: seededAt }]);
    const { key } = await createApiKey(stores.keys, {
      plan: 'enterprise',
      limits: PLAN_LIMITS.pro,
    });
    armed = true;
    let received = 0;
    const response = await time.run(
      (async () => {
        const answer = await rawRequest(baseUrl, method, path, { headers: { Authorization: `Bearer ${key}` } });
        received++;
        await time.sleep(PAST_EVERYTHING_MS);
        return answer;
      })(),
      { busy: () => proxy.atServer() > waiting || arrived < 1 || answers.length > received },
    );
    armed = false;
    const answeredAt = answers[0];
    if (answeredAt === undefined) throw new Error('The gateway logged no answer');
    return { response, answeredAt, landings, order: await stores.orders.getSynced(HELD_ORDER), seededAt };
  } finally {
    app.server.closeAllConnections();
    await new Promise<void>((resolve) => app.server.close(() => resolve()));
    await proxy.close();
    await tables.close();
  }
}
