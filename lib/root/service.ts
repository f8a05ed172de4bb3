// The whole service from one wiring: what the local stack, the bench and the tests run.
import {
  authorizerHandler,
  cancelOrderHandler,
  getPetHandler,
  listOrdersHandler,
  listOrdersV2Handler,
  syncWatchHandler,
  webhookEndpointsHandler,
  webhookFanoutHandler,
  webhookDeliveryHandler,
} from './handlers';
import { storesFor, type Stores } from './stores';
import type { Wiring } from './wiring';

export type { Wiring } from './wiring';
export type { Stores } from './stores';

export interface Service {
  stores: Stores;
  authorizer: ReturnType<typeof authorizerHandler>;
  listOrders: ReturnType<typeof listOrdersHandler>;
  cancelOrder: ReturnType<typeof cancelOrderHandler>;
  getPet: ReturnType<typeof getPetHandler>;
  listOrdersV2: ReturnType<typeof listOrdersV2Handler>;
  /** The orders table's stream consumer, which the local stack feeds from its emulated stream. */
  syncWatch: ReturnType<typeof syncWatchHandler>;
  /** Every webhook endpoint route: the function dispatches on the route the event names. */
  webhookEndpoints: ReturnType<typeof webhookEndpointsHandler>;
  /** Event delivery's fan-out, the orders table's second stream consumer. */
  webhookFanout: ReturnType<typeof webhookFanoutHandler>;
  /** The delivery queue's consumer, which the local stack feeds from its emulated queue. */
  webhookDelivery: ReturnType<typeof webhookDeliveryHandler>;
}

/**
 * Every store and handler of one wiring. The handlers are made here, at once: a streamed handler
 * needs the Lambda runtime's `awslambda` global (the local stack installs its own first).
 */
export function composeService(wiring: Wiring): Service {
  return {
    stores: storesFor(wiring),
    authorizer: authorizerHandler(wiring),
    listOrders: listOrdersHandler(wiring),
    cancelOrder: cancelOrderHandler(wiring),
    getPet: getPetHandler(wiring),
    listOrdersV2: listOrdersV2Handler(wiring),
    syncWatch: syncWatchHandler(wiring),
    webhookEndpoints: webhookEndpointsHandler(wiring),
    webhookFanout: webhookFanoutHandler(wiring),
    webhookDelivery: webhookDeliveryHandler(wiring),
  };
}
