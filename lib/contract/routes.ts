// The route table, declared once: read by the local gateway, the CDK stack and the OpenAPI
// document. Paths are relative to their route's version prefix (`/v1` unless it names another).

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type Stability = 'stable' | 'beta' | 'experimental';

/** The Lambda functions behind the routes; each has an entry file `functions/<name>.ts`. */
export type FunctionName = 'list-orders' | 'cancel-order' | 'get-pet' | 'list-orders-v2' | 'webhook-endpoints';

export interface Deprecation {
  /** RFC 9745 `Deprecation`: when the route was deprecated (ISO 8601 date-time). */
  since: string;
  /** RFC 8594 `Sunset`: when the route stops working (ISO 8601 date-time). */
  sunset: string;
}

/**
 * A route. `Op` is its operation's id: a declared route's is one of OperationId (below), which
 * keys every table a route needs (its contract, its handler); the machinery every route runs
 * through (the middleware, the local gateway, the OpenAPI builder) takes any id, so tests can serve
 * fixture routes through it.
 */
export interface Route<Op extends string = string, F extends FunctionName = FunctionName> {
  operationId: Op;
  method: HttpMethod;
  /** OpenAPI-style template, e.g. `/store/orders/{orderId}`. */
  path: string;
  function: F;
  tag: string;
  summary: string;
  /** Written as a Lambda response stream rather than one buffered body. */
  streaming: boolean;
  /** The body comes in the coding the request's Accept-Encoding chooses (lib/edge/content-coding.ts). */
  encodedBody?: boolean;
  stability: Stability;
  deprecated?: Deprecation;
  /** The version prefix the path is under; BASE_PATH (`/v1`) when absent. */
  basePath?: string;
}

export const BASE_PATH = '/v1';
export const API_VERSION = '1.0.0';

/** The routes under `/v1`. */
export const ROUTES = declareRoutes([
  {
    operationId: 'listOrders',
    method: 'GET',
    path: '/store/orders',
    function: 'list-orders',
    tag: 'orders',
    summary: 'List every order in the store',
    streaming: true,
    encodedBody: true,
    stability: 'stable',
  },
  {
    operationId: 'cancelOrder',
    method: 'DELETE',
    path: '/store/orders/{orderId}',
    function: 'cancel-order',
    tag: 'orders',
    summary: 'Cancel a pending order',
    streaming: false,
    stability: 'stable',
  },
  {
    operationId: 'getPetById',
    method: 'GET',
    path: '/pets/{petId}',
    function: 'get-pet',
    tag: 'pets',
    summary: 'Find a pet by id (deprecated)',
    streaming: false,
    stability: 'stable',
    // Announced in CHANGELOG.md (1.1.0): the route answers until the sunset, then it is removed.
    deprecated: { since: '2026-11-25T00:00:00Z', sunset: '2027-06-30T00:00:00Z' },
  },
]);

/** v2 (beta): the paged, filtered listing, under `/v2` beside `/v1` (deployed, a RestApi of its own with stage v2). */
export const V2_BASE_PATH = '/v2';
export const V2_API_VERSION = '2.0.0-beta';

/** Where a key's webhook endpoints are, below `/v2`. */
export const WEBHOOK_ENDPOINTS_PATH = '/webhook-endpoints';

export const V2_ROUTES = declareRoutes([
  {
    operationId: 'listOrdersV2',
    method: 'GET',
    path: '/store/orders',
    function: 'list-orders-v2',
    tag: 'orders',
    summary: 'List orders a page at a time, filtered by status or by when they last changed',
    streaming: false,
    encodedBody: true,
    stability: 'beta',
    basePath: V2_BASE_PATH,
  },
  // A key's webhook endpoints (lib/contract/webhooks.ts): one function serves them all.
  webhookRoute('createWebhookEndpoint', 'POST', '', "Register a webhook endpoint for this key's order events"),
  webhookRoute('listWebhookEndpoints', 'GET', '', "List this key's webhook endpoints"),
  webhookRoute('getWebhookEndpoint', 'GET', '/{endpointId}', 'Read one webhook endpoint of this key'),
  webhookRoute('deleteWebhookEndpoint', 'DELETE', '/{endpointId}', 'Delete a webhook endpoint of this key'),
  webhookRoute(
    'rotateWebhookEndpointSecret',
    'POST',
    '/{endpointId}/rotate-secret',
    "Replace a webhook endpoint's signing secret; the previous one keeps signing for a while",
  ),
  webhookRoute(
    'listWebhookDeliveries',
    'GET',
    '/{endpointId}/deliveries',
    "A webhook endpoint's recent delivery attempts: outcome, latency, response code, next retry",
  ),
  webhookRoute('sendWebhookTestEvent', 'POST', '/{endpointId}/test', 'Send a test event to a webhook endpoint'),
]);

/** A route as its table declares it: its operation and its function exact, the rest a Route's. */
type Declared<R extends Route> = R extends Route ? Route<R['operationId'], R['function']> : never;

/**
 * A route table, typed so that the compiler knows each route's operation and function. (An
 * overload: the compiler cannot see that a route is its own `Declared` type, which it is.)
 */
function declareRoutes<const R extends readonly Route[]>(routes: R): readonly Declared<R[number]>[];
function declareRoutes(routes: readonly Route[]): readonly Route[] {
  return routes;
}

/** Every declared route, v1's and v2's. */
export type DeclaredRoute = (typeof ROUTES)[number] | (typeof V2_ROUTES)[number];

/**
 * The declared operations, derived from the route tables: every table keyed by it (the contracts,
 * the composition root's handlers, each function's dispatch) refuses to compile without an entry
 * for a route added here.
 */
export type OperationId = DeclaredRoute['operationId'];

/** The operations a function serves: its dispatch is keyed by them. */
export type OperationOf<F extends FunctionName> = Extract<DeclaredRoute, { function: F }>['operationId'];

/** A route of the webhook endpoints, under `/v2/webhook-endpoints`. */
function webhookRoute<Op extends string>(
  operationId: Op,
  method: HttpMethod,
  below: string,
  summary: string,
): Route<Op, 'webhook-endpoints'> {
  return {
    operationId,
    method,
    path: `${WEBHOOK_ENDPOINTS_PATH}${below}`,
    function: 'webhook-endpoints',
    tag: 'webhooks',
    summary,
    streaming: false,
    stability: 'beta',
    basePath: V2_BASE_PATH,
  };
}

/**
 * The binaryMediaTypes of a RestApi that has a buffered route with an encoded body: a Lambda proxy
 * response can carry a compressed body only base64-encoded (isBase64Encoded), and API Gateway
 * decodes it to bytes only when "the first Accept header" of the request matches one of the API's
 * binaryMediaTypes; otherwise it sends the base64 text as it is. A streamed route needs none
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-payload-encodings.html).
 * `*\/*` matches any Accept. The setting also turns every request body whose Content-Type it covers
 * (with `*\/*`, every body) into base64 for the function (isBase64Encoded): the routes that take a
 * body decode it (lib/edge/request-body.ts), and the local gateway passes bodies so too.
 */
export const ENCODED_BODY_MEDIA_TYPES = ['*/*'] as const;

/** The binaryMediaTypes of the RestApi serving these routes (empty: none). */
export function binaryMediaTypesOf(routes: readonly Route[]): readonly string[] {
  return routes.some((r) => r.encodedBody && !r.streaming) ? ENCODED_BODY_MEDIA_TYPES : [];
}

/** The version prefix a route is served under. */
export function basePathOf(route: Pick<Route, 'basePath'>): string {
  return route.basePath ?? BASE_PATH;
}

/** Path parameter names of a template, in order. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
}

/** Headers a deprecated route answers with (RFC 9745 and RFC 8594). */
export function deprecationHeaders(route: Pick<Route, 'deprecated'>): Record<string, string> {
  if (!route.deprecated) return {};
  const since = Math.floor(Date.parse(route.deprecated.since) / 1000);
  return {
    Deprecation: `@${since}`,
    Sunset: new Date(route.deprecated.sunset).toUTCString(),
  };
}

const DECLARED_ROUTES: readonly Route<OperationId>[] = [...ROUTES, ...V2_ROUTES];

/** Whether an id is a declared operation's (a test's fixture route has one of its own). */
export function isOperationId(operationId: string): operationId is OperationId {
  return DECLARED_ROUTES.some((r) => r.operationId === operationId);
}

/** The declared routes a function serves. */
export function routesOf<F extends FunctionName>(fn: F): readonly Route<OperationOf<F>, F>[] {
  return DECLARED_ROUTES.filter((r): r is Route<OperationOf<F>, F> => r.function === fn);
}

export function routeByOperation<Op extends OperationId>(operationId: Op): Route<Op> {
  const route = DECLARED_ROUTES.find((r): r is Route<Op> => r.operationId === operationId);
  if (!route) throw new Error(`No route declared for operation ${operationId}`);
  return route;
}
