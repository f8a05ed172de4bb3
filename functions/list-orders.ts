import { documentClientFromEnv } from '../lib/dynamo';
import { requireEnv } from '../lib/env';
import { DEPLOYED_SCAN, makeListOrdersHandler } from '../lib/orders-handlers';
import { OrdersRepository } from '../lib/orders-repository';
import { RateLimiter } from '../lib/rate-limiter';
import { TABLES } from '../lib/tables';

const doc = documentClientFromEnv();

export const handler = makeListOrdersHandler({
  orders: new OrdersRepository(doc, requireEnv(TABLES.orders.envVar)),
  limiter: new RateLimiter(doc, requireEnv(TABLES.rateLimits.envVar)),
  scan: DEPLOYED_SCAN,
});
