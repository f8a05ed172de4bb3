// The whole service from one wiring: what the local stack, the bench and the tests run.
import type { Context } from 'aws-lambda';
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
import { routesOf, type OperationId } from '../contract/routes';
import type { ApiEvent, ApiResult, StreamingLambdaHandler } from '../edge/api-handler';

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

/** What answers a route: a proxy handler, or a streamed one for a route declared `streaming`. */
export type RouteHandler = ((event: ApiEvent, context: Context) => Promise<ApiResult>) | StreamingLambdaHandler;

/**
 * Each declared route's handler, by its operation: what the local gateway invokes (deployed, API
 * Gateway invokes the route's function, whose entry is the same handler). A route declared
 * without one does not compile here; a route of the webhook endpoints' function gets the
 * function's handler, whose own dispatch is keyed by the function's operations.
 */
export function routeHandlers(service: Service): Record<OperationId, RouteHandler> {
  return {
    listOrders: service.listOrders,
    cancelOrder: service.cancelOrder,
    getPetById: service.getPet,
    listOrdersV2: service.listOrdersV2,
    ...servedBy(routesOf('webhook-endpoints'), service.webhookEndpoints),
  };
}

/** One handler for each of a function's routes: they are all of its operations, so the record is whole. */
function servedBy<Op extends OperationId>(routes: readonly { operationId: Op }[], handler: RouteHandler) {
  return Object.fromEntries(routes.map((route) => [route.operationId, handler])) as Record<Op, RouteHandler>;
}
