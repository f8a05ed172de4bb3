import { conditionFailureItemsFromEnv, documentClientFromEnv } from '../lib/aws/dynamo';
import { requireEnv } from '../lib/aws/env';
import { DEPLOYED_SCAN, makeListOrdersHandler } from '../lib/orders/handlers';
import { OrdersRepository } from '../lib/orders/repository';
import { LIMITER_CLIENT, RateLimiter } from '../lib/limits/limiter';
import { TABLES } from '../lib/aws/tables';

const doc = documentClientFromEnv();
const counters = documentClientFromEnv(LIMITER_CLIENT);
const conditionFailures = conditionFailureItemsFromEnv();

export const handler = makeListOrdersHandler({
  orders: new OrdersRepository(doc, requireEnv(TABLES.orders.envVar)),
  limiter: new RateLimiter(counters, requireEnv(TABLES.rateLimits.envVar), Date.now, conditionFailures),
  scan: DEPLOYED_SCAN,
});
