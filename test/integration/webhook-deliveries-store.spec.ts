// Event delivery's state against the embedded DynamoDB server: the lease of the one attempt in flight
// per endpoint and order, which refuses any older change once a later one was sent (whatever the
// acknowledgement's write did), the acknowledged change that only rises, the deliveries log, and the
// endpoint's failing state (failures, the one probe, healthy again).
import type { WebhookDeliveriesRepository } from '../../lib/stores/webhook-deliveries';
import type { WebhookEndpointsRepository } from '../../lib/stores/webhook-endpoints';
import { WEBHOOK_DELIVERY, type WebhookDeliveryAttempt } from '../../lib/contract/webhook-delivery';
import { generateEndpointId } from '../../lib/core/webhooks/endpoint-ids';
import { generateSigningSecret } from '../../lib/core/webhooks/signature';
import { createTestTables, type TestTables } from '../support/dynamo';

let tables: TestTables;
let deliveries: WebhookDeliveriesRepository;
let endpoints: WebhookEndpointsRepository;
let orderNumber = 0;
const T = Date.UTC(2026, 11, 1, 9);
const iso = (ms: number) => new Date(ms).toISOString();
const endpointId = 'whe_0123456789abcdef01234567';

beforeAll(async () => {
  tables = await createTestTables();
  ({ webhookDeliveries: deliveries, webhookEndpoints: endpoints } = tables.stores());
});
afterAll(() => tables.drop());

/** An order no other test uses. */
const newOrder = () => String(++orderNumber);

describe("an order's lease", () => {
  test('one attempt at a time; another waits for the lease, and takes it once it ran out', async () => {
    const order = newOrder();
    const first = await deliveries.claimOrder(endpointId, order, iso(T), 'a', T);
    expect(first).toEqual({ claimed: true, until: T + WEBHOOK_DELIVERY.leaseMs });
    expect(await deliveries.claimOrder(endpointId, order, iso(T), 'b', T + 1)).toEqual({
      claimed: false,
      busyUntil: T + WEBHOOK_DELIVERY.leaseMs,
    });
    // A claim that landed before its reply was lost finds its own lease: it holds it.
    expect(await deliveries.claimOrder(endpointId, order, iso(T), 'a', T + 2)).toEqual(first);
    const after = T + WEBHOOK_DELIVERY.leaseMs + 1;
    expect(await deliveries.claimOrder(endpointId, order, iso(T), 'b', after)).toEqual({
      claimed: true,
      until: after + WEBHOOK_DELIVERY.leaseMs,
    });
  });

  test('given back after a failure, the same change (its retry) or a later one takes it', async () => {
    const order = newOrder();
    await deliveries.claimOrder(endpointId, order, iso(T), 'a', T);
    await deliveries.release(endpointId, order, 'a');
    expect(await deliveries.claimOrder(endpointId, order, iso(T), 'b', T + 1)).toMatchObject({ claimed: true });
    await deliveries.release(endpointId, order, 'someone else');
    expect(await deliveries.claimOrder(endpointId, order, iso(T + 5), 'c', T + 2)).toMatchObject({ claimed: false });
  });

  test('once a later change was sent, an older one never is, acknowledged or not', async () => {
    const order = newOrder();
    await deliveries.claimOrder(endpointId, order, iso(T + 10), 'newer', T);
    // Its acknowledgement never written (lost), its lease run out: the older change is still refused.
    const after = T + WEBHOOK_DELIVERY.leaseMs + 1;
    expect(await deliveries.claimOrder(endpointId, order, iso(T), 'older', after)).toEqual({
      claimed: false,
      superseded: { sent: iso(T + 10) },
    });
    expect(await deliveries.orderProgress(endpointId, order)).toEqual({ sent: iso(T + 10) });
  });

  test('an acknowledged change is not sent again, nor any older one; the acknowledgement only rises', async () => {
    const order = newOrder();
    await deliveries.claimOrder(endpointId, order, iso(T + 10), 'a', T);
    await deliveries.acknowledge(endpointId, order, iso(T + 10), 'a', T + 1);
    expect(await deliveries.claimOrder(endpointId, order, iso(T + 10), 'b', T + 2)).toEqual({
      claimed: false,
      superseded: { acknowledged: iso(T + 10) },
    });
    // An older acknowledgement (a late one, from another attempt) leaves it where it is.
    await deliveries.acknowledge(endpointId, order, iso(T + 5), 'stale', T + 3);
    expect(await deliveries.orderProgress(endpointId, order)).toEqual({ sent: iso(T + 10), acked: iso(T + 10) });
    expect(await deliveries.claimOrder(endpointId, order, iso(T + 20), 'c', T + 4)).toMatchObject({ claimed: true });
  });

  test('of many attempts of one order claiming at once, exactly one holds the lease', async () => {
    const order = newOrder();
    const claims = await Promise.all(
      Array.from({ length: 20 }, (_, i) => deliveries.claimOrder(endpointId, order, iso(T + (i % 5)), `w${i}`, T)),
    );
    expect(claims.filter((claim) => claim.claimed)).toHaveLength(1);
  });
});

test('the log: each attempt kept, newest first, at most the limit; an expired one not shown', async () => {
  const id = generateEndpointId();
  const attempt = (n: number): WebhookDeliveryAttempt => ({
    eventId: `evt_${String(n).padStart(32, '0')}`,
    type: 'order.created',
    orderId: '9223372036854775807',
    updatedAt: iso(T),
    attempt: n,
    attemptedAt: iso(T + n * 1000),
    outcome: n === 3 ? 'delivered' : 'failed',
    latencyMs: 12,
    ...(n === 3
      ? { responseStatus: 200 }
      : { detail: 'answered 503', responseStatus: 503, nextAttemptAt: iso(T + 9e5) }),
  });
  for (const n of [1, 2, 3]) await deliveries.logAttempt(id, attempt(n));
  expect(await deliveries.recentAttempts(id, T)).toEqual([attempt(3), attempt(2), attempt(1)]);
  expect(await deliveries.recentAttempts(id, T, 2)).toEqual([attempt(3), attempt(2)]);
  expect(await deliveries.recentAttempts(id, T + 1000 + WEBHOOK_DELIVERY.logRetentionMs + 1)).toEqual([
    attempt(3),
    attempt(2),
  ]);
});

describe("an endpoint's failing state", () => {
  async function created() {
    const id = generateEndpointId();
    const record = await endpoints.create(
      'key_failing',
      { id, url: 'https://example.com/h', eventTypes: ['order.created'], secret: generateSigningSecret() },
      new Date(T),
    );
    const found = await endpoints.findOwned('key_failing', id);
    if (!found) throw new Error('not created');
    return { record, ref: found.ref };
  }
  const failing = (failures: number, at: number) => ({
    since: iso(T),
    failures,
    retryAt: iso(at + 5_000),
    lastFailureAt: iso(at),
  });

  test('a failure is written on the state it was decided on; a second writer on the same state is refused', async () => {
    const { ref } = await created();
    expect(await endpoints.markFailing(ref, undefined, failing(1, T))).toBe(true);
    expect(await endpoints.markFailing(ref, undefined, failing(1, T + 1))).toBe(false);
    const seen = (await endpoints.getForDelivery(ref))?.failing;
    expect(seen).toEqual(failing(1, T));
    expect(await endpoints.markFailing(ref, seen, failing(2, T + 10_000))).toBe(true);
    expect((await endpoints.getForDelivery(ref))?.failing).toEqual(failing(2, T + 10_000));
  });

  test('one probe is claimed per retry; a success clears the state, and its owner saw since when it failed', async () => {
    const { ref } = await created();
    await endpoints.markFailing(ref, undefined, failing(1, T));
    const claims = await Promise.all([1, 2, 3].map(() => endpoints.claimProbe(ref, iso(T + 5_000), iso(T + 20_000))));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect((await endpoints.getOwned('key_failing', ref.id))?.failing?.since).toBe(iso(T));
    await endpoints.markHealthy(ref);
    expect((await endpoints.getForDelivery(ref))?.failing).toBeUndefined();
  });

  test('a disabled endpoint takes no failing state and no probe', async () => {
    const { ref } = await created();
    await endpoints.disable(ref, 'gone', 'answered 410', new Date(T));
    expect(await endpoints.markFailing(ref, undefined, failing(1, T))).toBe(false);
    expect(await endpoints.claimProbe(ref, iso(T), iso(T + 1))).toBe(false);
  });
});
