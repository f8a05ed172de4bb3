// Black box: order events delivered through the local stack (issue 45), from the orders table's
// emulated stream, through the fan-out and the emulated SQS queue, to receivers on loopback that
// verify every delivery with the `standardwebhooks` package. The clock is the world's: no real waiting.
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { BASE_PATH, V2_BASE_PATH, WEBHOOK_ENDPOINTS_PATH } from '../../lib/contract/routes';
import { WEBHOOK_HEADERS, WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS, webhookEventId } from '../../lib/contract/webhooks';
import {
  retryStepMs,
  WEBHOOK_DELIVERY,
  WEBHOOK_RETRY,
  WEBHOOK_TEST_EVENT_TYPE,
} from '../../lib/contract/webhook-delivery';
import { SENTINEL_ID } from '../../lib/contract/index-canary';
import { bearer } from '../support/local-stack';
import { eventIdOf, startWebhookWorld, verifyAt, type WebhookWorld } from '../support/webhook-world';

const ENDPOINTS = `${V2_BASE_PATH}${WEBHOOK_ENDPOINTS_PATH}`;

let world: WebhookWorld;
beforeEach(async () => {
  world = await startWebhookWorld();
});
afterEach(() => world?.close());

/** Seeds pending orders (each an `order.created` event) and lets the stream and the queue deliver them. */
async function seed(ids: string[]): Promise<void> {
  const at = new Date(world.stack.clock.now()).toISOString();
  await world.stack.app.orders.putMany(
    ids.map((id) => ({ id, petId: '7', quantity: 1, status: 'pending', updatedAt: at })),
  );
}

const cancel = (id: string) => world.stack.call('DELETE', `${BASE_PATH}/store/orders/${id}`, bearer(world.key));

test('each change is delivered, signed, to the endpoints wanting its type; standardwebhooks accepts it and refuses a forgery', async () => {
  const all = await world.receiver();
  const shipped = await world.receiver(['order.shipped']);
  await seed(['9223372036854775807']);
  await world.runFor(5_000);
  expect((await cancel('9223372036854775807')).status).toBe(204);
  await world.runFor(5_000);

  expect(shipped.received).toEqual([]);
  expect(all.received.map((r) => [r.verified, r.event?.type])).toEqual([
    [true, 'order.created'],
    [true, 'order.cancelled'],
  ]);
  const [, cancelled] = all.received;
  if (!cancelled?.event || !('id' in cancelled.event.data)) throw new Error('no order event');
  const order = cancelled.event.data;
  expect(order).toEqual((await world.store()).get('9223372036854775807'));
  expect(eventIdOf(cancelled)).toBe(webhookEventId(order.id, order.updatedAt ?? '', 'order.cancelled'));
  expect(cancelled.body).toContain('"id":9223372036854775807,');

  const { body, headers, at } = cancelled;
  expect(() => verifyAt(at, all.secret, body.replace('cancelled', 'pending'), headers)).toThrow();
  expect(() => verifyAt(at, shipped.secret, body, headers)).toThrow();
  const replayedAt = at + (WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS + 1) * 1000;
  expect(() => verifyAt(replayedAt, all.secret, body, headers)).toThrow(/timestamp/i);
  // The replica is the store.
  expect(all.replica).toEqual(await world.store());
});

test("the index-lag canary's sentinel is no order: its writes on the stream raise no event", async () => {
  const all = await world.receiver();
  await seed(['1']);
  // Between two order changes, an item at the sentinel's id as an order would be (no writer makes one:
  // the fan-out leaves the sentinel out by its key alone), then the canary's own write, a probe.
  await seed([SENTINEL_ID]);
  const probeMs = world.stack.clock.now();
  expect(await world.stack.app.canary.writeProbe({ probeMs, measurements: [] }, undefined, undefined)).toBe(true);
  await seed(['2']);
  await world.runFor(5_000);
  expect(await world.stack.app.canary.read()).toMatchObject({ probeMs });
  const events = all.received.map((r) => [
    r.verified,
    r.event?.type,
    r.event && 'id' in r.event.data && r.event.data.id,
  ]);
  // The queue hands messages out in any order.
  expect(events.sort((a, b) => String(a[2]).localeCompare(String(b[2])))).toEqual([
    [true, 'order.created', '1'],
    [true, 'order.created', '2'],
  ]);
  expect(await world.deliveries(all.endpoint.id)).toHaveLength(2);
});

test('a test event goes to its endpoint alone, signed, and shows in the deliveries log', async () => {
  const one = await world.receiver(['order.shipped']);
  const other = await world.receiver();
  const sent = await world.stack.call('POST', `${ENDPOINTS}/${one.endpoint.id}/test`, bearer(world.key));
  expect(sent.status).toBe(202);
  const { eventId } = (await sent.json()) as { eventId: string };
  await world.runFor(1_000);
  expect(other.received).toEqual([]);
  expect(one.received.map((r) => [r.verified, eventIdOf(r), r.event])).toEqual([
    [
      true,
      eventId,
      { type: WEBHOOK_TEST_EVENT_TYPE, timestamp: expect.any(String), data: { endpointId: one.endpoint.id } },
    ],
  ]);
  expect(await world.deliveries(one.endpoint.id)).toEqual([
    expect.objectContaining({
      eventId,
      type: WEBHOOK_TEST_EVENT_TYPE,
      attempt: 1,
      outcome: 'delivered',
      responseStatus: 200,
    }),
  ]);
});

test('410 Gone disables the endpoint at once: its owner sees why, and it gets nothing more', async () => {
  const gone = await world.receiver();
  gone.answer = () => 410;
  await seed(['1']);
  await world.runFor(2_000);
  const read = await world.stack.call('GET', `${ENDPOINTS}/${gone.endpoint.id}`, bearer(world.key));
  expect(await read.json()).toMatchObject({ status: 'disabled', disabledReason: 'gone' });
  await seed(['2']);
  await world.runFor(2_000);
  expect(gone.received).toHaveLength(1);
  expect(await world.deliveries(gone.endpoint.id)).toEqual([
    expect.objectContaining({ outcome: 'gone', responseStatus: 410 }),
  ]);
});

test('a redirect is never followed: a 3xx to a private address is a failed attempt, retried, and the address gets nothing', async () => {
  // The private target: a server the redirect points at, which must never be reached.
  let reached = 0;
  const target = createServer((_request, response) => {
    reached++;
    response.end();
  });
  target.listen(0, '127.0.0.2');
  await once(target, 'listening');
  const { port } = target.address() as AddressInfo;
  try {
    const redirecting = await world.receiver();
    redirecting.answer = () => ({ status: 302, headers: { Location: `http://127.0.0.2:${port}/latest/meta-data/` } });
    await seed(['3']);
    await world.runFor(30_000);
    expect(reached).toBe(0);
    const [first] = (await world.deliveries(redirecting.endpoint.id)).reverse();
    expect(first).toMatchObject({ outcome: 'failed', responseStatus: 302, detail: expect.stringMatching(/redirect/) });
    expect(first?.nextAttemptAt).toBeDefined();
    expect(redirecting.received.length).toBeGreaterThan(1);
    expect(
      redirecting.received.every((r) => r.headers[WEBHOOK_HEADERS.id] === eventIdOf(redirecting.received[0]!)),
    ).toBe(true);
  } finally {
    target.close();
  }
});

test("the local stack's --webhook-fail-rate: acknowledged deliveries taken as failed come again, same id, on the schedule", async () => {
  await world.close();
  world = await startWebhookWorld({ webhookFailRate: 1, random: () => 0 });
  const receiver = await world.receiver();
  await seed(['77']);
  await world.runFor(60_000);
  const ids = new Set(receiver.received.map(eventIdOf));
  expect(ids.size).toBe(1);
  expect(receiver.received.length).toBeGreaterThanOrEqual(3);
  receiver.received.slice(1).forEach((r, n) => {
    const [step, waited] = [retryStepMs(n + 1), r.at - (receiver.received[n]?.at ?? 0)];
    expect([n + 1, waited >= step / 2 && waited <= step + WEBHOOK_DELIVERY.leaseMs]).toEqual([n + 1, true]);
  });
  const [latest] = await world.deliveries(receiver.endpoint.id);
  expect(latest).toMatchObject({ outcome: 'failed', responseStatus: 200, detail: expect.stringMatching(/on purpose/) });
});

test('an endpoint failing for the whole window is disabled, and its owner saw since when; one whose host turns to a refused address is refused at every attempt and disabled so', async () => {
  await world.close();
  const dns: Record<string, string[]> = { 'hooks.test': ['127.0.0.1'] };
  world = await startWebhookWorld({
    webhookDestinations: { resolve: async (host) => dns[host] ?? [] },
    random: () => 0.5,
  });
  const failing = await world.receiver();
  failing.answer = () => 503;
  const rebinding = await world.receiver();
  const port = new URL(rebinding.url).port;
  // The second receiver's endpoint, registered by a name that resolves to it, then to the metadata address.
  const named = await world.stack.call(
    'POST',
    ENDPOINTS,
    { ...bearer(world.key), 'Content-Type': 'application/json' },
    JSON.stringify({ url: `http://hooks.test:${port}/hooks` }),
  );
  expect(named.status).toBe(201);
  const { id: namedId, secret: namedSecret } = (await named.json()) as { id: string; secret: string };
  // What reached the receiver through the name (its own endpoint, by its address, is another).
  const byName = () => rebinding.received.filter((r) => r.headers.host === `hooks.test:${port}`);
  await seed(['88']);
  await world.runFor(60_000);
  expect(byName().map((r) => verifyAt(r.at, namedSecret, r.body, r.headers).type)).toEqual(['order.created']);
  const read = async (id: string) =>
    (await (await world.stack.call('GET', `${ENDPOINTS}/${id}`, bearer(world.key))).json()) as Record<string, string>;
  expect(await read(failing.endpoint.id)).toMatchObject({ status: 'enabled', failingSince: expect.any(String) });
  dns['hooks.test'] = ['169.254.169.254'];
  await seed(['89']);
  await world.runFor(WEBHOOK_RETRY.windowMs + 2 * WEBHOOK_RETRY.maxStepMs);
  expect(await read(failing.endpoint.id)).toMatchObject({
    status: 'disabled',
    disabledReason: 'failing',
    disabledDetail: expect.stringMatching(/answered 503/),
  });
  expect(await read(namedId)).toMatchObject({
    status: 'disabled',
    disabledReason: 'refused-address',
    disabledDetail: expect.stringMatching(/169\.254\.169\.254 is the cloud metadata address/),
  });
  // Nothing reached the receiver by the name once it pointed elsewhere.
  expect(byName()).toHaveLength(1);
  const [last] = await world.deliveries(namedId);
  expect(last).toMatchObject({ outcome: 'failed', detail: expect.stringMatching(/refused.*disabled/) });
}, 120_000);
