import { apiHandler, type ApiHandlerDeps } from './http/api-handler';
import { parseOrderId } from './order-id';
import { ordersJsonChunks } from './orders-json';
import type { OrdersRepository } from './orders-repository';
import { routeByOperation } from './routes';

export interface OrdersHandlerDeps extends ApiHandlerDeps {
  orders: OrdersRepository;
  /** Parallel Scan segments for listOrders. */
  scanSegments?: number;
}

const JSON_HEADERS = { 'Content-Type': 'application/json' };

export function makeListOrdersHandler(deps: OrdersHandlerDeps) {
  return apiHandler(routeByOperation('listOrders'), deps, async () => {
    let body = '';
    for await (const chunk of ordersJsonChunks(deps.orders.scanPages({ segments: deps.scanSegments ?? 1 }))) {
      body += chunk;
    }
    return { statusCode: 200, headers: { ...JSON_HEADERS }, body };
  });
}

export function makeCancelOrderHandler(deps: OrdersHandlerDeps) {
  return apiHandler(routeByOperation('cancelOrder'), deps, async (event) => {
    const id = parseOrderId(event.pathParameters?.orderId);
    await deps.orders.cancel(id);
    return { statusCode: 204, headers: {}, body: '' };
  });
}
