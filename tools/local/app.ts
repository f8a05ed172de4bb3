import type { Server } from 'node:http';
import { composeService, type Stores } from '../../lib/root/service';
import { ROUTES, type Route } from '../../lib/contract/routes';
import type { TableNames } from '../../lib/contract/tables';
import type { StreamingLambdaHandler } from '../../lib/edge/api-handler';
import { createLocalGateway, type LocalGatewayOptions, type ProxyHandler, type PublicRoute } from './gateway';
import { installLocalLambdaRuntime } from './lambda-streaming';
import { stackDynamoRoute } from './stack-dynamo-route';

export interface LocalAppOptions {
  endpoint: string;
  tables: TableNames;
  /** Per-attempt DynamoDB timeout; the local stack's patient default when absent. */
  requestTimeoutMs?: number;
  /** Injected clock for the limiter and the authorizer cache (tests). */
  now?: () => number;
  /** Listings the whole local stage may run at once; none when absent (tests fill it). */
  stageListingsCap?: number;
  /** Extra routes and their handlers, e.g. a deprecated fixture route in tests. */
  extraRoutes?: { route: Route; handler: ProxyHandler | StreamingLambdaHandler }[];
  publicRoutes?: PublicRoute[];
  onAccessLog?: LocalGatewayOptions['onAccessLog'];
  /** Function settings other than the deployed ones: only tests that need a short deadline. */
  functions?: LocalGatewayOptions['functions'];
  /** Receive limits other than the gateway's own: only tests that need short ones. */
  receiveLimits?: LocalGatewayOptions['receiveLimits'];
}

/** The local stack: the service as the composition root makes it, behind the local gateway. */
export function createLocalApp(options: LocalAppOptions): Stores & { server: Server } {
  const {
    endpoint,
    tables,
    requestTimeoutMs,
    now,
    stageListingsCap,
    extraRoutes = [],
    publicRoutes = [],
    ...gateway
  } = options;
  // Streamed handlers need the runtime's `awslambda` global when they are made.
  installLocalLambdaRuntime();
  const service = composeService({ endpoint, tables, requestTimeoutMs, now, stageListingsCap });
  const handlers: Record<string, ProxyHandler | StreamingLambdaHandler> = {
    listOrders: service.listOrders,
    cancelOrder: service.cancelOrder,
    getPetById: service.getPet,
  };
  const routes = [...ROUTES];
  for (const extra of extraRoutes) {
    routes.push(extra.route);
    handlers[extra.route.operationId] = extra.handler;
  }
  const server = createLocalGateway({
    ...gateway,
    routes,
    handlers,
    authorizer: service.authorizer,
    // Where this stack's data lives, for the smoke command on the same machine.
    publicRoutes: [...publicRoutes, stackDynamoRoute(endpoint, tables)],
    now,
  });
  return { server, ...service.stores };
}
