// The whole service from one wiring: what the local stack, the bench and the tests run.
import {
  authorizerHandler,
  cancelOrderHandler,
  getPetHandler,
  listOrdersHandler,
  listOrdersV2Handler,
  webhookEndpointsHandler,
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
  /** Every webhook endpoint route: the function dispatches on the route the event names. */
  webhookEndpoints: ReturnType<typeof webhookEndpointsHandler>;
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
    webhookEndpoints: webhookEndpointsHandler(wiring),
  };
}
