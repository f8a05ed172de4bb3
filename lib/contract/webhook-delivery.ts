// How order events are delivered, declared once: the retry schedule and its jitter, the test event,
// what one attempt came to (the deliveries log), and the bounds the delivery keeps. Read by the
// stream's fan-out, the delivery worker, the API's deliveries and test routes, the admin command, the
// local stack (which runs the same schedule on its clock), the OpenAPI document, the docs and the
// tests (docs/design.md#event-delivery).
import { WEBHOOK_LIMITS, type WebhookEventType } from './webhooks.ts';

const SECOND_MS = 1000;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The retry schedule: after the n-th failure in a row the next attempt waits a step of
 * min(maxStepMs, firstStepMs × 2^(n−1)), drawn with "equal jitter" between half the step and the
 * whole step (AWS Architecture Blog, "Exponential Backoff And Jitter", 2015), so receivers coming
 * back are not met by every retry at once, and the wait is never shorter than half the step. An event
 * is retried until `windowMs` after its first attempt (Stripe's three days); an endpoint whose every
 * attempt failed for that long is disabled.
 */
export const WEBHOOK_RETRY = {
  firstStepMs: 5 * SECOND_MS,
  maxStepMs: HOUR_MS,
  windowMs: WEBHOOK_LIMITS.retryWindowMs,
} as const;

/** The step after the n-th failure in a row (n ≥ 1): doubling from the first, up to the largest. */
export function retryStepMs(failures: number, retry: typeof WEBHOOK_RETRY = WEBHOOK_RETRY): number {
  const n = Math.max(1, Math.floor(failures));
  // 2^(n−1) overflows nothing below 2^1023; the cap is reached long before.
  return Math.min(retry.maxStepMs, retry.firstStepMs * 2 ** Math.min(n - 1, 60));
}

/** The wait after the n-th failure in a row: uniformly within [step/2, step), `random` in [0, 1). */
export function retryDelayMs(failures: number, random: () => number, retry = WEBHOOK_RETRY): number {
  const step = retryStepMs(failures, retry);
  return Math.floor(step / 2 + random() * (step / 2));
}

/** One retry of the schedule: how long it waits (at least, at most) and by when it comes after the first failure. */
export interface ScheduledRetry {
  retry: number;
  minMs: number;
  maxMs: number;
  /** The latest it comes, counted from the first failed attempt (every wait at its longest). */
  latestMs: number;
}

/** Every retry while failures last, until the window closes (counted at each wait's longest). */
export function retrySchedule(retry = WEBHOOK_RETRY): ScheduledRetry[] {
  const schedule: ScheduledRetry[] = [];
  let latest = 0;
  for (let n = 1; ; n++) {
    const step = retryStepMs(n, retry);
    if (latest + step / 2 > retry.windowMs) return schedule;
    latest += step;
    schedule.push({ retry: n, minMs: step / 2, maxMs: step, latestMs: latest });
  }
}

/**
 * An event sent on demand (`POST /v2/webhook-endpoints/{endpointId}/test`, admin `webhooks test`),
 * to that endpoint alone, whatever event types it names: `data` names the endpoint. Delivered, signed
 * and retried as an order event is; its id is new for each test.
 */
export const WEBHOOK_TEST_EVENT_TYPE = 'webhook.test';
export type WebhookTestEventType = typeof WEBHOOK_TEST_EVENT_TYPE;
/** Any event a delivery carries. */
export type DeliveredEventType = WebhookEventType | WebhookTestEventType;

/** A test event's body: `{type, timestamp, data: {endpointId}}`, as order events are shaped. */
export function webhookTestEventJson(endpointId: string, at: Date): string {
  return JSON.stringify({ type: WEBHOOK_TEST_EVENT_TYPE, timestamp: at.toISOString(), data: { endpointId } });
}

/**
 * What one attempt came to: `delivered` (a 2xx within the timeout), `failed` (anything else: a
 * timeout, a refused or unresolvable address, a 3xx, a 4xx but 410, a 5xx; retried while the window
 * lasts), `gone` (410: the endpoint is disabled), `superseded` (not sent: the receiver had already
 * acknowledged this change of the order or a later one).
 */
export const WEBHOOK_DELIVERY_OUTCOMES = ['delivered', 'failed', 'gone', 'superseded'] as const;
export type WebhookDeliveryOutcome = (typeof WEBHOOK_DELIVERY_OUTCOMES)[number];

/** One attempt as the deliveries log keeps it and `GET .../deliveries` and admin `webhooks deliveries` show it. */
export interface WebhookDeliveryAttempt {
  eventId: string;
  type: DeliveredEventType;
  /** The order the event is of, and the change (its updatedAt); absent for a test event. */
  orderId?: string;
  updatedAt?: string;
  /** 1 for the first attempt of the event, then each retry; a superseded event counts the attempt it would have been. */
  attempt: number;
  attemptedAt: string;
  outcome: WebhookDeliveryOutcome;
  /** How long the receiver took to answer (or to fail), ms; absent when nothing was sent. */
  latencyMs?: number;
  /** The receiver's status code, when it answered. */
  responseStatus?: number;
  /** What went wrong, in words: a timeout, a refused address, a redirect, the window closed. */
  detail?: string;
  /** When the next attempt is due, for a failed attempt that will be retried. */
  nextAttemptAt?: string;
}

/** The bounds the delivery keeps, beside WEBHOOK_LIMITS' timeout and window. */
export const WEBHOOK_DELIVERY = {
  /** The deliveries log keeps an attempt this long (TTL): beyond the window, so a failing endpoint's whole story shows. */
  logRetentionMs: 7 * DAY_MS,
  /** The most recent attempts `GET .../deliveries` and admin `webhooks deliveries` show at most. */
  logShown: 100,
  /**
   * How long one attempt may hold its order's lease (one attempt in flight per endpoint and order):
   * resolving the host (at most 2 s), the 10 s answer, and twice the clock allowance between workers
   * (SYNC_TIMING.clockErrorMs), rounded up. An attempt that cannot end by then is not started.
   */
  leaseMs: 15 * SECOND_MS,
  /**
   * How long the receiver's acknowledged change of an order is remembered: past the retry window,
   * so no retry of an older change can outlive it (a retry is given up at the window's end).
   */
  orderStateRetentionMs: WEBHOOK_LIMITS.retryWindowMs + DAY_MS,
  /** SQS's longest message timer (DelaySeconds, 15 minutes): a longer wait is several hops. */
  maxHopMs: 900 * SECOND_MS,
} as const;
