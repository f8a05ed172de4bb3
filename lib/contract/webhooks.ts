// Order events pushed to webhook endpoints, declared once: the event types, the limits, the Standard
// Webhooks headers and formats (https://www.standardwebhooks.com/), the endpoint record and the
// event a delivery carries. Read by the endpoints' routes and store, the admin command, the client,
// the OpenAPI document, the docs and the tests; the delivery (the change stream's consumer and its
// worker) builds on the same declarations.
import { createHash } from 'node:crypto';
import { syncedOrderJson, type SyncedOrder } from './synced-order.ts';

/** What a change is, named for what happened to the order; `order.updated` is any other change. */
export const WEBHOOK_EVENT_TYPES = ['order.created', 'order.cancelled', 'order.shipped', 'order.updated'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export function isWebhookEventType(value: unknown): value is WebhookEventType {
  return typeof value === 'string' && (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}

const HOUR_MS = 3_600_000;

export const WEBHOOK_LIMITS = {
  /** Endpoints one API key may have at once: the cap is exact under concurrent creates (one slot each). */
  endpointsPerKey: 10,
  /** The longest URL an endpoint may have, in characters (as sent: WHATWG-serialised). */
  urlMaxLength: 2048,
  /** Event types an endpoint may name: each type at most once. */
  eventTypesPerEndpoint: WEBHOOK_EVENT_TYPES.length,
  /** The largest request body the endpoint routes read, in bytes (the longest URL and every type fit). */
  requestBodyMaxBytes: 4096,
  /** After a rotation the previous secret keeps signing beside the new one this long (Svix's 24 hours). */
  secretOverlapMs: 24 * HOUR_MS,
  /** Random bytes of a signing secret (Standard Webhooks: 24 to 64). */
  secretBytes: 32,
  /** One delivery attempt waits this long for the receiver's answer. */
  deliveryTimeoutMs: 10_000,
  /** An event is retried, with backoff, for this long after its first attempt (Stripe's window). */
  retryWindowMs: 72 * HOUR_MS,
  /**
   * The delivery's fan-out reads the enabled endpoints at most this often (a cached read): an
   * endpoint gets the events of changes made from this long (and the index's lag) after its creation.
   */
  enabledEndpointsCacheMs: 10_000,
  /** A deleted endpoint's id is remembered this long: deleting it again answers 204, not 404. */
  deletedRememberedMs: 7 * 24 * HOUR_MS,
} as const;

/** The Standard Webhooks headers every delivery carries. */
export const WEBHOOK_HEADERS = {
  /** The event's id: the same on every attempt and replay of one event (webhookEventId). */
  id: 'webhook-id',
  /** When the attempt was signed, in Unix seconds. */
  timestamp: 'webhook-timestamp',
  /** Space-separated `v1,<base64 HMAC-SHA256>`: one per secret signing (two during a rotation's overlap). */
  signature: 'webhook-signature',
} as const;

/** The version prefix of each signature in the signature header. */
export const WEBHOOK_SIGNATURE_PREFIX = 'v1,';
/** A signing secret is this prefix, then the base64 of its random bytes (what the `standardwebhooks` package takes). */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** How old a timestamp receivers using the `standardwebhooks` package accept: 5 minutes, either way. */
export const WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS = 300;

/** An endpoint's id: this prefix and 24 lowercase hex digits (96 random bits). */
export const WEBHOOK_ENDPOINT_ID_PREFIX = 'whe_';
export const WEBHOOK_ENDPOINT_ID_PATTERN = /^whe_[0-9a-f]{24}$/;

export const WEBHOOK_ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;
export type WebhookEndpointStatus = (typeof WEBHOOK_ENDPOINT_STATUSES)[number];

/**
 * Why the delivery disabled an endpoint: it answered 410 Gone; every attempt failed for the retry
 * window; its host resolved to an address deliveries refuse (lib/core/webhooks/url-rules.ts).
 */
export const WEBHOOK_DISABLED_REASONS = ['gone', 'failing', 'refused-address'] as const;
export type WebhookDisabledReason = (typeof WEBHOOK_DISABLED_REASONS)[number];

/** Enabled since it was created, or disabled by the delivery, since when and why. */
export type WebhookEndpointState =
  | { status: 'enabled'; since: string }
  | { status: 'disabled'; since: string; reason: WebhookDisabledReason; detail: string };

/** The secrets an endpoint's deliveries are signed with: every one listed signs each delivery. */
export interface WebhookSigningSecrets {
  /** `whsec_<base64>`. */
  current: string;
  /** The one a rotation replaced, until `expiresAt` (ISO 8601): during the overlap both sign. */
  previous?: { secret: string; expiresAt: string };
}

/**
 * While an endpoint's deliveries fail (the delivery's, lib/core/webhooks/delivery-rules.ts): since when,
 * failures in a row, when the next attempt may go (one at a time, until one succeeds), and when the
 * last counted failure was (a failure of an attempt that started before it is not counted again).
 */
export interface WebhookEndpointFailing {
  since: string;
  failures: number;
  retryAt: string;
  lastFailureAt: string;
}

/** An endpoint as the endpoints table holds it. */
export interface WebhookEndpointRecord {
  id: string;
  /** The id of the API key that registered it (or that an operator registered it for). */
  ownerKeyId: string;
  /** An `https` URL (loopback `http` only where the local stack allows it), checked at registration. */
  url: string;
  /** In the declared order, each once. */
  eventTypes: readonly WebhookEventType[];
  state: WebhookEndpointState;
  createdAt: string;
  secrets: WebhookSigningSecrets;
  /** Absent while its deliveries succeed (or none was tried). */
  failing?: WebhookEndpointFailing;
}

/** What the API and the admin command show of an endpoint: never a secret. */
export interface WebhookEndpointView {
  id: string;
  url: string;
  eventTypes: WebhookEventType[];
  status: WebhookEndpointStatus;
  /** When it took its status: created, or disabled. */
  statusSince: string;
  /** When disabled: why, and what the delivery saw. */
  disabledReason?: WebhookDisabledReason;
  disabledDetail?: string;
  /**
   * While enabled and its deliveries fail: since when. Once that is WEBHOOK_LIMITS.retryWindowMs
   * ago, the delivery disables it (`failing`).
   */
  failingSince?: string;
  createdAt: string;
  /** During a rotation's overlap: when the previous secret stops signing. */
  previousSecretExpiresAt?: string;
}

/** The secrets that sign a delivery at `nowMs`: the current one, and the previous one until its expiry. */
export function signingSecrets(secrets: WebhookSigningSecrets, nowMs: number): string[] {
  const { previous } = secrets;
  return previous && Date.parse(previous.expiresAt) > nowMs ? [secrets.current, previous.secret] : [secrets.current];
}

/** The public view of a record at `nowMs` (an expired previous secret is not mentioned). */
export function webhookEndpointView(record: WebhookEndpointRecord, nowMs: number): WebhookEndpointView {
  const { state, secrets } = record;
  const overlap = secrets.previous && Date.parse(secrets.previous.expiresAt) > nowMs ? secrets.previous : undefined;
  return {
    id: record.id,
    url: record.url,
    eventTypes: [...record.eventTypes],
    status: state.status,
    statusSince: state.since,
    ...(state.status === 'disabled' ? { disabledReason: state.reason, disabledDetail: state.detail } : {}),
    ...(state.status === 'enabled' && record.failing ? { failingSince: record.failing.since } : {}),
    createdAt: record.createdAt,
    ...(overlap ? { previousSecretExpiresAt: overlap.expiresAt } : {}),
  };
}

/**
 * The body of a delivery: Standard Webhooks' recommended `{type, timestamp, data}`, `data` the order
 * exactly as v2 serves it (with `updatedAt`), `timestamp` when the change happened (its `updatedAt`).
 * (`data.id`, `data.updatedAt`) names the change, as in a v2 sync.
 */
export interface WebhookEvent {
  type: WebhookEventType;
  timestamp: string;
  data: SyncedOrder & { updatedAt: string };
}

/** The event of one change of `order`: its body is webhookEventJson's, its id webhookEventId's. */
export function webhookEvent(type: WebhookEventType, order: SyncedOrder & { updatedAt: string }): WebhookEvent {
  return { type, timestamp: order.updatedAt, data: order };
}

/** The event as JSON text, ids as exact int64 digits (as v2 writes orders). The same text on every attempt. */
export function webhookEventJson(event: WebhookEvent): string {
  return `{"type":${JSON.stringify(event.type)},"timestamp":${JSON.stringify(event.timestamp)},"data":${syncedOrderJson(event.data)}}`;
}

/**
 * The event's id (`webhook-id`), from what names the change and its type alone: every attempt and
 * every replay of one change's event carries the same id, so a receiver can drop what it has seen.
 * `evt_` and 32 hex digits of SHA-256 over `<type>\n<order id>\n<updatedAt>`.
 */
export function webhookEventId(orderId: string, updatedAt: string, type: WebhookEventType): string {
  const digest = createHash('sha256').update(`${type}\n${orderId}\n${updatedAt}`, 'utf8').digest('hex');
  return `evt_${digest.slice(0, 32)}`;
}

/**
 * The request body of `POST /v2/webhook-endpoints`: the URL, and the event types (all of them when
 * absent). Nothing else is accepted.
 */
export interface WebhookEndpointRequest {
  url: string;
  eventTypes?: WebhookEventType[];
}
