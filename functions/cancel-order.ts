import { conditionFailureItemsFromEnv, documentClientFromEnv } from '../lib/aws/dynamo';
import { requireEnv } from '../lib/aws/env';
import { makeCancelOrderHandler } from '../lib/orders/handlers';
import { OrdersRepository } from '../lib/orders/repository';
import { LIMITER_CLIENT, RateLimiter } from '../lib/limits/limiter';
import { TABLES } from '../lib/aws/tables';

const doc = documentClientFromEnv();
const counters = documentClientFromEnv(LIMITER_CLIENT);
const conditionFailures = conditionFailureItemsFromEnv();

export const handler = makeCancelOrderHandler({
  orders: new OrdersRepository(doc, requireEnv(TABLES.orders.envVar), Date.now, conditionFailures),
  limiter: new RateLimiter(counters, requireEnv(TABLES.rateLimits.envVar), Date.now, conditionFailures),
});
