// The stores, each made once per wiring on first use: the only place they are made, for the
// functions, the local stack, the admin command, the bench and the tests alike. One factory each,
// marked pure, so esbuild drops the ones a function does not use and its bundle carries only the
// stores its handler reads.
import { ApiKeysRepository } from '../stores/api-keys';
import { CanaryRecordReader, IndexCanaryStore } from '../stores/index-canary';
import { IndexLagRepair } from '../stores/index-lag-repair';
import { ListingsInFlight } from '../stores/listings-in-flight';
import { OrdersRepository } from '../stores/orders';
import { PetsRepository } from '../stores/pets';
import { OrderPages } from '../stores/order-pages';
import { OrderRestamps } from '../stores/order-restamps';
import { RateLimiter } from '../stores/rate-limiter';
import { StoreGrowth } from '../stores/store-growth';
import { EnabledEndpointsCache, WebhookEndpointsRepository } from '../stores/webhook-endpoints';
import { WebhookDeliveriesRepository } from '../stores/webhook-deliveries';
import { createSqsClient, SqsDeliveryQueue, type DeliveryQueue } from '../stores/webhook-queue';
import { requireEnv } from '../commons/env';
import { WEBHOOK_QUEUE_URL_ENV } from '../contract/deployment';
import {
  attemptTimerOf,
  clockOf,
  conditionFailuresOf,
  counterClient,
  documentClient,
  perWiring,
  stampClockOf,
  tableName,
  type Wiring,
} from './wiring';

export interface Stores {
  orders: OrdersRepository;
  pets: PetsRepository;
  keys: ApiKeysRepository;
  limiter: RateLimiter;
  listings: ListingsInFlight;
  pages: OrderPages;
  restamps: OrderRestamps;
  webhookEndpoints: WebhookEndpointsRepository;
  webhookDeliveries: WebhookDeliveriesRepository;
  canary: IndexCanaryStore;
}

/**
 * Stamped on the wiring's stamp clock (AWS's, corrected, unless it gives its own), one SDK attempt
 * per stamped write attempt, each cut at the wiring's per-attempt timeout.
 */
const ordersOptions = (w: Wiring) => ({
  clock: clockOf(w),
  stampClock: stampClockOf(w),
  writer: counterClient(w),
  conditionFailures: conditionFailuresOf(w),
  attemptTimer: attemptTimerOf(w),
});

export const ordersStore = /* @__PURE__ */ perWiring(
  (w) =>
    new OrdersRepository(documentClient(w), tableName(w, 'orders'), {
      ...ordersOptions(w),
      // The orders an import adds count towards the listing's size bound at once.
      growth: new StoreGrowth(documentClient(w), tableName(w, 'rateLimits'), clockOf(w)),
    }),
);

/**
 * The orders store a bench or a test seeds an empty table with before it serves (putMany): the
 * service's, but its bulk writes not counted as store growth. Six seeding lanes would all update one
 * counter item, and a listing's size bound would count the seeded orders twice.
 */
export const seedingOrdersStore = /* @__PURE__ */ perWiring(
  (w) => new OrdersRepository(documentClient(w), tableName(w, 'orders'), ordersOptions(w)),
);

export const petsStore = /* @__PURE__ */ perWiring((w) => new PetsRepository(documentClient(w), tableName(w, 'pets')));

export const keysStore = /* @__PURE__ */ perWiring(
  (w) => new ApiKeysRepository(documentClient(w), tableName(w, 'apiKeys')),
);

export const limiterStore = /* @__PURE__ */ perWiring(
  (w) =>
    new RateLimiter(
      counterClient(w),
      tableName(w, 'rateLimits'),
      clockOf(w),
      conditionFailuresOf(w),
      w.timers ? w.timers.now : undefined,
      attemptTimerOf(w),
    ),
);

/**
 * Lease writes are idempotent, so they go through the retrying client (see listings-in-flight.ts),
 * each call cut at the wiring's per-attempt timeout.
 */
export const listingsStore = /* @__PURE__ */ perWiring(
  (w) =>
    new ListingsInFlight(
      documentClient(w),
      tableName(w, 'rateLimits'),
      clockOf(w),
      w.stageListingsCap,
      attemptTimerOf(w),
    ),
);

export const pagesStore = /* @__PURE__ */ perWiring((w) => new OrderPages(documentClient(w), tableName(w, 'orders')));

/**
 * The sync watch's re-stamps: stamped writes, so one attempt per call on the stamp clock, each cut
 * at the wiring's per-attempt timeout.
 */
export const restampsStore = /* @__PURE__ */ perWiring(
  (w) => new OrderRestamps(counterClient(w), tableName(w, 'orders'), stampClockOf(w), attemptTimerOf(w)),
);

/**
 * The index-lag canary's sentinel: conditional writes on its probe, safe to repeat, so the retrying
 * client, each cut at the per-attempt timeout.
 */
export const canaryStore = /* @__PURE__ */ perWiring(
  (w) => new IndexCanaryStore(documentClient(w), tableName(w, 'orders'), attemptTimerOf(w)),
);

/** The canary's record as a walk's function reads it: once a second at most per container. */
export const canaryRecordReader = /* @__PURE__ */ perWiring((w) => new CanaryRecordReader(canaryStore(w), clockOf(w)));

/** The sync watch's sweep of an episode of index lag: the by-update index read, each order re-stamped. */
export const indexLagRepairStore = /* @__PURE__ */ perWiring(
  (w) => new IndexLagRepair(documentClient(w), tableName(w, 'orders'), restampsStore(w)),
);

/** Its writes are safe to repeat, so they go through the retrying client, each cut at the per-attempt timeout. */
export const webhookEndpointsStore = /* @__PURE__ */ perWiring(
  (w) => new WebhookEndpointsRepository(documentClient(w), tableName(w, 'webhookEndpoints'), attemptTimerOf(w)),
);

/** Its writes are safe to repeat (a claim finds its own lease), so they go through the retrying client. */
export const webhookDeliveriesStore = /* @__PURE__ */ perWiring(
  (w) =>
    new WebhookDeliveriesRepository(
      documentClient(w),
      tableName(w, 'webhookDeliveries'),
      conditionFailuresOf(w),
      attemptTimerOf(w),
    ),
);

/** The fan-out's read of the enabled endpoints, at most once per WEBHOOK_LIMITS.enabledEndpointsCacheMs. */
export const enabledEndpointsOf = /* @__PURE__ */ perWiring((w) => {
  const repository = webhookEndpointsStore(w);
  return new EnabledEndpointsCache(() => repository.listEnabled(), clockOf(w));
});

/**
 * The delivery queue: the wiring's own, its emulated SQS endpoint (the local stack), or SQS at the
 * URL in the function's environment, read on first send.
 */
export const deliveryQueueOf = /* @__PURE__ */ perWiring((w): DeliveryQueue => {
  const given = w.webhookQueue;
  if (given !== undefined && 'send' in given) return given;
  const client = createSqsClient({
    ...(given?.endpoint !== undefined ? { endpoint: given.endpoint } : {}),
    ...(w.region !== undefined ? { region: w.region } : {}),
  });
  return new SqsDeliveryQueue(client, given ? given.url : () => requireEnv(WEBHOOK_QUEUE_URL_ENV));
});

/** Every store of one wiring: what the service's handlers read, and tools, bench and tests seed and check. */
export function storesFor(wiring: Wiring): Stores {
  return {
    orders: ordersStore(wiring),
    pets: petsStore(wiring),
    keys: keysStore(wiring),
    limiter: limiterStore(wiring),
    listings: listingsStore(wiring),
    pages: pagesStore(wiring),
    restamps: restampsStore(wiring),
    webhookEndpoints: webhookEndpointsStore(wiring),
    webhookDeliveries: webhookDeliveriesStore(wiring),
    canary: canaryStore(wiring),
  };
}
