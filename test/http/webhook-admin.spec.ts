// The admin command's `webhooks deliveries|test|replay` against a local stack's tables and its emulated
// delivery queue (over SQS's protocol, as the admin command finds it in the stack's state file), with
// the world's receivers verifying every delivery with `standardwebhooks`; and every wrong use is one line.
import { WEBHOOK_TEST_EVENT_TYPE } from '../../lib/contract/webhook-delivery';
import { tablesTarget } from '../../tools/admin/target';
import { adminRunner, type Admin } from '../support/admin-harness';
import { eventIdOf, startWebhookWorld, type WebhookWorld } from '../support/webhook-world';

let world: WebhookWorld;
let admin: Admin;
let queueless: Admin;

beforeAll(async () => {
  world = await startWebhookWorld();
  const url = await world.stack.app.webhookQueue.queueUrl();
  const target = (withQueue: boolean) => () =>
    tablesTarget({
      wiring: { endpoint: world.stack.tables.endpoint, tables: world.stack.tables.names },
      label: 'the test stack',
      unreachableHint: '',
      clock: world.stack.clock.now,
      ...(withQueue ? { webhookQueue: { endpoint: new URL(url).origin, url } } : {}),
    });
  admin = adminRunner(target(true));
  queueless = adminRunner(target(false));
});
afterAll(() => world?.close());

test('webhooks test queues a test event, which arrives signed, and webhooks deliveries shows its attempt', async () => {
  const receiver = await world.receiver(['order.shipped']);
  const sent = await admin('webhooks', 'test', receiver.endpoint.id);
  expect(sent.code).toBe(0);
  const eventId = /evt_[0-9a-f]{32}/.exec(sent.stdout)?.[0];
  await world.runFor(1_000);
  expect(receiver.received.map((r) => [r.verified, eventIdOf(r), r.event?.type])).toEqual([
    [true, eventId, WEBHOOK_TEST_EVENT_TYPE],
  ]);
  const table = await admin('webhooks', 'deliveries', receiver.endpoint.id);
  expect(table.stdout.split('\n')[0]).toMatch(/^ATTEMPTED +EVENT +TYPE +ORDER +ATTEMPT +OUTCOME +STATUS/);
  expect(table.stdout).toContain(`${eventId}  ${WEBHOOK_TEST_EVENT_TYPE}`);
  const json = await admin('webhooks', 'deliveries', receiver.endpoint.id, '--json');
  expect(JSON.parse(json.stdout)).toEqual([
    expect.objectContaining({ eventId, outcome: 'delivered', responseStatus: 200, attempt: 1 }),
  ]);
});

test('webhooks replay resends every order changed since a watermark as it is now, even those acknowledged, to a receiver that lost them', async () => {
  const receiver = await world.receiver();
  const since = new Date(world.stack.clock.now()).toISOString();
  const at = since;
  await world.stack.app.orders.putMany(
    ['101', '102', '103'].map((id) => ({ id, petId: '1', quantity: 1, status: 'pending', updatedAt: at })),
  );
  await world.runFor(5_000);
  await world.stack.app.orders.cancel('102');
  await world.runFor(5_000);
  expect(receiver.replica).toEqual(
    new Map([...(await world.store())].filter(([id]) => ['101', '102', '103'].includes(id))),
  );
  // The receiver loses its copy; the replay gives it back, each order's last change again.
  receiver.replica.clear();
  const before = receiver.received.length;
  const replayed = await admin('webhooks', 'replay', receiver.endpoint.id, '--since', since);
  expect(replayed.code).toBe(0);
  expect(replayed.stdout).toMatch(/^Queued 3 events for whe_/);
  await world.runFor(5_000);
  const again = receiver.received.slice(before);
  expect(again.map((r) => r.event?.type).sort()).toEqual(['order.cancelled', 'order.created', 'order.created']);
  expect(receiver.replica).toEqual(
    new Map([...(await world.store())].filter(([id]) => ['101', '102', '103'].includes(id))),
  );
  // The same ids as the original events of those changes: a receiver that kept them drops the repeats.
  const first = new Set(receiver.received.slice(0, before).map(eventIdOf));
  expect(again.every((r) => first.has(eventIdOf(r)))).toBe(true);
});

test.each([
  [['webhooks', 'replay', 'whe_0123456789abcdef01234567'], 2, /needs --since/],
  [['webhooks', 'replay', 'whe_0123456789abcdef01234567', '--since', 'yesterday'], 2, /--since must be an instant/],
  [['webhooks', 'replay', 'not-an-id', '--since', '2026-01-01T00:00:00Z'], 2, /whe_ followed by 24 hex digits/],
  [['webhooks', 'deliveries', 'whe_0123456789abcdef01234567', '--limit', '0'], 2, /--limit must be/],
  [['webhooks', 'test', 'whe_0123456789abcdef01234567'], 1, /No webhook endpoint whe_0123456789abcdef01234567/],
])('%j is one line, exit %i', async (argv, code, message) => {
  const run = await admin(...argv);
  expect(run.code).toBe(code);
  expect(run.stderr.split('\n')).toHaveLength(1);
  expect(run.stderr).toMatch(message);
});

test('a replay from the future, or to a target with no queue, is refused in one line', async () => {
  const receiver = await world.receiver();
  const future = new Date(world.stack.clock.now() + 60_000).toISOString();
  const early = await admin('webhooks', 'replay', receiver.endpoint.id, '--since', future);
  expect([early.code, early.stderr]).toEqual([2, expect.stringMatching(/is in the future/)]);
  const none = await queueless('webhooks', 'test', receiver.endpoint.id);
  expect([none.code, none.stderr]).toEqual([1, expect.stringMatching(/names no webhook delivery queue/)]);
});
