// What the webhook endpoint routes (v2, beta) answer and take, for the v2 OpenAPI document.
import type { OperationContract } from './operation-contract';
import type { JsonObject } from './openapi/schemas';
import type { OperationOf } from './routes';
import {
  WEBHOOK_DISABLED_REASONS,
  WEBHOOK_ENDPOINT_STATUSES,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_HEADERS,
  WEBHOOK_LIMITS,
  WEBHOOK_SECRET_PREFIX,
} from './webhooks';
import {
  WEBHOOK_DELIVERY,
  WEBHOOK_DELIVERY_OUTCOMES,
  WEBHOOK_RETRY,
  WEBHOOK_TEST_EVENT_TYPE,
} from './webhook-delivery';

const HOURS = (ms: number) => ms / 3_600_000;
const types = WEBHOOK_EVENT_TYPES.map((type) => `\`${type}\``).join(', ');

function endpointSchema(withSecret: boolean): JsonObject {
  const properties: Record<string, JsonObject> = {
    id: { type: 'string', pattern: '^whe_[0-9a-f]{24}$', description: "The endpoint's id." },
    url: { type: 'string', format: 'uri', maxLength: WEBHOOK_LIMITS.urlMaxLength, description: 'Where events go.' },
    eventTypes: {
      type: 'array',
      items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
      uniqueItems: true,
      description: 'The event types it receives.',
    },
    status: {
      type: 'string',
      enum: [...WEBHOOK_ENDPOINT_STATUSES],
      description:
        '`enabled` from its creation; `disabled` by the delivery when it answered 410 Gone, failed for the whole ' +
        'retry window, or its host resolved to an address events may not go to.',
    },
    statusSince: { type: 'string', format: 'date-time', description: 'When it took its status.' },
    disabledReason: {
      type: 'string',
      enum: [...WEBHOOK_DISABLED_REASONS],
      description: 'Only when disabled: why (`gone`: it answered 410; `failing`; `refused-address`).',
    },
    disabledDetail: { type: 'string', description: 'Only when disabled: what the last attempt saw.' },
    failingSince: {
      type: 'string',
      format: 'date-time',
      description:
        `Only while enabled and its deliveries fail: since when. Once that is ${HOURS(WEBHOOK_LIMITS.retryWindowMs)} hours ` +
        'ago the endpoint is disabled (`failing`).',
    },
    createdAt: { type: 'string', format: 'date-time' },
    previousSecretExpiresAt: {
      type: 'string',
      format: 'date-time',
      description: 'Only after a rotation, during its overlap: when the previous secret stops signing.',
    },
  };
  if (withSecret)
    properties.secret = {
      type: 'string',
      pattern: `^${WEBHOOK_SECRET_PREFIX}[A-Za-z0-9+/]+={0,2}$`,
      description:
        'The signing secret, shown this once: keep it where your receiver reads it. Give it as it is to the ' +
        '`standardwebhooks` package (`new Webhook(secret)`).',
    };
  return {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'url', 'eventTypes', 'status', 'statusSince', 'createdAt', ...(withSecret ? ['secret'] : [])],
    properties,
  };
}

const EXAMPLE_ENDPOINT = {
  id: 'whe_3f9a1c2b4d5e6f708192a3b4',
  url: 'https://example.com/hooks/orders',
  eventTypes: ['order.cancelled', 'order.shipped'],
  status: 'enabled',
  statusSince: '2026-12-01T09:00:00.000Z',
  createdAt: '2026-12-01T09:00:00.000Z',
};
const EXAMPLE_SECRET = `${WEBHOOK_SECRET_PREFIX}MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw8sTWjbhp5lI=`;

/** An answer that shows a secret is kept by no cache on its way (RFC 9111 no-store). */
const NO_STORE: JsonObject = {
  'Cache-Control': {
    description: 'The answer shows a secret: no cache on its way may keep it.',
    required: true,
    schema: { type: 'string', const: 'no-store' },
  },
};

const NOT_FOUND_NOTE =
  'An id of another key (or none of this API) is 404 `WEBHOOK_ENDPOINT_NOT_FOUND`: a key sees only its own endpoints.';

/** The routes of an endpoint's deliveries: their contracts are WEBHOOK_DELIVERY_OPERATIONS. */
type DeliveryOperation = Extract<OperationOf<'webhook-endpoints'>, 'listWebhookDeliveries' | 'sendWebhookTestEvent'>;

/** What each webhook endpoint route answers: one added to the routes without its contract does not compile. */
export const WEBHOOK_OPERATIONS: Record<
  Exclude<OperationOf<'webhook-endpoints'>, DeliveryOperation>,
  OperationContract
> = {
  createWebhookEndpoint: {
    description:
      'Registers where order events go for this key (a read-only key may not). Every change of an order that the ' +
      `endpoint's event types name (${types}) is POSTed to the URL as JSON \`{"type", "timestamp", "data"}\`, ` +
      '`data` the order as `GET /store/orders` serves it, with `updatedAt`: (`data.id`, `data.updatedAt`) names the ' +
      `change. Each delivery is signed as Standard Webhooks says (\`${WEBHOOK_HEADERS.id}\`, ` +
      `\`${WEBHOOK_HEADERS.timestamp}\`, \`${WEBHOOK_HEADERS.signature}\`): verify it with the \`standardwebhooks\` ` +
      'package and the secret this answer shows, once. Deliveries come at least once (the same ' +
      `\`${WEBHOOK_HEADERS.id}\` on every retry), retried with backoff for ${HOURS(WEBHOOK_LIMITS.retryWindowMs)} hours ` +
      `until a 2xx within ${WEBHOOK_LIMITS.deliveryTimeoutMs / 1000} s; per order, an older change never comes after a ` +
      'newer one your endpoint acknowledged. The URL is `https`; its host must resolve only to public addresses ' +
      '(checked now and before every delivery): private, loopback, link-local, metadata and other special addresses ' +
      `are refused (400 \`WEBHOOK_URL_REFUSED\`). A key has at most ${WEBHOOK_LIMITS.endpointsPerKey} endpoints ` +
      '(409 `TOO_MANY_WEBHOOK_ENDPOINTS`). Creating is not idempotent: a create answered 5xx or never answered ' +
      'may have been made; list the endpoints before trying again.',
    requestBody: {
      description:
        `At most ${WEBHOOK_LIMITS.requestBodyMaxBytes} bytes of JSON, nothing but these fields; anything else is 400 ` +
        '`INVALID_WEBHOOK_ENDPOINT`, whose message says what is wrong.',
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['url'],
        properties: {
          url: {
            type: 'string',
            maxLength: WEBHOOK_LIMITS.urlMaxLength,
            description: 'An absolute `https` URL with no user, password or fragment.',
          },
          eventTypes: {
            type: 'array',
            items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
            minItems: 1,
            maxItems: WEBHOOK_LIMITS.eventTypesPerEndpoint,
            uniqueItems: true,
            description: 'The event types to receive, each once; all of them when absent.',
          },
        },
      },
      example: { url: EXAMPLE_ENDPOINT.url, eventTypes: EXAMPLE_ENDPOINT.eventTypes },
    },
    success: {
      status: 201,
      description: 'The endpoint, with its signing secret: shown this once.',
      headers: NO_STORE,
      schema: endpointSchema(true),
      example: { ...EXAMPLE_ENDPOINT, secret: EXAMPLE_SECRET },
    },
    errors: ['INVALID_WEBHOOK_ENDPOINT', 'WEBHOOK_URL_REFUSED', 'TOO_MANY_WEBHOOK_ENDPOINTS'],
  },
  listWebhookEndpoints: {
    description: "This key's webhook endpoints, oldest first, without their secrets.",
    success: {
      status: 200,
      description: "The key's endpoints.",
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['endpoints'],
        properties: { endpoints: { type: 'array', items: endpointSchema(false) } },
      },
      example: { endpoints: [EXAMPLE_ENDPOINT] },
    },
    errors: [],
  },
  getWebhookEndpoint: {
    description: `One endpoint of this key, without its secret: its status says whether events still go to it. ${NOT_FOUND_NOTE}`,
    success: { status: 200, description: 'The endpoint.', schema: endpointSchema(false), example: EXAMPLE_ENDPOINT },
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
  },
  deleteWebhookEndpoint: {
    description:
      'Deletes an endpoint of this key: no event goes to it from then on (one already being sent may still ' +
      `arrive). Deleting it again answers 204 again, for ${HOURS(WEBHOOK_LIMITS.deletedRememberedMs) / 24} days. ${NOT_FOUND_NOTE}`,
    success: { status: 204, description: 'The endpoint is deleted (or already was). No body.' },
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
  },
  rotateWebhookEndpointSecret: {
    description:
      'Gives the endpoint a new signing secret, shown this once. For the next ' +
      `${HOURS(WEBHOOK_LIMITS.secretOverlapMs)} hours every delivery is signed with both the new and the previous ` +
      `secret (two signatures in \`${WEBHOOK_HEADERS.signature}\`), so a receiver verifies with either while it ` +
      'switches; then with the new one alone. Rotating again within the overlap drops the oldest secret at once. ' +
      `The request takes no body. ${NOT_FOUND_NOTE}`,
    success: {
      status: 201,
      description: 'The endpoint, with its new signing secret: shown this once.',
      headers: NO_STORE,
      schema: endpointSchema(true),
      example: {
        ...EXAMPLE_ENDPOINT,
        previousSecretExpiresAt: '2026-12-03T09:00:00.000Z',
        secret: EXAMPLE_SECRET,
      },
    },
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
  },
};

const DELIVERY_SCHEMA: JsonObject = {
  type: 'object',
  additionalProperties: false,
  required: ['eventId', 'type', 'attempt', 'attemptedAt', 'outcome'],
  properties: {
    eventId: { type: 'string', description: `The event's \`${WEBHOOK_HEADERS.id}\`: the same on every attempt.` },
    type: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT_TYPE] },
    orderId: { type: 'integer', format: 'int64', description: 'The order the event is of (not for a test event).' },
    updatedAt: { type: 'string', format: 'date-time', description: 'The change the event names, with `orderId`.' },
    attempt: { type: 'integer', minimum: 1, description: "1 for the event's first attempt, then each retry." },
    attemptedAt: { type: 'string', format: 'date-time' },
    outcome: {
      type: 'string',
      enum: [...WEBHOOK_DELIVERY_OUTCOMES],
      description:
        '`delivered`: a 2xx within the timeout. `failed`: anything else (a timeout, a refused address, a 3xx, a 4xx ' +
        'but 410, a 5xx), retried while `nextAttemptAt` is given. `gone`: 410, the endpoint is disabled. ' +
        '`superseded`: not sent, as your endpoint had acknowledged this change of the order or a later one, or a ' +
        'later change of it had been sent first.',
    },
    latencyMs: { type: 'integer', minimum: 0, description: 'How long your endpoint took to answer, or to fail.' },
    responseStatus: { type: 'integer', description: "Your endpoint's status code, when it answered." },
    detail: { type: 'string', description: 'What went wrong, in words.' },
    nextAttemptAt: { type: 'string', format: 'date-time', description: 'When a failed attempt is retried.' },
  },
};

const EXAMPLE_DELIVERY = {
  eventId: 'evt_5b0e7f5c2d8a4f1e9c3b6a7d8e9f0a1b',
  type: 'order.cancelled',
  orderId: 1042,
  updatedAt: '2026-12-01T09:00:00.123Z',
  attempt: 2,
  attemptedAt: '2026-12-01T09:00:06.410Z',
  outcome: 'failed',
  latencyMs: 10000,
  detail: 'no answer within 10 s',
  nextAttemptAt: '2026-12-01T09:00:14.902Z',
};

export const WEBHOOK_DELIVERY_OPERATIONS: Record<DeliveryOperation, OperationContract> = {
  listWebhookDeliveries: {
    description:
      `The endpoint's latest delivery attempts, newest first: at most ${WEBHOOK_DELIVERY.logShown}, each kept ` +
      `${HOURS(WEBHOOK_DELIVERY.logRetentionMs) / 24} days. A failed attempt is retried with exponential backoff and ` +
      `jitter (${WEBHOOK_RETRY.firstStepMs / 1000} s doubling to ${HOURS(WEBHOOK_RETRY.maxStepMs)} hour) for ` +
      `${HOURS(WEBHOOK_RETRY.windowMs)} hours from the event's first attempt. ${NOT_FOUND_NOTE}`,
    success: {
      status: 200,
      description: 'The attempts.',
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['deliveries'],
        properties: { deliveries: { type: 'array', items: DELIVERY_SCHEMA } },
      },
      example: { deliveries: [EXAMPLE_DELIVERY] },
    },
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
  },
  sendWebhookTestEvent: {
    description:
      `Queues a \`${WEBHOOK_TEST_EVENT_TYPE}\` event for the endpoint, whatever event types it names: ` +
      '`{"type": "webhook.test", "timestamp", "data": {"endpointId"}}`, signed, delivered and retried as order events ' +
      `are, with an id of its own. A disabled endpoint receives none. The request takes no body. ${NOT_FOUND_NOTE}`,
    success: {
      status: 202,
      description: 'The test event is queued: its id, the `webhook-id` your endpoint receives.',
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['eventId'],
        properties: { eventId: { type: 'string', pattern: '^evt_[0-9a-f]{32}$' } },
      },
      example: { eventId: 'evt_0f1e2d3c4b5a69788796a5b4c3d2e1f0' },
    },
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
  },
};

/** The endpointId path parameter. */
export const ENDPOINT_ID_PARAMETER: JsonObject = {
  description: `An endpoint's id as its creation answered it (\`whe_\` and 24 hex digits). ${NOT_FOUND_NOTE}`,
  schema: { type: 'string', pattern: '^whe_[0-9a-f]{24}$' },
  example: EXAMPLE_ENDPOINT.id,
};
