// The handlers, each made once per wiring from the stores. functions/ imports one of these each;
// the local stack, the bench and the tests take them all through composeService (./service.ts).
import { makeAuthorizerHandler } from '../edge/authorizer-handler';
import { DEPLOYED_SCAN, makeCancelOrderHandler, makeListOrdersHandler } from '../edge/orders-handlers';
import { makeGetPetHandler } from '../edge/pets-handler';
import { makeListOrdersV2Handler } from '../edge/sync-handler';
import { makeSyncWatchHandler } from '../edge/sync-watch-handler';
import { makeIndexCanaryHandler } from '../edge/index-canary-handler';
import { makeWebhookEndpointsHandler } from '../edge/webhooks-handler';
import { makeWebhookFanoutHandler } from '../edge/webhook-fanout-handler';
import { makeWebhookDeliveryHandler } from '../edge/webhook-delivery-handler';
import {
  canaryRecordReader,
  canaryStore,
  indexLagRepairStore,
  keysStore,
  limiterStore,
  listingsStore,
  ordersStore,
  pagesStore,
  petsStore,
  restampsStore,
  webhookEndpointsStore,
  webhookDeliveriesStore,
  enabledEndpointsOf,
  deliveryQueueOf,
} from './stores';
import {
  attemptTimerOf,
  cursorKeysOf,
  lagTimingOf,
  landingMsOf,
  perWiring,
  stampClockOf,
  walkSettleMsOf,
  watchBoundsOf,
  webhookDestinationsOf,
  type Wiring,
} from './wiring';

/** What every route's handler takes from the wiring: the deadline's timers and the writes' landing margin. */
const deadlineDeps = (w: Wiring) => ({ ...(w.timers ? { timers: w.timers } : {}), landingMs: landingMsOf(w) });

export const authorizerHandler = /* @__PURE__ */ perWiring((w) =>
  makeAuthorizerHandler({ keys: w.standIns?.keys ?? keysStore(w), ...(w.timers ? { timers: w.timers } : {}) }),
);

export const listOrdersHandler = /* @__PURE__ */ perWiring((w) =>
  makeListOrdersHandler({
    orders: w.standIns?.orders ?? ordersStore(w),
    limiter: w.standIns?.limiter ?? limiterStore(w),
    listings: w.standIns?.listings ?? listingsStore(w),
    scan: DEPLOYED_SCAN,
    ...w.listing,
    ...deadlineDeps(w),
  }),
);

export const cancelOrderHandler = /* @__PURE__ */ perWiring((w) =>
  makeCancelOrderHandler({
    orders: w.standIns?.orders ?? ordersStore(w),
    limiter: w.standIns?.limiter ?? limiterStore(w),
    ...deadlineDeps(w),
  }),
);

export const getPetHandler = /* @__PURE__ */ perWiring((w) =>
  makeGetPetHandler({
    pets: petsStore(w),
    limiter: w.standIns?.limiter ?? limiterStore(w),
    ...deadlineDeps(w),
  }),
);

export const listOrdersV2Handler = /* @__PURE__ */ perWiring((w) =>
  makeListOrdersV2Handler({
    pages: pagesStore(w),
    limiter: w.standIns?.limiter ?? limiterStore(w),
    cursorKeys: cursorKeysOf(w),
    now: () => stampClockOf(w).now(),
    settleMs: walkSettleMsOf(w),
    ...(w.trustDeclaredIndexLag
      ? {}
      : { lag: { record: (deadline) => canaryRecordReader(w).current(deadline), timing: lagTimingOf(w) } }),
    ...deadlineDeps(w),
  }),
);

/**
 * The orders table's stream consumer: judges each change against the walks' settling time of this
 * wiring; its re-stamps carry the invocation's deadline, on the same timers and landing margin as a route's writes.
 */
export const syncWatchHandler = /* @__PURE__ */ perWiring((w) =>
  makeSyncWatchHandler({
    restamps: restampsStore(w),
    lagRepair: indexLagRepairStore(w),
    bounds: () => watchBoundsOf(w),
    ...deadlineDeps(w),
  }),
);

/**
 * The index-lag canary: its probe stamped on the stamp clock (AWS's), its calls within the
 * invocation's deadline, its read-back leaving room for the record's write. `sleep` is the local
 * schedule's on a virtual clock (tools/local/schedule.ts).
 */
export function indexCanaryHandler(w: Wiring, sleep?: (ms: number) => Promise<void>) {
  return makeIndexCanaryHandler({
    canary: canaryStore(w),
    now: () => stampClockOf(w).now(),
    timing: lagTimingOf(w),
    writeMs: attemptTimerOf(w).timeoutMs,
    ...(sleep ? { sleep } : {}),
    ...deadlineDeps(w),
  });
}

export const webhookEndpointsHandler = /* @__PURE__ */ perWiring((w) =>
  makeWebhookEndpointsHandler({
    endpoints: webhookEndpointsStore(w),
    limiter: w.standIns?.limiter ?? limiterStore(w),
    destinations: webhookDestinationsOf(w),
    deliveries: webhookDeliveriesStore(w),
    queue: deliveryQueueOf(w),
    now: () => stampClockOf(w).now(),
    ...deadlineDeps(w),
  }),
);

/** Event delivery's fan-out, the orders table's second stream consumer: it only enqueues. */
export const webhookFanoutHandler = /* @__PURE__ */ perWiring((w) =>
  makeWebhookFanoutHandler({ endpoints: enabledEndpointsOf(w), queue: deliveryQueueOf(w) }),
);

/** The delivery worker: on the wiring's clock (AWS's, deployed) and timers, its retries on its own queue. */
export const webhookDeliveryHandler = /* @__PURE__ */ perWiring((w) =>
  makeWebhookDeliveryHandler({
    endpoints: webhookEndpointsStore(w),
    deliveries: webhookDeliveriesStore(w),
    queue: deliveryQueueOf(w),
    destinations: webhookDestinationsOf(w),
    now: () => stampClockOf(w).now(),
    ...(w.timers ? { timers: w.timers } : {}),
    ...(w.random ? { random: w.random } : {}),
    ...(w.webhookFailRate !== undefined ? { failRate: w.webhookFailRate } : {}),
  }),
);
