// Receiving order events: a delivery verified as the Standard Webhooks specification says, with its
// `standardwebhooks` package (the signature, in constant time, and a timestamp within 5 minutes),
// then read with exact int64 ids.
import { parse } from 'lossless-json';
import { Webhook } from 'standardwebhooks';
import type { WebhookEventType } from '../lib/contract/webhooks.ts';
import { WEBHOOK_TEST_EVENT_TYPE, type WebhookTestEventType } from '../lib/contract/webhook-delivery.ts';
import { toSyncedOrder } from './client.ts';
import type { SyncedListedOrder } from './pages.ts';

/**
 * An event as a receiver gets it: an order event (ids as exact decimal strings), or a test event
 * sent on demand, which names the endpoint.
 */
export type ReceivedWebhookEvent =
  | { type: WebhookEventType; timestamp: string; data: SyncedListedOrder }
  | { type: WebhookTestEventType; timestamp: string; data: { endpointId: string } };

/** A request's headers as Node's http module or fetch give them. */
export type ReceivedHeaders = Headers | Record<string, string | string[] | undefined>;

function plainHeaders(headers: ReceivedHeaders): Record<string, string> {
  if (headers instanceof Headers) return Object.fromEntries(headers.entries());
  const plain: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) plain[name] = first;
  }
  return plain;
}

/**
 * The event a delivery carries, once its signature verifies with `secret` (the `whsec_...` its
 * endpoint's creation showed): `body` is the raw request body, as received. Throws the package's
 * WebhookVerificationError for a forged, tampered or replayed delivery.
 */
export function verifyWebhook(secret: string, body: string | Buffer, headers: ReceivedHeaders): ReceivedWebhookEvent {
  new Webhook(secret).verify(body, plainHeaders(headers), { jsonParse: false });
  const event = parse(body.toString()) as {
    type: WebhookEventType | WebhookTestEventType;
    timestamp: string;
    data: unknown;
  };
  if (event.type === WEBHOOK_TEST_EVENT_TYPE)
    return {
      type: event.type,
      timestamp: event.timestamp,
      data: { endpointId: String((event.data as { endpointId?: unknown }).endpointId) },
    };
  return { type: event.type, timestamp: event.timestamp, data: toSyncedOrder(event.data) };
}
