// What the composition root is given: where DynamoDB is, the tables, a clock, and the settings that
// differ between the deployed functions, the local stack, the bench and the tests. Everything the
// root makes from one Wiring is made once, on first use, and shared by the handlers made from it.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { optionalEnv, requireEnv } from '../commons/env';
import { REAL_TIMERS, type Timers } from '../commons/timers';
import { TABLES, type TableId, type TableNames } from '../contract/tables';
import { STAGE_LISTINGS_CAP_ENV_VAR } from '../contract/deployment';
import { settleMs, SYNC_TIMING, type SyncTiming } from '../contract/sync';
import type { WatchBounds } from '../core/sync/lateness';
import type { LagTiming } from '../core/sync/index-lag';
import { INDEX_CANARY_TIMING } from '../contract/index-canary';
import { ON_DYNAMODB, ON_EMBEDDED_SERVER, type ConditionFailureItems } from '../stores/conditional';
import { awsClock, type StampClock } from '../stores/aws-clock';
import { createDocumentClient, createDynamoClient, requestTimeoutFor, type DynamoOptions } from '../stores/dynamo';
import { LIMITER_CLIENT } from '../stores/rate-limiter';
import type { AttemptTimer } from '../stores/call-deadlines';
import type { OrdersHandlerDeps } from '../edge/orders-handlers';
import type { makeAuthorizerHandler } from '../edge/authorizer-handler';
import type { CursorKeySource } from '../core/sync/cursor';
import { fixedCursorKey } from './cursor-key';
import type { DestinationCheck } from '../stores/webhook-destinations';
import { DEPLOYED_RULES } from '../core/webhooks/url-rules';
import type { DeliveryQueue } from '../stores/webhook-queue';

export interface Wiring {
  /** A DynamoDB-compatible endpoint (the embedded server); AWS's default chain when absent. */
  endpoint?: string;
  /** The AWS Region, when a command line names one (the admin command's --stage); the default chain's otherwise. */
  region?: string;
  /** Per-attempt DynamoDB timeout; the client's own default for the endpoint when absent. */
  requestTimeoutMs?: number;
  /** Table names, or a lookup called when a store is first made (a function's environment). */
  tables: TableNames | ((table: TableId) => string);
  /** The clock (epoch ms) of the limiter, the listing leases and the store-size cache. */
  now?: () => number;
  /**
   * Without `now`: makes the stores' clock, stamps' included, on the one-attempt client the stamped
   * writes and the limiter's marks go through, so it can read AWS's time from that client's
   * replies. A tool's (tools/shared/aws-time.ts); the service stamps from awsClock on it.
   */
  clockOn?: (oneAttempt: DynamoDBClient) => StampClock;
  /**
   * The handlers' deadline timers and the clock the limiter times its calls by: the real ones
   * unless a test runs the service on a virtual clock.
   */
  timers?: Timers;
  /** Whether a failed condition brings its item back: by default yes on AWS, no on an endpoint. */
  conditionFailures?: ConditionFailureItems;
  /** Listings the whole stage may run at once (stageListingsCap); none when absent. */
  stageListingsCap?: number;
  /** How listOrders reads the table and when it refuses uncompressed; the deployed settings by default. */
  listing?: Pick<OrdersHandlerDeps, 'scan' | 'uncompressedMaxOrders'>;
  /**
   * What the handlers read instead of the deployed stores: a store on a failing or slow client, or a
   * stand-in (tests, the bench). The stores the root hands out stay the real ones, for seeding and checks.
   */
  standIns?: Partial<StandIns>;
  /** The timing exact sync relies on; the declared one (SYNC_TIMING) when absent, scaled down by tests. */
  syncTiming?: SyncTiming;
  /**
   * The v2 walks trust the declared index lag instead of reading the index-lag canary's record: only
   * for a test stack that runs no canary. The deployed functions and `npm start` read the record.
   */
  trustDeclaredIndexLag?: boolean;
  /**
   * The HMAC key the v2 listing seals its cursors with: one key, or where a deployed function reads
   * its current and previous keys (lib/root/cursor-key.ts).
   */
  cursorKey?: Uint8Array | CursorKeySource;
  /**
   * Where webhook events may go: deployed, https to public addresses only (DEPLOYED_RULES); the
   * local stack allows loopback, and tests give their own resolver.
   */
  webhookDestinations?: Partial<DestinationCheck>;
  /**
   * The delivery queue: deployed, SQS at the URL the function's environment names
   * (WEBHOOK_QUEUE_URL_ENV); the local stack's emulated SQS endpoint and queue URL; or a queue of a
   * test's own.
   */
  webhookQueue?: { endpoint?: string; url: string } | DeliveryQueue;
  /** The local stack's `--webhook-fail-rate` (tools/local/start-args.ts): never deployed. */
  webhookFailRate?: number;
  /** The delivery's jitter; Math.random unless a test fixes it. */
  random?: () => number;
}

export interface StandIns {
  orders: OrdersHandlerDeps['orders'];
  limiter: OrdersHandlerDeps['limiter'];
  listings: NonNullable<OrdersHandlerDeps['listings']>;
  keys: Parameters<typeof makeAuthorizerHandler>[0]['keys'];
}

/**
 * A Lambda function's wiring: tables from its environment, DynamoDB from AWS (or DYNAMODB_ENDPOINT).
 * The v2 listing adds its cursor keys, read from their secret (functions/list-orders-v2.ts).
 */
export function wiringFromEnv(): Wiring {
  const endpoint = optionalEnv('DYNAMODB_ENDPOINT');
  const stageCap = Number(optionalEnv(STAGE_LISTINGS_CAP_ENV_VAR));
  return {
    ...(endpoint ? { endpoint } : {}),
    ...(Number.isSafeInteger(stageCap) && stageCap > 0 ? { stageListingsCap: stageCap } : {}),
    tables: (id) => requireEnv(TABLES[id].envVar),
  };
}

/** Memoises `make` per wiring, so every handler made from one wiring shares what it makes. */
export function perWiring<T>(make: (wiring: Wiring) => T): (wiring: Wiring) => T {
  const made = new WeakMap<Wiring, T>();
  return (wiring) => {
    if (!made.has(wiring)) made.set(wiring, make(wiring));
    return made.get(wiring) as T;
  };
}

function clientOptions(wiring: Wiring): DynamoOptions {
  return {
    ...(wiring.endpoint ? { endpoint: wiring.endpoint } : {}),
    ...(wiring.region !== undefined ? { region: wiring.region } : {}),
    ...(wiring.requestTimeoutMs !== undefined ? { requestTimeoutMs: wiring.requestTimeoutMs } : {}),
  };
}

/** The SDK's retries (MAX_ATTEMPTS), for every store but the limiter and the stamped writes. */
const retryingClient = /* @__PURE__ */ perWiring((wiring): DynamoDBClient => createDynamoClient(clientOptions(wiring)));

/** The retrying document client, for every store but the limiter. */
export const documentClient = /* @__PURE__ */ perWiring((wiring): DynamoDBDocumentClient =>
  createDocumentClient(retryingClient(wiring)),
);

/** One attempt per call (LIMITER_CLIENT): the limiter's counting writes and the orders' stamped writes. */
const singleAttemptClient = /* @__PURE__ */ perWiring((wiring): DynamoDBClient =>
  createDynamoClient({ ...clientOptions(wiring), ...LIMITER_CLIENT }),
);

/** The limiter's and the stamped writes' document client: one attempt per call (see stores/rate-limiter.ts). */
export const counterClient = /* @__PURE__ */ perWiring((wiring): DynamoDBDocumentClient =>
  createDocumentClient(singleAttemptClient(wiring)),
);

/** Frees the wiring's DynamoDB sockets, so a command made from it can exit. */
export function closeClients(wiring: Wiring): void {
  retryingClient(wiring).destroy();
  singleAttemptClient(wiring).destroy();
}

/** The clock a wiring makes on its one-attempt client (clockOn), when it gives no `now`. */
const madeClock = /* @__PURE__ */ perWiring((wiring): StampClock | undefined =>
  wiring.now ? undefined : wiring.clockOn?.(singleAttemptClient(wiring)),
);

/**
 * The clock updatedAt is stamped from: the wiring's own when it gives one (tests, the bench) or
 * makes one (a tool); otherwise the machine's, corrected by DynamoDB's replies (stores/aws-clock.ts).
 */
export const stampClockOf = /* @__PURE__ */ perWiring(
  (wiring): StampClock =>
    (wiring.now ? { now: wiring.now } : madeClock(wiring)) ?? awsClock(singleAttemptClient(wiring)),
);

export function syncTimingOf(wiring: Wiring): SyncTiming {
  return wiring.syncTiming ?? SYNC_TIMING;
}

/** The per-attempt timeout of this wiring's clients: its own, or the client's default for its endpoint. */
function requestTimeoutOf(wiring: Wiring): number {
  return wiring.requestTimeoutMs ?? requestTimeoutFor(wiring.endpoint);
}

/**
 * Each write attempt's own cut (lib/stores/call-deadlines.ts): the per-attempt timeout, counted
 * from before the attempt is stamped and signed, on the wiring's timers. The settle time counts it.
 */
export function attemptTimerOf(wiring: Wiring): AttemptTimer {
  return { timeoutMs: requestTimeoutOf(wiring), timers: wiring.timers ?? REAL_TIMERS };
}

/** How long after it ended an unanswered write may still land: each request's writes end this long before its answer. */
export function landingMsOf(wiring: Wiring): number {
  return syncTimingOf(wiring).unansweredLandingMs;
}

/** How far a v2 walk's watermark stands behind its start, for writers cut at this wiring's per-attempt timeout. */
export function walkSettleMsOf(wiring: Wiring): number {
  return settleMs(syncTimingOf(wiring), requestTimeoutOf(wiring));
}

/** What the sync watch judges a change by: this wiring's settling time, clock allowance and index lag. */
export function watchBoundsOf(wiring: Wiring): WatchBounds {
  const { clockErrorMs, indexLagMs } = syncTimingOf(wiring);
  return { settleMs: walkSettleMsOf(wiring), clockErrorMs, indexLagMs };
}

/** The index-lag canary's rules for this wiring: its budget and settling time, the canary's own timing. */
export function lagTimingOf(wiring: Wiring): LagTiming {
  const { clockErrorMs, indexLagMs } = syncTimingOf(wiring);
  return { indexLagMs, settleMs: walkSettleMsOf(wiring), clockErrorMs, ...INDEX_CANARY_TIMING };
}

export function tableName(wiring: Wiring, id: TableId): string {
  return typeof wiring.tables === 'function' ? wiring.tables(id) : wiring.tables[id];
}

export function clockOf(wiring: Wiring): () => number {
  const made = madeClock(wiring);
  return wiring.now ?? (made ? () => made.now() : Date.now);
}

export function conditionFailuresOf(wiring: Wiring): ConditionFailureItems {
  return wiring.conditionFailures ?? (wiring.endpoint ? ON_EMBEDDED_SERVER : ON_DYNAMODB);
}

/** The URL rules and resolver webhook endpoints are checked with: the deployed rules unless the wiring says. */
export function webhookDestinationsOf(wiring: Wiring): DestinationCheck {
  const given = wiring.webhookDestinations ?? {};
  return { rules: DEPLOYED_RULES, ...given, ...(wiring.timers && !given.timers ? { timers: wiring.timers } : {}) };
}

/** The v2 cursor keys; a wiring without any fails the v2 listing's requests, nothing else. */
export const cursorKeysOf = /* @__PURE__ */ perWiring((wiring): CursorKeySource => {
  const key = wiring.cursorKey;
  if (key instanceof Uint8Array) {
    if (key.length > 0) return fixedCursorKey(key);
  } else if (key) return key;
  const none = () => Promise.reject(new Error('The wiring gives no cursor key for the v2 listing'));
  return { held: none, renewed: none };
});
