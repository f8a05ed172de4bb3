import { ApiKeysRepository } from '../lib/keys/repository';
import { makeAuthorizerHandler } from '../lib/keys/authorizer-handler';
import { createDocumentClient, createDynamoClient } from '../lib/aws/dynamo';
import { makeCancelOrderHandler, makeListOrdersHandler } from '../lib/orders/handlers';
import { OrdersRepository } from '../lib/orders/repository';
import { RateLimiter } from '../lib/limits/limiter';
import { invokeStreamedToResponse } from '../infra/local/invoke';
import { installLocalLambdaRuntime } from '../infra/local/lambda-streaming';
import { lambdaContext } from '../infra/local/proxy-event';
import { emulateAllOldOnConditionFailure } from './all-old';
import { describePath, logCommands, waves } from './command-log';
import { freshTables, orderIdAt, pendingOrders, proxyEvent, unlimitedKey } from './fixtures';

export interface RoundTrips {
  scenario: string;
  /** `dynalite` as served locally, or `DynamoDB` with the item returned on a failed condition. */
  server: 'dynalite' | 'DynamoDB';
  status: number | string;
  commands: number;
  /** Sequential waves of calls: what a caller waits for, one round trip per wave. */
  waves: number;
  path: string;
}

const LIST_ORDERS = 250;
const LIST_PAGE_SIZE = 100;

/** One call of each route and outcome, with every DynamoDB command it sent. */
export async function measureRoundTrips(endpoint: string): Promise<RoundTrips[]> {
  const client = createDynamoClient({ endpoint });
  const doc = createDocumentClient(client);
  const tables = await freshTables(client, 'trips');
  const orders = new OrdersRepository(doc, tables.orders);
  await orders.putMany(pendingOrders(LIST_ORDERS));
  await orders.ship(orderIdAt(1));
  const { key, context: caller } = await unlimitedKey(doc, tables);
  const log = logCommands(doc);
  // Its own client: the document client shares its client's middleware stack, and the log must not see these reads.
  const reader = createDynamoClient({ endpoint });
  const dynamoLike = emulateAllOldOnConditionFailure(doc, reader);

  installLocalLambdaRuntime();
  const limiter = new RateLimiter(doc, tables.rateLimits);
  const cancel = makeCancelOrderHandler({ orders, limiter });
  // A small page size forces several pages on a small table; deployed pages stop at 1 MB instead.
  const list = makeListOrdersHandler({ orders, limiter, scan: { pageSize: LIST_PAGE_SIZE } });
  const authorizer = makeAuthorizerHandler({ keys: new ApiKeysRepository(doc, tables.apiKeys) });

  // Each round cancels its own pending order, then cancels it again.
  let pending = 0;
  const scenarios: [string, () => Promise<number | string>][] = [
    ['cancel, pending order (204)', async () => (await cancel(proxyEvent('DELETE', '/store/orders/x', caller, orderIdAt(pending)), lambdaContext('cancel-order'))).statusCode],
    ['cancel, shipped order (409)', async () => (await cancel(proxyEvent('DELETE', '/store/orders/x', caller, orderIdAt(1)), lambdaContext('cancel-order'))).statusCode],
    ['cancel, cancelled order (204 again)', async () => (await cancel(proxyEvent('DELETE', '/store/orders/x', caller, orderIdAt(pending)), lambdaContext('cancel-order'))).statusCode],
    ['cancel, unknown order (404)', async () => (await cancel(proxyEvent('DELETE', '/store/orders/x', caller, '42'), lambdaContext('cancel-order'))).statusCode],
    [
      `list, ${LIST_ORDERS} orders in pages of ${LIST_PAGE_SIZE}`,
      async () => (await invokeStreamedToResponse(list, proxyEvent('GET', '/store/orders', caller), lambdaContext('list-orders'))).statusCode,
    ],
    [
      'authorizer, valid key',
      async () => {
        const result = await authorizer({ type: 'TOKEN', authorizationToken: `Bearer ${key}`, methodArn: 'arn:aws:execute-api:us-east-1:0:api/v1/GET/store/orders' }, lambdaContext('authorizer'));
        return result.principalId === caller.keyId ? 'Allow' : 'wrong principal';
      },
    ],
  ];

  const out: RoundTrips[] = [];
  const runAll = async (server: RoundTrips['server'], only: (scenario: string) => boolean) => {
    dynamoLike.enabled = server === 'DynamoDB';
    for (const [scenario, run] of scenarios.filter(([s]) => only(s))) {
      log.take();
      const status = await run();
      const commands = log.take();
      out.push({ scenario, server, status, commands: commands.length, waves: waves(commands).length, path: describePath(commands, tables) });
    }
  };
  await runAll('dynalite', () => true);
  // Again with the item a failed condition returns on DynamoDB: only the cancels can differ.
  pending = 2;
  await runAll('DynamoDB', (s) => s.startsWith('cancel'));
  client.destroy();
  reader.destroy();
  return out;
}
