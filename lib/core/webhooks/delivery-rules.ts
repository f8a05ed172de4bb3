// The delivery's decisions, pure: whether an endpoint takes an attempt now, what a failed attempt
// does to the endpoint's failing state, and when an event goes next or is given up on. The worker
// (lib/edge/webhook-delivery-handler.ts) carries them out with conditional writes; the schedule is
// lib/contract/webhook-delivery.ts's (docs/design.md#event-delivery).
//
// An endpoint that fails gets one attempt at a time, when its retry is due (a probe), however many
// events wait for it: a dead receiver costs one attempt a step, not one per waiting event, and its
// waiting events hold no worker. The step grows with the endpoint's failures in a row; a failure
// counts once however many attempts were in flight when the receiver went down (an attempt that
// started before the last counted failure adds nothing), so a blip does not push the retry far out.
import type { WebhookEndpointFailing } from '../../contract/webhooks';
import { retryDelayMs, WEBHOOK_DELIVERY, WEBHOOK_RETRY } from '../../contract/webhook-delivery';

const iso = (ms: number) => new Date(ms).toISOString();

/** Whether an attempt may go to the endpoint now: at once while it is not failing, else one probe once its retry is due. */
export type EndpointTurn = { go: true; probe: boolean } | { go: false; until: number };

export function endpointTurn(failing: WebhookEndpointFailing | undefined, nowMs: number): EndpointTurn {
  if (failing === undefined) return { go: true, probe: false };
  const retryAt = Date.parse(failing.retryAt);
  return nowMs >= retryAt ? { go: true, probe: true } : { go: false, until: retryAt };
}

/**
 * When an event that waits for a failing endpoint comes back: at its retry, spread over one lease so
 * the waiting events do not all come at once; the first then probes, the rest find the probe under
 * way (or done) and wait again, or go.
 */
export function waitForEndpoint(until: number, random: () => number): number {
  return until + Math.floor(random() * WEBHOOK_DELIVERY.leaseMs);
}

/** How long the endpoint is held for the probe that claims it: others wait for its outcome. */
export function probeHoldUntil(nowMs: number): number {
  return nowMs + WEBHOOK_DELIVERY.leaseMs;
}

/**
 * The endpoint's failing state after an attempt that started at `startedAt` failed at `nowMs`, or
 * undefined when that failure is counted already (the attempt started before the last counted one).
 */
export function failingAfter(
  failing: WebhookEndpointFailing | undefined,
  startedAt: number,
  nowMs: number,
  random: () => number,
): WebhookEndpointFailing | undefined {
  if (failing !== undefined && Date.parse(failing.lastFailureAt) >= startedAt) return undefined;
  const failures = (failing?.failures ?? 0) + 1;
  return {
    since: failing?.since ?? iso(nowMs),
    failures,
    retryAt: iso(nowMs + retryDelayMs(failures, random)),
    lastFailureAt: iso(nowMs),
  };
}

/** Whether an endpoint failing so has failed for the whole window: it is disabled. */
export function failedForWindow(failing: WebhookEndpointFailing, nowMs: number): boolean {
  return nowMs - Date.parse(failing.since) >= WEBHOOK_RETRY.windowMs;
}

/**
 * When an event goes next after its `attempts`-th attempt failed at `nowMs` (its first at
 * `firstAttemptAt`): its own backoff, and not before the endpoint's retry; undefined once its window
 * is over (it is given up on).
 */
export function nextAttemptAt(
  attempts: number,
  firstAttemptAt: number,
  nowMs: number,
  random: () => number,
  endpointRetryAt?: number,
): number | undefined {
  if (nowMs - firstAttemptAt >= WEBHOOK_RETRY.windowMs) return undefined;
  return Math.max(nowMs + retryDelayMs(attempts, random), endpointRetryAt ?? -Infinity);
}

/** How a wait until `untilMs` is queued: a message timer of at most SQS's 15 minutes; a longer wait hops again. */
export function hopDelaySeconds(untilMs: number, nowMs: number): number {
  const seconds = Math.ceil((untilMs - nowMs) / 1000);
  return Math.min(Math.max(0, seconds), WEBHOOK_DELIVERY.maxHopMs / 1000);
}
