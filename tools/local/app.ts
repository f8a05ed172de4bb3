import type { Server } from 'node:http';
import { ApiKeysRepository } from '../../lib/keys/repository';
import { makeAuthorizerHandler } from '../../lib/keys/authorizer-handler';
import { createDocumentClient, createDynamoClient } from '../../lib/aws/dynamo';
import { DEPLOYED_SCAN, makeCancelOrderHandler, makeListOrdersHandler } from '../../lib/orders/handlers';
import { OrdersRepository } from '../../lib/orders/repository';
import { LIMITER_CLIENT, RateLimiter } from '../../lib/limits/limiter';
import { ListingsInFlight } from '../../lib/limits/listings-in-flight';
import { ROUTES, type Route } from '../../lib/contract/routes';
import type { TableNames } from '../../lib/aws/tables';
import type { StreamingLambdaHandler } from '../../lib/http/api-handler';
import { createLocalGateway, type LocalGatewayOptions, type ProxyHandler, type PublicRoute } from './gateway';
import { installLocalLambdaRuntime } from './lambda-streaming';

export interface LocalAppOptions {
  endpoint: string;
  tables: TableNames;
  /** Per-attempt DynamoDB timeout; the local stack's patient default when absent. */
  requestTimeoutMs?: number;
  /** Injected clock for the limiter and the authorizer cache (tests). */
  now?: () => number;
  /** Extra routes and their handlers, e.g. a deprecated fixture route in tests. */
  extraRoutes?: { route: Route; handler: ProxyHandler | StreamingLambdaHandler }[];
  publicRoutes?: PublicRoute[];
  onAccessLog?: LocalGatewayOptions['onAccessLog'];
  authorizerCacheTtlSeconds?: number;
  /** Function settings other than the deployed ones: only tests that need a short deadline. */
  functions?: LocalGatewayOptions['functions'];
  /** Receive limits other than the gateway's own: only tests that need short ones. */
  receiveLimits?: LocalGatewayOptions['receiveLimits'];
}

/**
 * The local stack's wiring: the same handler factories the Lambda entry files in functions/ call,
 * with clients pointed at the embedded server instead of the environment.
 */
export function createLocalApp(options: LocalAppOptions): {
  server: Server;
  orders: OrdersRepository;
  keys: ApiKeysRepository;
} {
  const doc = createDocumentClient(
    createDynamoClient({ endpoint: options.endpoint, requestTimeoutMs: options.requestTimeoutMs }),
  );
  const orders = new OrdersRepository(doc, options.tables.orders);
  const keys = new ApiKeysRepository(doc, options.tables.apiKeys);
  const counters = createDocumentClient(
    createDynamoClient({ endpoint: options.endpoint, requestTimeoutMs: options.requestTimeoutMs, ...LIMITER_CLIENT }),
  );
  const limiter = new RateLimiter(counters, options.tables.rateLimits, options.now);
  const listings = new ListingsInFlight(doc, options.tables.rateLimits, options.now);
  const deps = { orders, limiter, listings, scan: DEPLOYED_SCAN };
  // Streamed handlers need the runtime's `awslambda` global when they are made.
  installLocalLambdaRuntime();
  const handlers: Record<string, ProxyHandler | StreamingLambdaHandler> = {
    listOrders: makeListOrdersHandler(deps),
    cancelOrder: makeCancelOrderHandler(deps),
  };
  const routes = [...ROUTES];
  for (const extra of options.extraRoutes ?? []) {
    routes.push(extra.route);
    handlers[extra.route.operationId] = extra.handler;
  }
  const server = createLocalGateway({
    routes,
    handlers,
    authorizer: makeAuthorizerHandler({ keys }),
    publicRoutes: options.publicRoutes ?? [],
    ...(options.now ? { now: options.now } : {}),
    ...(options.onAccessLog ? { onAccessLog: options.onAccessLog } : {}),
    ...(options.functions ? { functions: options.functions } : {}),
    ...(options.receiveLimits ? { receiveLimits: options.receiveLimits } : {}),
    ...(options.authorizerCacheTtlSeconds !== undefined
      ? { authorizerCacheTtlSeconds: options.authorizerCacheTtlSeconds }
      : {}),
  });
  return { server, orders, keys };
}
