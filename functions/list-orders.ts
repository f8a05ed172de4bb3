import { documentClientFromEnv } from '../lib/aws/dynamo';
import { requireEnv } from '../lib/aws/env';
import { DEPLOYED_SCAN, makeListOrdersHandler } from '../lib/orders/handlers';
import { OrdersRepository } from '../lib/orders/repository';
import { RateLimiter } from '../lib/limits/limiter';
import { TABLES } from '../lib/aws/tables';

const doc = documentClientFromEnv();

export const handler = makeListOrdersHandler({
  orders: new OrdersRepository(doc, requireEnv(TABLES.orders.envVar)),
  limiter: new RateLimiter(doc, requireEnv(TABLES.rateLimits.envVar)),
  scan: DEPLOYED_SCAN,
});
