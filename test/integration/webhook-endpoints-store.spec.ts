// The webhook endpoints store against the embedded DynamoDB server: the cap under concurrent
// creates, a key's own endpoints only, idempotent deletes and rotations, the enabled index the
// fan-out reads (without secrets), and the delivery's disable.
import {
  EnabledEndpointsCache,
  type EndpointRef,
  type WebhookEndpointsRepository,
} from '../../lib/stores/webhook-endpoints';

import { TooManyWebhookEndpointsError } from '../../lib/core/webhooks/webhook-errors';
import { generateEndpointId } from '../../lib/core/webhooks/endpoint-ids';
import { generateSigningSecret } from '../../lib/core/webhooks/signature';
import { WEBHOOK_LIMITS, type WebhookEventType } from '../../lib/contract/webhooks';
import { WEBHOOK_ENDPOINT_INDEXES } from '../../lib/contract/tables';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createTestTables, type TestTables } from '../support/dynamo';

let tables: TestTables;
let repo: WebhookEndpointsRepository;
let keyNumber = 0;
const AT = new Date('2026-12-01T09:00:00.000Z');

beforeAll(async () => {
  tables = await createTestTables();
  repo = tables.stores().webhookEndpoints;
});
afterAll(() => tables.drop());

/** A key id no other test uses. */
const newKey = () => `key_${String(++keyNumber).padStart(20, '0')}`;
const endpoint = (url = 'https://example.com/h', eventTypes: WebhookEventType[] = ['order.created']) => ({
  id: generateEndpointId(),
  url,
  eventTypes,
  secret: generateSigningSecret(),
});

test('a created endpoint is enabled since its creation and read back whole, by its owner only', async () => {
  const [owner, other] = [newKey(), newKey()];
  const made = endpoint('https://example.com/orders', ['order.cancelled', 'order.shipped']);
  const record = await repo.create(owner, made, AT);
  expect(record).toEqual({
    id: made.id,
    ownerKeyId: owner,
    url: 'https://example.com/orders',
    eventTypes: ['order.cancelled', 'order.shipped'],
    state: { status: 'enabled', since: AT.toISOString() },
    createdAt: AT.toISOString(),
    secrets: { current: made.secret },
  });
  expect(await repo.getOwned(owner, made.id)).toEqual(record);
  expect(await repo.listOwned(owner)).toEqual([record]);
  expect(await repo.getOwned(other, made.id)).toBeUndefined();
  expect(await repo.listOwned(other)).toEqual([]);
  expect(await repo.delete(other, made.id, AT)).toBe('not-found');
  expect(await repo.rotateSecret(other, made.id, generateSigningSecret(), AT)).toBeUndefined();
  expect(await repo.getOwned(owner, made.id)).toEqual(record);
});

test('concurrent creates past the cap: exactly the cap succeeds, the rest are TooManyWebhookEndpoints', async () => {
  const owner = newKey();
  const cap = WEBHOOK_LIMITS.endpointsPerKey;
  const outcomes = await Promise.allSettled(
    Array.from({ length: cap + 5 }, (_, n) => repo.create(owner, endpoint(`https://example.com/${n}`), AT)),
  );
  const made = outcomes.filter((o) => o.status === 'fulfilled');
  const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
  expect(made).toHaveLength(cap);
  expect(refused).toHaveLength(5);
  for (const reason of refused) expect(reason).toBeInstanceOf(TooManyWebhookEndpointsError);
  expect(await repo.listOwned(owner)).toHaveLength(cap);
  // A delete frees a slot for the next create.
  const [first] = await repo.listOwned(owner);
  expect(await repo.delete(owner, first?.id ?? '', AT)).toBe('deleted');
  await expect(repo.create(owner, endpoint(), AT)).resolves.toMatchObject({ ownerKeyId: owner });
  await expect(repo.create(owner, endpoint(), AT)).rejects.toThrow(TooManyWebhookEndpointsError);
});

test('a create applied twice (its reply lost, the attempt repeated) is one endpoint', async () => {
  const owner = newKey();
  const made = endpoint();
  await repo.create(owner, made, AT);
  await repo.create(owner, made, AT);
  expect((await repo.listOwned(owner)).map((r) => r.id)).toEqual([made.id]);
});

test('a delete answers deleted, then deleted-before for as long as the id is remembered', async () => {
  const owner = newKey();
  const made = endpoint();
  await repo.create(owner, made, AT);
  expect(await repo.delete(owner, made.id, AT)).toBe('deleted');
  expect(await repo.getOwned(owner, made.id)).toBeUndefined();
  expect(await repo.delete(owner, made.id, AT)).toBe('deleted-before');
  const later = new Date(AT.getTime() + WEBHOOK_LIMITS.deletedRememberedMs);
  expect(await repo.delete(owner, made.id, later)).toBe('not-found');
  expect(await repo.delete(owner, generateEndpointId(), AT)).toBe('not-found');
});

test('a rotation keeps the previous secret for the overlap; repeated, it changes nothing more', async () => {
  const owner = newKey();
  const made = endpoint();
  await repo.create(owner, made, AT);
  const next = generateSigningSecret();
  const rotated = await repo.rotateSecret(owner, made.id, next, AT);
  const expiresAt = new Date(AT.getTime() + WEBHOOK_LIMITS.secretOverlapMs).toISOString();
  expect(rotated?.secrets).toEqual({ current: next, previous: { secret: made.secret, expiresAt } });
  // The same rotation applied again (a lost reply): the previous secret is not overwritten with the new one.
  expect((await repo.rotateSecret(owner, made.id, next, AT))?.secrets).toEqual(rotated?.secrets);
  const third = generateSigningSecret();
  expect((await repo.rotateSecret(owner, made.id, third, AT))?.secrets).toEqual({
    current: third,
    previous: { secret: next, expiresAt },
  });
});

test('the enabled index lists enabled endpoints without secrets; a disabled one leaves it and says why', async () => {
  const owner = newKey();
  const kept = await repo.create(owner, endpoint('https://example.com/kept', ['order.shipped']), AT);
  const gone = await repo.create(owner, endpoint('https://example.com/gone', ['order.created']), AT);
  const enabled = (await repo.listEnabled()).filter((e) => e.ownerKeyId === owner);
  expect(enabled.map((e) => e.id).sort()).toEqual([kept.id, gone.id].sort());
  const ref = enabled.find((e) => e.id === gone.id) as EndpointRef;
  expect(enabled.find((e) => e.id === kept.id)).toEqual({
    id: kept.id,
    ownerKeyId: owner,
    entry: expect.stringMatching(/^slot#\d$/) as unknown,
    url: 'https://example.com/kept',
    eventTypes: ['order.shipped'],
  });
  // What the index holds: keys and the projected attributes, never a secret.
  const { Items } = await tables.doc.send(
    new QueryCommand({
      TableName: tables.names.webhookEndpoints,
      IndexName: WEBHOOK_ENDPOINT_INDEXES.enabled.name,
      KeyConditionExpression: 'enabledKey = :e',
      ExpressionAttributeValues: { ':e': 'enabled' },
    }),
  );
  expect(JSON.stringify(Items)).not.toContain('whsec_');

  const at = new Date(AT.getTime() + 60_000);
  expect(await repo.disable(ref, 'gone', 'HTTP 410 Gone', at)).toBe(true);
  expect(await repo.disable(ref, 'gone', 'HTTP 410 Gone', at)).toBe(false);
  expect((await repo.getOwned(owner, gone.id))?.state).toEqual({
    status: 'disabled',
    since: at.toISOString(),
    reason: 'gone',
    detail: 'HTTP 410 Gone',
  });
  expect((await repo.listEnabled()).filter((e) => e.ownerKeyId === owner).map((e) => e.id)).toEqual([kept.id]);
  expect((await repo.getForDelivery(ref))?.state.status).toBe('disabled');
  // Its slot taken by another endpoint later, the old reference finds nothing.
  await repo.delete(owner, gone.id, at);
  await repo.create(owner, endpoint(), at);
  expect(await repo.getForDelivery(ref)).toBeUndefined();
});

test('the fan-out cache reads the index at most once per its age, and shares a read in flight', async () => {
  let reads = 0;
  let now = 0;
  const cache = new EnabledEndpointsCache(
    async () => {
      reads++;
      return [{ id: 'whe_1', ownerKeyId: 'k', entry: 'slot#0', url: 'https://e.com', eventTypes: ['order.created'] }];
    },
    () => now,
    1000,
  );
  await Promise.all([cache.wanting('order.created'), cache.wanting('order.shipped'), cache.all()]);
  expect(reads).toBe(1);
  expect(await cache.wanting('order.shipped')).toEqual([]);
  now = 999;
  await cache.all();
  expect(reads).toBe(1);
  now = 1000;
  await cache.all();
  expect(reads).toBe(2);
});
