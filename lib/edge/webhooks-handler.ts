// The webhook endpoint routes (v2, beta): one function, one handler per operation, each in the
// stack every route runs in (the limiter counts it, its DynamoDB calls carry the request's deadline,
// domain errors become the operation's own codes). The caller's key owns what it registers; a
// read-only key reaches only the GETs (the authorizer's policy).
import type { Context } from 'aws-lambda';
import { routeByOperation, routesOf, type OperationOf } from '../contract/routes';
import { errorResponse } from '../contract/errors';
import { WEBHOOK_LIMITS, webhookEndpointView, type WebhookEndpointRecord } from '../contract/webhooks';
import { parseEndpointRequest } from '../core/webhooks/endpoint-request';
import { generateEndpointId, isEndpointId } from '../core/webhooks/endpoint-ids';
import { generateSigningSecret } from '../core/webhooks/signature';
import { InvalidWebhookEndpointError, WebhookEndpointNotFoundError } from '../core/webhooks/webhook-errors';
import { testDelivery } from '../core/webhooks/test-event';
import type { WebhookDeliveriesRepository } from '../stores/webhook-deliveries';
import { checkDestination, type DestinationCheck } from '../stores/webhook-destinations';
import type { WebhookEndpointsRepository } from '../stores/webhook-endpoints';
import type { DeliveryQueue } from '../stores/webhook-queue';
import type { WebhookDeliveryAttempt } from '../contract/webhook-delivery';
import { apiHandler, type ApiEvent, type ApiHandlerDeps, type ApiResult } from './api-handler';
import { requestBodyBytes, utf8Text } from './request-body';

export interface WebhookEndpointsHandlerDeps extends ApiHandlerDeps {
  endpoints: Pick<
    WebhookEndpointsRepository,
    'listOwned' | 'getOwned' | 'findOwned' | 'create' | 'rotateSecret' | 'delete'
  >;
  /** The URL rules (the local stack's loopback allowance) and the resolver. */
  destinations: DestinationCheck;
  /** The deliveries log an endpoint's attempts are read from. */
  deliveries: Pick<WebhookDeliveriesRepository, 'recentAttempts'>;
  /** Where a test event is queued: the delivery queue. */
  queue: DeliveryQueue;
  /** The time endpoints are stamped with: AWS's, as the writers' (lib/stores/aws-clock.ts). */
  now: () => number;
  /** Tests fix these; new random ones by default. */
  newId?: () => string;
  newSecret?: () => string;
}

/** The operations this function serves: every route declared with function `webhook-endpoints`. */
type Operation = OperationOf<'webhook-endpoints'>;

/** DynamoDB calls each operation makes once admitted, in the common case (the limiter's time budget). */
export const WEBHOOK_WORK_CALLS: Record<Operation, number> = {
  createWebhookEndpoint: 2,
  listWebhookEndpoints: 1,
  getWebhookEndpoint: 1,
  deleteWebhookEndpoint: 3,
  rotateWebhookEndpointSecret: 2,
  listWebhookDeliveries: 2,
  sendWebhookTestEvent: 1,
};

const JSON_HEADERS = { 'Content-Type': 'application/json' };
/** An answer that shows a secret is stored by no cache on its way (RFC 9111). */
export const SECRET_HEADERS = { ...JSON_HEADERS, 'Cache-Control': 'no-store' };

/** The request's body as text, within the declared size. */
function bodyText(event: ApiEvent): string | undefined {
  const bytes = requestBodyBytes(event);
  if (bytes === undefined) return undefined;
  const max = WEBHOOK_LIMITS.requestBodyMaxBytes;
  if (bytes.length > max)
    throw new InvalidWebhookEndpointError(`The body is ${bytes.length} bytes; at most ${max} are read`);
  const text = utf8Text(bytes);
  if (text === undefined) throw new InvalidWebhookEndpointError('The body is not UTF-8 text');
  return text;
}

/** The attempts as JSON, order ids as exact int64 digits (as v2 writes orders). */
function deliveriesJson(attempts: readonly WebhookDeliveryAttempt[]): string {
  const items = attempts.map((attempt) => {
    const { orderId, ...rest } = attempt;
    const json = JSON.stringify(rest);
    return orderId === undefined ? json : `{"orderId":${orderId},${json.slice(1)}`;
  });
  return `{"deliveries":[${items.join(',')}]}`;
}

/** The path's endpoint id; one that cannot be an id names no endpoint: 404 without a read. */
function endpointIdOf(event: ApiEvent): string {
  const id = event.pathParameters?.endpointId;
  if (!isEndpointId(id)) throw new WebhookEndpointNotFoundError(String(id).slice(0, 40));
  return id;
}

export function makeWebhookEndpointsHandler(deps: WebhookEndpointsHandlerDeps) {
  const { endpoints } = deps;
  const newId = deps.newId ?? (() => generateEndpointId());
  const newSecret = deps.newSecret ?? (() => generateSigningSecret());
  const view = (record: WebhookEndpointRecord) => webhookEndpointView(record, deps.now());
  const route = (operation: Operation, handle: Parameters<typeof apiHandler>[2]) =>
    apiHandler(routeByOperation(operation), deps, handle, WEBHOOK_WORK_CALLS[operation]);

  const handlers: Record<Operation, (event: ApiEvent, context: Context) => Promise<ApiResult>> = {
    createWebhookEndpoint: route('createWebhookEndpoint', async (event, caller, _context, deadline) => {
      const request = parseEndpointRequest(bodyText(event));
      const destination = await checkDestination(request.url, deps.destinations, deadline);
      const secret = newSecret();
      const record = await endpoints.create(
        caller.keyId,
        { id: newId(), url: destination.url, eventTypes: request.eventTypes, secret },
        new Date(deps.now()),
        deadline,
      );
      return { statusCode: 201, headers: SECRET_HEADERS, body: JSON.stringify({ ...view(record), secret }) };
    }),
    listWebhookEndpoints: route('listWebhookEndpoints', async (_event, caller, _context, deadline) => {
      const records = await endpoints.listOwned(caller.keyId, deadline);
      return { statusCode: 200, headers: JSON_HEADERS, body: JSON.stringify({ endpoints: records.map(view) }) };
    }),
    getWebhookEndpoint: route('getWebhookEndpoint', async (event, caller, _context, deadline) => {
      const id = endpointIdOf(event);
      const record = await endpoints.getOwned(caller.keyId, id, deadline);
      if (!record) throw new WebhookEndpointNotFoundError(id);
      return { statusCode: 200, headers: JSON_HEADERS, body: JSON.stringify(view(record)) };
    }),
    deleteWebhookEndpoint: route('deleteWebhookEndpoint', async (event, caller, _context, deadline) => {
      const id = endpointIdOf(event);
      const outcome = await endpoints.delete(caller.keyId, id, new Date(deps.now()), deadline);
      if (outcome === 'not-found') throw new WebhookEndpointNotFoundError(id);
      return { statusCode: 204, headers: {}, body: '' };
    }),
    rotateWebhookEndpointSecret: route('rotateWebhookEndpointSecret', async (event, caller, _context, deadline) => {
      const id = endpointIdOf(event);
      const secret = newSecret();
      const record = await endpoints.rotateSecret(caller.keyId, id, secret, new Date(deps.now()), deadline);
      if (!record) throw new WebhookEndpointNotFoundError(id);
      return { statusCode: 201, headers: SECRET_HEADERS, body: JSON.stringify({ ...view(record), secret }) };
    }),
    listWebhookDeliveries: route('listWebhookDeliveries', async (event, caller, _context, deadline) => {
      const id = endpointIdOf(event);
      const record = await endpoints.getOwned(caller.keyId, id, deadline);
      if (!record) throw new WebhookEndpointNotFoundError(id);
      const attempts = await deps.deliveries.recentAttempts(id, deps.now(), undefined, deadline);
      return { statusCode: 200, headers: JSON_HEADERS, body: deliveriesJson(attempts) };
    }),
    sendWebhookTestEvent: route('sendWebhookTestEvent', async (event, caller, _context, deadline) => {
      const id = endpointIdOf(event);
      const found = await endpoints.findOwned(caller.keyId, id, deadline);
      if (!found) throw new WebhookEndpointNotFoundError(id);
      const delivery = testDelivery(found.ref, new Date(deps.now()));
      await deps.queue.send([{ message: delivery }]);
      return { statusCode: 202, headers: JSON_HEADERS, body: JSON.stringify({ eventId: delivery.eventId }) };
    }),
  };

  // API Gateway names the route in the event: its method and resource template.
  const byRoute = new Map(routesOf('webhook-endpoints').map((r) => [`${r.method} ${r.path}`, handlers[r.operationId]]));
  return async (event: ApiEvent, context: Context): Promise<ApiResult> => {
    const handler = byRoute.get(`${event.httpMethod} ${event.resource}`);
    return handler ? handler(event, context) : errorResponse({ code: 'NOT_FOUND', headers: {} });
  };
}
