import { conditionFailureItemsFromEnv, documentClientFromEnv } from '../lib/aws/dynamo';
import { requireEnv } from '../lib/aws/env';
import { DEPLOYED_SCAN, makeListOrdersHandler } from '../lib/orders/handlers';
import { OrdersRepository } from '../lib/orders/repository';
import { LIMITER_CLIENT, RateLimiter } from '../lib/limits/limiter';
import { ListingsInFlight } from '../lib/limits/listings-in-flight';
import { TABLES } from '../lib/aws/tables';

const doc = documentClientFromEnv();
const counters = documentClientFromEnv(LIMITER_CLIENT);
const conditionFailures = conditionFailureItemsFromEnv();

export const handler = makeListOrdersHandler({
  orders: new OrdersRepository(doc, requireEnv(TABLES.orders.envVar)),
  limiter: new RateLimiter(counters, requireEnv(TABLES.rateLimits.envVar), Date.now, conditionFailures),
  // Lease writes are idempotent, so they go through the retrying client (see listings-in-flight.ts).
  listings: new ListingsInFlight(doc, requireEnv(TABLES.rateLimits.envVar)),
  scan: DEPLOYED_SCAN,
});
