// The body of `POST /v2/webhook-endpoints`, checked before anything is read or resolved: a JSON
// object with `url` (a string) and optionally `eventTypes` (known types, each once), nothing else.
// Every refusal is an InvalidWebhookEndpointError that says what is wrong; the URL's own rules
// (scheme, host, addresses) are url-rules.ts's.
import {
  isWebhookEventType,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_LIMITS,
  type WebhookEndpointRequest,
  type WebhookEventType,
} from '../../contract/webhooks';
import { InvalidWebhookEndpointError, quoted } from './webhook-errors';

/** The fields the body may have. */
const FIELDS: readonly (keyof WebhookEndpointRequest)[] = ['url', 'eventTypes'];

/** A checked request: the event types in their declared order, all of them when the body named none. */
export interface EndpointRequest {
  url: string;
  eventTypes: WebhookEventType[];
}

const EXAMPLE = `{"url": "https://example.com/hooks", "eventTypes": ["${WEBHOOK_EVENT_TYPES[1]}"]}`;

function typeOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

function eventTypesOf(value: unknown): WebhookEventType[] {
  if (value === undefined) return [...WEBHOOK_EVENT_TYPES];
  if (!Array.isArray(value)) throw new InvalidWebhookEndpointError(`eventTypes must be an array, not ${typeOf(value)}`);
  const max = WEBHOOK_LIMITS.eventTypesPerEndpoint;
  if (value.length === 0)
    throw new InvalidWebhookEndpointError(
      'eventTypes must name at least one event type (leave it out for all of them)',
    );
  if (value.length > max)
    throw new InvalidWebhookEndpointError(
      `eventTypes may name at most ${max} event types, each once; it has ${value.length}`,
    );
  const seen = new Set<WebhookEventType>();
  for (const type of value as unknown[]) {
    if (!isWebhookEventType(type))
      throw new InvalidWebhookEndpointError(
        `eventTypes has ${typeof type === 'string' ? `the unknown event type ${quoted(type)}` : typeOf(type)}: ` +
          `each is one of ${WEBHOOK_EVENT_TYPES.join(', ')}`,
      );
    if (seen.has(type)) throw new InvalidWebhookEndpointError(`eventTypes names ${type} twice`);
    seen.add(type);
  }
  return WEBHOOK_EVENT_TYPES.filter((type) => seen.has(type));
}

/** The request a body holds, or an InvalidWebhookEndpointError. `text` is the body as UTF-8 text. */
export function parseEndpointRequest(text: string | undefined): EndpointRequest {
  if (text === undefined || text.trim() === '')
    throw new InvalidWebhookEndpointError(`The request needs a JSON body, such as ${EXAMPLE}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new InvalidWebhookEndpointError(`The body is not JSON: send a JSON object, such as ${EXAMPLE}`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new InvalidWebhookEndpointError(`The body must be a JSON object, not ${typeOf(body)}, such as ${EXAMPLE}`);
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).find((name) => !(FIELDS as readonly string[]).includes(name));
  if (unknown !== undefined)
    throw new InvalidWebhookEndpointError(`Unknown field ${quoted(unknown)}: the body has url and eventTypes only`);
  const { url } = fields;
  if (url === undefined) throw new InvalidWebhookEndpointError(`url is required, such as ${EXAMPLE}`);
  if (typeof url !== 'string') throw new InvalidWebhookEndpointError(`url must be a string, not ${typeOf(url)}`);
  const max = WEBHOOK_LIMITS.urlMaxLength;
  if (url.length > max) throw new InvalidWebhookEndpointError(`url is longer than ${max} characters`);
  return { url, eventTypes: eventTypesOf(fields.eventTypes) };
}
