// The delivery's pure rules: which event a change is, the retry schedule and its jitter, the endpoint's
// turn and failing state, when an event goes next, how a wait is queued, and the queued message's form.
import { ORDER_FIELDS } from '../../lib/contract/order';
import type { SyncedOrder } from '../../lib/contract/synced-order';
import {
  retryDelayMs,
  retrySchedule,
  retryStepMs,
  WEBHOOK_DELIVERY,
  WEBHOOK_RETRY,
  WEBHOOK_TEST_EVENT_TYPE,
} from '../../lib/contract/webhook-delivery';
import { WEBHOOK_LIMITS, type WebhookEndpointFailing } from '../../lib/contract/webhooks';
import { SYNC_TIMING } from '../../lib/contract/sync';
import { changeEventType } from '../../lib/core/webhooks/change-events';
import {
  deliveryMessageJson,
  parseDeliveryMessage,
  type DeliveryMessage,
} from '../../lib/core/webhooks/delivery-message';
import {
  endpointTurn,
  failedForWindow,
  failingAfter,
  hopDelaySeconds,
  nextAttemptAt,
  waitForEndpoint,
} from '../../lib/core/webhooks/delivery-rules';
import { testDelivery } from '../../lib/core/webhooks/test-event';
import { RESOLVE_TIMEOUT_MS } from '../../lib/stores/webhook-destinations';

const T = Date.UTC(2026, 11, 1, 9);
const iso = (ms: number) => new Date(ms).toISOString();
const pending: SyncedOrder = {
  id: '9223372036854775807',
  petId: '7',
  quantity: 2,
  status: 'pending',
  updatedAt: iso(T),
};
const later = (changes: Partial<SyncedOrder>): SyncedOrder => ({ ...pending, updatedAt: iso(T + 1), ...changes });

describe('the event a change raises', () => {
  test.each([
    ['a new order', undefined, pending, 'order.created'],
    ['a cancel', pending, later({ status: 'cancelled' }), 'order.cancelled'],
    ['a ship', pending, later({ status: 'shipped', complete: true }), 'order.shipped'],
    ['another change of what v2 serves', pending, later({ quantity: 3 }), 'order.updated'],
    ['a re-stamp of the same order (the sync watch)', pending, later({}), undefined],
    ['the backfill of updatedAt', { ...pending, updatedAt: undefined }, later({}), undefined],
    ['a removal', pending, undefined, undefined],
    ['an order written before v2 (no stamp)', undefined, { ...pending, updatedAt: undefined }, undefined],
  ] as const)('%s: %s', (_name, before, after, type) => {
    expect(changeEventType(before, after)).toBe(type);
  });

  test('every served field counts: a change of any one is order.updated', () => {
    const values: Record<string, unknown> = { petId: '8', quantity: 9, shipDate: iso(T), complete: true };
    for (const field of ORDER_FIELDS.filter((f) => f !== 'id' && f !== 'status'))
      expect([field, changeEventType(pending, later({ [field]: values[field] }))]).toEqual([field, 'order.updated']);
  });
});

describe('the retry schedule', () => {
  test('steps double from the first to the largest, and stay there', () => {
    expect(retryStepMs(1)).toBe(WEBHOOK_RETRY.firstStepMs);
    expect(retryStepMs(2)).toBe(2 * WEBHOOK_RETRY.firstStepMs);
    expect(retryStepMs(5)).toBe(16 * WEBHOOK_RETRY.firstStepMs);
    expect(retryStepMs(100)).toBe(WEBHOOK_RETRY.maxStepMs);
  });

  test('each wait lies within half the step and the whole of it', () => {
    for (const n of [1, 3, 12, 40]) {
      const step = retryStepMs(n);
      expect(retryDelayMs(n, () => 0)).toBe(step / 2);
      expect(retryDelayMs(n, () => 0.999999)).toBeLessThan(step);
      expect(retryDelayMs(n, () => 0.999999)).toBeGreaterThan(step * 0.99);
    }
  });

  test('the schedule covers the window, and no retry starts after it', () => {
    const schedule = retrySchedule();
    const last = schedule.at(-1);
    expect(schedule[0]).toEqual({
      retry: 1,
      minMs: WEBHOOK_RETRY.firstStepMs / 2,
      maxMs: WEBHOOK_RETRY.firstStepMs,
      latestMs: WEBHOOK_RETRY.firstStepMs,
    });
    expect(last && last.latestMs - last.maxMs + last.minMs).toBeLessThanOrEqual(WEBHOOK_RETRY.windowMs);
    expect(last && last.latestMs + WEBHOOK_RETRY.maxStepMs / 2).toBeGreaterThan(WEBHOOK_RETRY.windowMs);
    expect(WEBHOOK_RETRY.windowMs).toBe(WEBHOOK_LIMITS.retryWindowMs);
  });
});

describe('an endpoint that fails', () => {
  const failing = (fields: Partial<WebhookEndpointFailing> = {}): WebhookEndpointFailing => ({
    since: iso(T),
    failures: 2,
    retryAt: iso(T + 10_000),
    lastFailureAt: iso(T),
    ...fields,
  });

  test('takes attempts at once while it does not fail; while it fails, one probe once its retry is due', () => {
    expect(endpointTurn(undefined, T)).toEqual({ go: true, probe: false });
    expect(endpointTurn(failing(), T + 9_999)).toEqual({ go: false, until: T + 10_000 });
    expect(endpointTurn(failing(), T + 10_000)).toEqual({ go: true, probe: true });
  });

  test('events waiting for it come back within a lease after its retry', () => {
    expect(waitForEndpoint(T, () => 0)).toBe(T);
    expect(waitForEndpoint(T, () => 0.999)).toBeLessThan(T + WEBHOOK_DELIVERY.leaseMs);
  });

  test('a failure counts once, however many attempts were in flight when it began', () => {
    const first = failingAfter(undefined, T - 100, T, () => 0);
    expect(first).toEqual({ since: iso(T), failures: 1, retryAt: iso(T + retryStepMs(1) / 2), lastFailureAt: iso(T) });
    // An attempt that started before that failure was counted, failing after it: nothing new.
    expect(failingAfter(first, T - 50, T + 20, () => 0)).toBeUndefined();
    // One that started after it (the probe) is the next failure: a longer step, the same start.
    expect(failingAfter(first, T + 5_000, T + 6_000, () => 0)).toEqual({
      since: iso(T),
      failures: 2,
      retryAt: iso(T + 6_000 + retryStepMs(2) / 2),
      lastFailureAt: iso(T + 6_000),
    });
  });

  test('is disabled once it has failed for the whole window', () => {
    expect(failedForWindow(failing(), T + WEBHOOK_RETRY.windowMs - 1)).toBe(false);
    expect(failedForWindow(failing(), T + WEBHOOK_RETRY.windowMs)).toBe(true);
  });
});

describe("an event's next attempt", () => {
  test('waits its own backoff, and not before its endpoint takes attempts again', () => {
    expect(nextAttemptAt(1, T, T, () => 0)).toBe(T + retryStepMs(1) / 2);
    expect(nextAttemptAt(4, T, T + 60_000, () => 0)).toBe(T + 60_000 + retryStepMs(4) / 2);
    expect(nextAttemptAt(1, T, T, () => 0, T + 99_000)).toBe(T + 99_000);
  });

  test('is given up on once the window since its first attempt is over', () => {
    expect(nextAttemptAt(50, T, T + WEBHOOK_RETRY.windowMs - 1, () => 0)).toBeDefined();
    expect(nextAttemptAt(50, T, T + WEBHOOK_RETRY.windowMs, () => 0)).toBeUndefined();
  });

  test('a wait is queued as a timer of at most 15 minutes, rounded up to the second; a longer one hops', () => {
    expect(hopDelaySeconds(T + 1_001, T)).toBe(2);
    expect(hopDelaySeconds(T - 5, T)).toBe(0);
    expect(hopDelaySeconds(T + 3_600_000, T)).toBe(WEBHOOK_DELIVERY.maxHopMs / 1000);
  });

  test('the lease holds the resolving, the timeout and twice the clock allowance between workers', () => {
    expect(RESOLVE_TIMEOUT_MS + WEBHOOK_LIMITS.deliveryTimeoutMs + 2 * SYNC_TIMING.clockErrorMs).toBeLessThanOrEqual(
      WEBHOOK_DELIVERY.leaseMs,
    );
  });
});

describe('the queued message', () => {
  const message: DeliveryMessage = {
    eventId: 'evt_0123456789abcdef0123456789abcdef',
    type: 'order.cancelled',
    body: '{"type":"order.cancelled"}',
    endpoint: { ownerKeyId: 'key1', entry: 'slot#0', id: 'whe_0123456789abcdef01234567' },
    order: { id: '9223372036854775807', updatedAt: iso(T) },
    attempts: 2,
    firstAttemptAt: iso(T),
    notBefore: iso(T + 5_000),
  };

  test('reads back as it was written', () => {
    expect(parseDeliveryMessage(deliveryMessageJson(message))).toEqual(message);
    const test = testDelivery(message.endpoint, new Date(T), (n) => Buffer.alloc(n, 0xab));
    expect(test).toEqual({
      eventId: `evt_${'ab'.repeat(16)}`,
      type: WEBHOOK_TEST_EVENT_TYPE,
      body: JSON.stringify({
        type: WEBHOOK_TEST_EVENT_TYPE,
        timestamp: iso(T),
        data: { endpointId: message.endpoint.id },
      }),
      endpoint: message.endpoint,
      attempts: 0,
    });
    expect(parseDeliveryMessage(deliveryMessageJson(test))).toEqual(test);
  });

  test.each([
    ['not JSON', 'nope'],
    ['another version', JSON.stringify({ ...message, v: 2 })],
    ['an unknown type', deliveryMessageJson({ ...message, type: 'order.lost' as never })],
    ['an order event naming no change', deliveryMessageJson({ ...message, order: undefined })],
    ['a test event naming a change', deliveryMessageJson({ ...message, type: WEBHOOK_TEST_EVENT_TYPE })],
    ['a negative attempt count', deliveryMessageJson({ ...message, attempts: -1 })],
    ['a time that is none', deliveryMessageJson({ ...message, notBefore: 'soon' })],
    ['no endpoint', deliveryMessageJson({ ...message, endpoint: { ...message.endpoint, entry: '' } })],
  ])('is refused when %s', (_name, text) => {
    expect(parseDeliveryMessage(text)).toBeUndefined();
  });
});
