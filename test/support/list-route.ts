import type { OrdersHandlerDeps } from '../../lib/edge/orders-handlers';
import { composeService } from '../../lib/root/service';
import { ROUTES } from '../../lib/contract/routes';
import { startLocalStack, type LocalStack } from './local-stack';

function listRoute() {
  const route = ROUTES.find((r) => r.operationId === 'listOrders');
  if (!route) throw new Error('listOrders is not declared');
  return route;
}

/**
 * A second local stack with one more list route at `path`, reading orders from `orders` (a
 * failing or slow stand-in), wired by the root on the tables of `base`.
 */
export function stackListingFrom(
  base: LocalStack,
  orders: OrdersHandlerDeps['orders'],
  path: string,
): Promise<LocalStack> {
  return startLocalStack({
    extraRoutes: [
      {
        route: { ...listRoute(), operationId: `list${path.replace(/\W/g, '')}`, path },
        // As the root wires it on base's tables, the handler reading `orders` instead of the table.
        handler: composeService({
          endpoint: base.tables.endpoint,
          tables: base.tables.names,
          now: base.clock.now,
          standIns: { orders },
        }).listOrders,
      },
    ],
  });
}

/** Orders from the real table, then a failure after `pages` pages, as when DynamoDB goes away mid-scan. */
export function failingAfterPages(
  real: Pick<OrdersHandlerDeps['orders'], 'listingPages' | 'cancel'>,
  pages: number,
  pageSize = 50,
): OrdersHandlerDeps['orders'] {
  return {
    cancel: real.cancel.bind(real),
    async *listingPages() {
      let read = 0;
      for await (const page of real.listingPages({ pageSize })) {
        if (read++ === pages) throw new Error('DynamoDB went away mid-scan');
        yield page;
      }
    },
  };
}
