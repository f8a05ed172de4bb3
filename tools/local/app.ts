import type { Server } from 'node:http';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { composeService, type Stores, type Wiring } from '../../lib/root/service';
import { documentClient } from '../../lib/root/wiring';
import { randomBytes } from 'node:crypto';
import { ROUTES, V2_ROUTES, type Route } from '../../lib/contract/routes';
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
  /** The v2 cursors' HMAC key; a random one per app when absent (cursors then last as long as it). */
  cursorKey?: Uint8Array;
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
export function createLocalApp(options: LocalAppOptions): Stores & {
  server: Server;
  /** The stores' DynamoDB client (tests count its calls). */ dynamo: DynamoDBDocumentClient;
} {
  const {
    endpoint,
    tables,
    requestTimeoutMs,
    now,
    stageListingsCap,
    extraRoutes = [],
    publicRoutes = [],
    cursorKey,
    ...gateway
  } = options;
  // Streamed handlers need the runtime's `awslambda` global when they are made.
  installLocalLambdaRuntime();
  const wiring: Wiring = {
    endpoint,
    tables,
    requestTimeoutMs,
    now,
    stageListingsCap,
    cursorKey: cursorKey ?? randomBytes(32),
  };
  const service = composeService(wiring);
  const handlers: Record<string, ProxyHandler | StreamingLambdaHandler> = {
    listOrders: service.listOrders,
    cancelOrder: service.cancelOrder,
    getPetById: service.getPet,
    listOrdersV2: service.listOrdersV2,
  };
  const routes = [...ROUTES, ...V2_ROUTES];
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
  return { server, ...service.stores, dynamo: documentClient(wiring) };
}
