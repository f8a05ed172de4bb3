// One queued delivery: an event for one endpoint, as the delivery queue carries it (SQS message body,
// JSON). The fan-out, the test route and `webhooks replay` write it; the delivery worker reads it, and
// re-sends it with its attempts counted and the time it may next go (SQS messages cannot be changed:
// a retry is a new message). Everything an attempt needs but the endpoint's URL and secrets, which
// the worker reads afresh before each attempt.
import {
  isWebhookEventType,
  webhookEvent,
  webhookEventId,
  webhookEventJson,
  type WebhookEventType,
} from '../../contract/webhooks';
import type { StampedOrder } from './change-events';
import { WEBHOOK_TEST_EVENT_TYPE, type DeliveredEventType } from '../../contract/webhook-delivery';

/** Where the endpoint's item is (lib/stores/webhook-endpoints.ts EndpointRef). */
export interface DeliveryEndpoint {
  ownerKeyId: string;
  entry: string;
  id: string;
}

export interface DeliveryMessage {
  /** `webhook-id`: the same on every attempt and replay of one order change's event. */
  eventId: string;
  type: DeliveredEventType;
  /** The event's JSON body, signed and sent exactly as it is. */
  body: string;
  endpoint: DeliveryEndpoint;
  /** The change the event names (its order and updatedAt); absent for a test event. */
  order?: { id: string; updatedAt: string };
  /** Attempts made so far. */
  attempts: number;
  /** When the first attempt was made (ISO 8601): the retry window counts from it. */
  firstAttemptAt?: string;
  /** Not attempted before this (ISO 8601): a retry's backoff, or a wait for the endpoint's or the order's turn. */
  notBefore?: string;
  /**
   * A replay (`webhooks replay`): sent even when the receiver acknowledged this change already (it
   * lost it), never when a later change of the order was sent.
   */
  resend?: true;
}

/** The delivery of `type`'s event of a change of `order` to one endpoint, not yet attempted. */
export function orderDelivery(
  endpoint: DeliveryEndpoint,
  type: WebhookEventType,
  order: StampedOrder,
): DeliveryMessage {
  const { ownerKeyId, entry, id } = endpoint;
  return {
    eventId: webhookEventId(order.id, order.updatedAt, type),
    type,
    body: webhookEventJson(webhookEvent(type, order)),
    endpoint: { ownerKeyId, entry, id },
    order: { id: order.id, updatedAt: order.updatedAt },
    attempts: 0,
  };
}

/** The message as the queue carries it (a version, so a later shape can be told apart). */
export function deliveryMessageJson(message: DeliveryMessage): string {
  return JSON.stringify({ v: 1, ...message });
}

const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
const isInstant = (value: unknown): value is string => isText(value) && !Number.isNaN(Date.parse(value));

function endpointOf(value: unknown): DeliveryEndpoint | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { ownerKeyId, entry, id } = value as Record<string, unknown>;
  return isText(ownerKeyId) && isText(entry) && isText(id) ? { ownerKeyId, entry, id } : undefined;
}

function orderOf(value: unknown): DeliveryMessage['order'] | 'invalid' {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null) return 'invalid';
  const { id, updatedAt } = value as Record<string, unknown>;
  return isText(id) && isInstant(updatedAt) ? { id, updatedAt } : 'invalid';
}

/** The message a queue body holds, or undefined for one this worker cannot read (it is given up on, logged). */
export function parseDeliveryMessage(text: string): DeliveryMessage | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const fields = parsed as Record<string, unknown>;
  const { v, eventId, type, body, attempts, firstAttemptAt, notBefore, resend } = fields;
  const endpoint = endpointOf(fields.endpoint);
  const order = orderOf(fields.order);
  const known = type === WEBHOOK_TEST_EVENT_TYPE || isWebhookEventType(type);
  if (v !== 1 || !isText(eventId) || !known || !isText(body) || !endpoint || order === 'invalid') return undefined;
  if (!(Number.isSafeInteger(attempts) && (attempts as number) >= 0)) return undefined;
  if (firstAttemptAt !== undefined && !isInstant(firstAttemptAt)) return undefined;
  if (notBefore !== undefined && !isInstant(notBefore)) return undefined;
  if (resend !== undefined && resend !== true) return undefined;
  // An order event names its change; a test event names none.
  if ((type === WEBHOOK_TEST_EVENT_TYPE) !== (order === undefined)) return undefined;
  return {
    eventId,
    type: type as DeliveredEventType,
    body,
    endpoint,
    ...(order ? { order } : {}),
    attempts: attempts as number,
    ...(firstAttemptAt !== undefined ? { firstAttemptAt } : {}),
    ...(notBefore !== undefined ? { notBefore } : {}),
    ...(resend ? { resend } : {}),
  };
}
