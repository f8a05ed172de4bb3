// Black box: the webhook endpoint routes over HTTP on the local stack (issue 45). Every answer is
// checked against the v2 OpenAPI document by the stack's `call`.
import { Webhook } from 'standardwebhooks';
import { createApiKey } from '../../lib/stores/key-service';
import { MAX_CUSTOM_LIMITS } from '../../lib/contract/plans';
import { RATE_LIMIT_HEADERS } from '../../lib/contract/headers';
import { V2_BASE_PATH, WEBHOOK_ENDPOINTS_PATH } from '../../lib/contract/routes';
import {
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_LIMITS,
  webhookEvent,
  webhookEventId,
  webhookEventJson,
  type WebhookEndpointView,
} from '../../lib/contract/webhooks';
import { signedHeaders } from '../../lib/core/webhooks/signature';
import { DEPLOYED_RULES } from '../../lib/core/webhooks/url-rules';
import { systemResolver } from '../../lib/stores/webhook-destinations';
import { bearer, expectError, startLocalStack, type LocalStack } from '../support/local-stack';

const ENDPOINTS = `${V2_BASE_PATH}${WEBHOOK_ENDPOINTS_PATH}`;
type Created = WebhookEndpointView & { secret: string };

/** Names an injected resolver answers, as an attacker's DNS could. */
const ATTACKER_DNS: Record<string, string[]> = {
  'hooks.example.com': ['93.184.216.34'],
  'metadata.attacker.example': ['169.254.169.254'],
  'private.attacker.example': ['93.184.216.34', '10.20.30.40'],
  'loopback.attacker.example': ['127.0.0.1'],
};

/** The names above as the test's DNS answers them; any other (localhost) through the system's resolver. */
const resolve = async (host: string): Promise<readonly string[]> => ATTACKER_DNS[host] ?? systemResolver(host);

let local: LocalStack;
let deployed: LocalStack;

beforeAll(async () => {
  // The local stack as `npm start` runs it (loopback allowed), and one with the deployed rules.
  [local, deployed] = await Promise.all([
    startLocalStack({ webhookDestinations: { resolve } }),
    startLocalStack({ webhookDestinations: { rules: DEPLOYED_RULES, resolve } }),
  ]);
});
afterAll(() => Promise.all([local?.close(), deployed?.close()]));

async function keyOf(stack: LocalStack, scope: 'full' | 'read' = 'full'): Promise<string> {
  const { key } = await createApiKey(stack.app.keys, { plan: 'enterprise', limits: MAX_CUSTOM_LIMITS, scope });
  return key;
}

const json = { 'Content-Type': 'application/json' };
const create = (stack: LocalStack, key: string, body: unknown, headers: Record<string, string> = json) =>
  stack.call('POST', ENDPOINTS, { ...bearer(key), ...headers }, typeof body === 'string' ? body : JSON.stringify(body));

test('an endpoint is created with its secret shown once, listed, read, rotated and deleted (twice: 204 both times)', async () => {
  const key = await keyOf(local);
  const created = await create(local, key, { url: 'https://hooks.example.com/orders', eventTypes: ['order.shipped'] });
  expect(created.status).toBe(201);
  expect(created.headers.get('cache-control')).toBe('no-store');
  expect(created.headers.get(RATE_LIMIT_HEADERS.remaining)).not.toBeNull();
  const endpoint = (await created.json()) as Created;
  expect(endpoint).toEqual({
    id: expect.stringMatching(/^whe_[0-9a-f]{24}$/) as unknown,
    url: 'https://hooks.example.com/orders',
    eventTypes: ['order.shipped'],
    status: 'enabled',
    statusSince: new Date(local.clock.now()).toISOString(),
    createdAt: new Date(local.clock.now()).toISOString(),
    secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) as unknown,
  });
  // The secret shown verifies what our signer signs, in the receivers' package.
  const order = { id: '9223372036854775807', status: 'shipped' as const, updatedAt: '2026-12-01T09:00:00.000Z' };
  const body = webhookEventJson(webhookEvent('order.shipped', order));
  const headers = signedHeaders(
    [endpoint.secret],
    webhookEventId(order.id, order.updatedAt, 'order.shipped'),
    Math.floor(Date.now() / 1000),
    body,
  );
  expect(new Webhook(endpoint.secret).verify(body, headers)).toMatchObject({ type: 'order.shipped' });

  const { secret: _secret, ...shown } = endpoint;
  const listed = await local.call('GET', ENDPOINTS, bearer(key));
  expect(listed.status).toBe(200);
  expect(await listed.json()).toEqual({ endpoints: [shown] });
  const read = await local.call('GET', `${ENDPOINTS}/${endpoint.id}`, bearer(key));
  expect(await read.json()).toEqual(shown);
  expect(JSON.stringify(shown)).not.toContain('whsec_');

  local.clock.advance(60_000);
  const rotated = await local.call('POST', `${ENDPOINTS}/${endpoint.id}/rotate-secret`, bearer(key));
  expect(rotated.status).toBe(201);
  const next = (await rotated.json()) as Created;
  expect(next.secret).not.toBe(endpoint.secret);
  expect(next.previousSecretExpiresAt).toBe(new Date(local.clock.now() + WEBHOOK_LIMITS.secretOverlapMs).toISOString());
  const { secret: _next, ...afterRotation } = next;
  expect(await (await local.call('GET', `${ENDPOINTS}/${endpoint.id}`, bearer(key))).json()).toEqual(afterRotation);

  for (let attempt = 0; attempt < 2; attempt++) {
    const deleted = await local.call('DELETE', `${ENDPOINTS}/${endpoint.id}`, bearer(key));
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
  }
  await expectError(
    await local.call('GET', `${ENDPOINTS}/${endpoint.id}`, bearer(key)),
    404,
    'WEBHOOK_ENDPOINT_NOT_FOUND',
  );
  expect(await (await local.call('GET', ENDPOINTS, bearer(key))).json()).toEqual({ endpoints: [] });
});

test('without eventTypes an endpoint receives every type; the local stack takes an http loopback URL', async () => {
  const key = await keyOf(local);
  const created = await create(local, key, { url: 'http://127.0.0.1:4000/hooks' });
  expect(created.status).toBe(201);
  expect(((await created.json()) as Created).eventTypes).toEqual([...WEBHOOK_EVENT_TYPES]);
  expect((await create(local, key, { url: 'http://localhost:4000/hooks' })).status).toBe(201);
});

test("a read-only key may list and read, never create, rotate or delete: the gateway's 403, nothing changed", async () => {
  const [owner, reader] = [await keyOf(local), await keyOf(local, 'read')];
  const made = (await (await create(local, owner, { url: 'https://hooks.example.com/r' })).json()) as Created;
  expect(await (await local.call('GET', ENDPOINTS, bearer(reader))).json()).toEqual({ endpoints: [] });
  await expectError(await create(local, reader, { url: 'https://hooks.example.com/r' }), 403, 'INSUFFICIENT_SCOPE');
  await expectError(await local.call('DELETE', `${ENDPOINTS}/${made.id}`, bearer(reader)), 403, 'INSUFFICIENT_SCOPE');
  await expectError(
    await local.call('POST', `${ENDPOINTS}/${made.id}/rotate-secret`, bearer(reader)),
    403,
    'INSUFFICIENT_SCOPE',
  );
  expect((await local.call('GET', `${ENDPOINTS}/${made.id}`, bearer(owner))).status).toBe(200);
});

test("another key's endpoint is not found by any route, and left as it was", async () => {
  const [owner, other] = [await keyOf(local), await keyOf(local)];
  const made = (await (await create(local, owner, { url: 'https://hooks.example.com/o' })).json()) as Created;
  for (const [method, path] of [
    ['GET', `${ENDPOINTS}/${made.id}`],
    ['DELETE', `${ENDPOINTS}/${made.id}`],
    ['POST', `${ENDPOINTS}/${made.id}/rotate-secret`],
  ] as const)
    await expectError(await local.call(method, path, bearer(other)), 404, 'WEBHOOK_ENDPOINT_NOT_FOUND');
  expect(await (await local.call('GET', ENDPOINTS, bearer(other))).json()).toEqual({ endpoints: [] });
  const { secret: _secret, ...shown } = made;
  expect(await (await local.call('GET', `${ENDPOINTS}/${made.id}`, bearer(owner))).json()).toEqual(shown);
  // An id that cannot be one: not found, as an unknown one.
  await expectError(
    await local.call('GET', `${ENDPOINTS}/not-an-id`, bearer(owner)),
    404,
    'WEBHOOK_ENDPOINT_NOT_FOUND',
  );
});

test('a key has at most its cap of endpoints, created at once or one by one', async () => {
  const key = await keyOf(local);
  const cap = WEBHOOK_LIMITS.endpointsPerKey;
  const answers = await Promise.all(
    Array.from({ length: cap + 3 }, (_, n) => create(local, key, { url: `https://hooks.example.com/${n}` })),
  );
  expect(answers.filter((a) => a.status === 201)).toHaveLength(cap);
  const refused = answers.filter((a) => a.status !== 201);
  expect(refused).toHaveLength(3);
  for (const answer of refused) {
    const error = await expectError(answer, 409, 'TOO_MANY_WEBHOOK_ENDPOINTS');
    expect(error.message).toContain(`already has ${cap} webhook endpoints`);
  }
  expect(
    ((await (await local.call('GET', ENDPOINTS, bearer(key))).json()) as { endpoints: unknown[] }).endpoints,
  ).toHaveLength(cap);
});

test.each([
  ['no body', undefined, 'The request needs a JSON body'],
  ['not JSON', 'url=https://hooks.example.com', 'The body is not JSON'],
  ['an array', '[]', 'The body must be a JSON object, not an array'],
  ['no url', '{}', 'url is required'],
  ['a url of the wrong type', '{"url":["https://hooks.example.com"]}', 'url must be a string, not an array'],
  ['an unknown field', '{"url":"https://hooks.example.com","secret":"mine"}', 'Unknown field "secret"'],
  ['a URL that is not one', '{"url":"hooks.example.com/x"}', 'is not an absolute URL'],
  [
    'a URL too long',
    JSON.stringify({ url: `https://hooks.example.com/${'a'.repeat(2100)}` }),
    'url is longer than 2048',
  ],
  [
    'eventTypes of the wrong type',
    '{"url":"https://hooks.example.com","eventTypes":"order.created"}',
    'eventTypes must be an array',
  ],
  ['no event type', '{"url":"https://hooks.example.com","eventTypes":[]}', 'at least one event type'],
  [
    'an unknown event type',
    '{"url":"https://hooks.example.com","eventTypes":["order.paid"]}',
    'unknown event type "order.paid"',
  ],
  [
    'a type twice',
    '{"url":"https://hooks.example.com","eventTypes":["order.shipped","order.shipped"]}',
    'order.shipped twice',
  ],
  [
    'too many event types',
    JSON.stringify({ url: 'https://hooks.example.com', eventTypes: [...WEBHOOK_EVENT_TYPES, WEBHOOK_EVENT_TYPES[0]] }),
    'at most 4 event types',
  ],
  [
    'a body over the limit',
    JSON.stringify({ url: 'https://hooks.example.com', pad: 'x'.repeat(WEBHOOK_LIMITS.requestBodyMaxBytes) }),
    `at most ${WEBHOOK_LIMITS.requestBodyMaxBytes} are read`,
  ],
])('%s is 400 INVALID_WEBHOOK_ENDPOINT, saying what is wrong, and creates nothing', async (_what, body, message) => {
  const key = await keyOf(local);
  const answer = await local.call('POST', ENDPOINTS, { ...bearer(key), ...json }, body);
  const error = await expectError(answer, 400, 'INVALID_WEBHOOK_ENDPOINT');
  expect(error.message).toContain(message);
  expect(answer.headers.get(RATE_LIMIT_HEADERS.remaining)).not.toBeNull();
  expect(await (await local.call('GET', ENDPOINTS, bearer(key))).json()).toEqual({ endpoints: [] });
});

test('a body sent without a JSON Content-Type is read all the same', async () => {
  const key = await keyOf(local);
  const answer = await create(local, key, { url: 'https://hooks.example.com/t' }, { 'Content-Type': 'text/plain' });
  expect(answer.status).toBe(201);
});

describe('with the deployed rules (outside the local stack)', () => {
  test.each([
    ['http://127.0.0.1:4000/h', 'url must be https'],
    ['https://127.0.0.1:4000/h', '127.0.0.1 is a loopback address'],
    ['https://localhost:4000/h', 'is a loopback address ("localhost" resolves to it)'],
    ['https://169.254.169.254/latest/meta-data/', '169.254.169.254 is the cloud metadata address'],
    ['https://[fd00:ec2::254]/', 'fd00:ec2::254 is the cloud metadata address'],
    ['https://10.1.2.3/h', '10.1.2.3 is a private address'],
    ['https://0x0a.1.2.3/h', '10.1.2.3 is a private address'],
    ['https://[::ffff:10.1.2.3]/h', 'is a private address'],
    [
      'https://metadata.attacker.example/h',
      '169.254.169.254 is the cloud metadata address ("metadata.attacker.example" resolves to it)',
    ],
    [
      'https://private.attacker.example/h',
      '10.20.30.40 is a private address ("private.attacker.example" resolves to it)',
    ],
    ['https://loopback.attacker.example/h', '127.0.0.1 is a loopback address'],
    ['https://user:secret@hooks.example.com/h', 'must not carry a user name or password'],
  ])('%s is 400 WEBHOOK_URL_REFUSED: %s', async (url, why) => {
    const key = await keyOf(deployed);
    const error = await expectError(await create(deployed, key, { url }), 400, 'WEBHOOK_URL_REFUSED');
    expect(error.message).toContain(why);
    expect(await (await deployed.call('GET', ENDPOINTS, bearer(key))).json()).toEqual({ endpoints: [] });
  });

  test('a host that resolves to public addresses only is accepted', async () => {
    const key = await keyOf(deployed);
    expect((await create(deployed, key, { url: 'https://hooks.example.com/in' })).status).toBe(201);
  });
});
