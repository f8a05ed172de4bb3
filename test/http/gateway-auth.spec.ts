import { generateApiKey } from '../../lib/core/access/key-format';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../../lib/contract/auth';
import { INSUFFICIENT_SCOPE_WWW_AUTHENTICATE } from '../../lib/contract/errors';
import { PLAN_LIMITS, usagePlanBackstop } from '../../lib/contract/plans';
import { RATE_LIMIT_HEADERS } from '../../lib/contract/headers';
import { createApiKey } from '../../lib/stores/key-service';
import { gatewayResponse } from '../../lib/contract/gateway-responses';
import { adminRunner, testTarget } from '../support/admin-harness';
import { rawRequest } from '../support/raw-http';
import { bearer, expectError, startLocalStack, type LocalStack } from '../support/local-stack';

let stack: LocalStack;
let key: string;

beforeAll(async () => {
  stack = await startLocalStack();
  ({ key } = await stack.newKey('pro'));
  await stack.app.orders.putMany([{ id: '1', status: 'pending' }]);
});
afterAll(() => stack.close());

async function expectUnauthorized(headers: Record<string, string>, method = 'GET', path = '/v1/store/orders') {
  const response = await stack.call(method, path, headers);
  expect(response.headers.get('www-authenticate')).toBe('Bearer');
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    expect(response.headers.get(name)).toBeNull();
  }
  await expectError(response, 401, 'UNAUTHORIZED');
}

function withBadChecksum(valid: string): string {
  const last = valid.at(-1) === 'A' ? 'B' : 'A';
  return valid.slice(0, -1) + last;
}

test.each<[string, () => Record<string, string>]>([
  ['missing header', () => ({})],
  ['another scheme', () => ({ Authorization: `Basic ${key}` })],
  ['empty token', () => ({ Authorization: 'Bearer ' })],
  ['scheme only', () => ({ Authorization: 'Bearer' })],
  ['bad checksum', () => bearer(withBadChecksum(key))],
  ['unknown well-formed key', () => bearer(generateApiKey())],
  ['garbage', () => bearer('not-a-key')],
  ['key in another header', () => ({ 'X-Api-Key': key })],
])('401 UNAUTHORIZED with WWW-Authenticate and no rate-limit headers: %s', async (_, headers) => {
  await expectUnauthorized(headers());
  await expectUnauthorized(headers(), 'DELETE', '/v1/store/orders/1');
  expect((await stack.app.orders.get('1'))?.status).toBe('pending');
});

test('the scheme word is case-insensitive', async () => {
  for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
    const response = await stack.call('GET', '/v1/store/orders', { Authorization: `${scheme} ${key}` });
    expect(response.status).toBe(200);
  }
});

test('a revoked key stops working once the authorizer cache expires', async () => {
  const { key: doomed, id } = await stack.newKey('free');
  expect((await stack.call('GET', '/v1/store/orders', bearer(doomed))).status).toBe(200);
  await stack.app.keys.revoke(id, new Date(stack.clock.now()));
  stack.clock.advance(AUTHORIZER_CACHE_TTL_SECONDS * 1000 + 1);
  await expectUnauthorized(bearer(doomed));
  // Other keys are unaffected.
  expect((await stack.call('GET', '/v1/store/orders', bearer(key))).status).toBe(200);
});

describe('keys revoke', () => {
  /** One request on each route, v1 and v2 (each stage caches its own authorizations). */
  const everyRoute: [string, string][] = [
    ['GET', '/v1/store/orders'],
    ['DELETE', '/v1/store/orders/1'],
    ['GET', '/v1/pets/1'],
    ['GET', '/v2/store/orders'],
  ];
  const admin = () => adminRunner(() => testTarget(stack.tables), { now: () => new Date(stack.clock.now()) });
  const dayCount = async (id: string) => (await stack.app.limiter.read(id, stack.clock.now()))?.day ?? 0;

  test("refuses the key's next request on every route, 401 as the authorizer's, while API Gateway's cache still holds its authorization; nothing is counted or changed", async () => {
    await stack.app.orders.putMany([{ id: '1', status: 'pending' }]);
    const { key: doomed, id } = await stack.newKey('free');
    // A key whose record alone is revoked (no mark) shows what the cache does: it is served.
    const { key: cachedOnly, id: cachedId } = await stack.newKey('free');
    // Authorized, and cached, on both stages (a cached Allow covers every route of its stage).
    for (const path of ['/v1/store/orders', '/v2/store/orders']) {
      for (const key of [doomed, cachedOnly]) expect((await stack.call('GET', path, bearer(key))).status).toBe(200);
    }
    const counted = await dayCount(id);

    const run = await admin()('keys', 'revoke', id);
    expect(run).toMatchObject({ code: 0 });
    expect(run.stdout).toContain('Its next request is refused with 401.');
    await stack.app.keys.revoke(cachedId, new Date(stack.clock.now()));

    // The clock has not moved: every authorization is still in the gateway's cache.
    expect((await stack.call('GET', '/v1/store/orders', bearer(cachedOnly))).status).toBe(200);
    for (const [method, path] of everyRoute) await expectUnauthorized(bearer(doomed), method, path);
    expect(await dayCount(id)).toBe(counted);
    expect((await stack.app.orders.get('1'))?.status).toBe('pending');
    // Once the cache time has passed the authorizer refuses both itself.
    stack.clock.advance(AUTHORIZER_CACHE_TTL_SECONDS * 1000 + 1);
    await expectUnauthorized(bearer(doomed));
    await expectUnauthorized(bearer(cachedOnly));
  });

  test('a revoke a moment before midnight UTC still refuses the cached key after midnight, on the new day', async () => {
    stack.clock.set(Date.parse('2026-11-24T23:59:40.000Z'));
    const { key: doomed, id } = await stack.newKey('free');
    expect((await stack.call('GET', '/v1/store/orders', bearer(doomed))).status).toBe(200);
    expect((await admin()('keys', 'revoke', id)).code).toBe(0);
    stack.clock.advance(AUTHORIZER_CACHE_TTL_SECONDS * 1000 - 1_000);
    await expectUnauthorized(bearer(doomed));
    expect(await dayCount(id)).toBe(0);
  });
});

test("a flood of a read-only key's refused writes meets its usage plan's throttle (429 RATE_LIMITED from the gateway), while its reads go on to the limiter", async () => {
  const throttle = usagePlanBackstop('free').throttle;
  if (!throttle) throw new Error('the free plan has a usage-plan throttle');
  const { key: reader, record } = await createApiKey(stack.app.keys, { plan: 'free', scope: 'read' });
  await stack.app.orders.putMany([{ id: '3', status: 'pending' }]);
  // Raw: the usage plan's 429 (API Gateway's THROTTLED response) carries no rate-limit headers, and
  // the OpenAPI document, which requires them on every 429, does not describe it.
  const deleteOnce = () => rawRequest(stack.baseUrl, 'DELETE', '/v1/store/orders/3', { headers: bearer(reader) });
  // The bucket holds the burst: that many refusals are the policy's 403.
  for (let i = 0; i < throttle.burstLimit; i++) expect((await deleteOnce()).status).toBe(403);
  const throttled = await deleteOnce();
  expect(throttled.headers['retry-after']).toBe('1');
  expect(throttled.headers[RATE_LIMIT_HEADERS.limit.toLowerCase()]).toBeUndefined();
  expect(throttled.status).toBe(429);
  expect(JSON.parse(throttled.body)).toEqual(JSON.parse(gatewayResponse('THROTTLED').body));
  // Its reads are the service limiter's to judge: served, and the only requests it counted.
  const read = await stack.call('GET', '/v1/store/orders', bearer(reader));
  expect(read.status).toBe(200);
  expect(read.headers.get(RATE_LIMIT_HEADERS.remaining)).toBe(String(PLAN_LIMITS.free.perMinute - 1));
  expect((await stack.app.limiter.read(record.id, stack.clock.now()))?.day).toBe(1);
  // The bucket refills at its rate: a second gives that many more refusals, then the throttle again.
  stack.clock.advance(1_000);
  for (let i = 0; i < throttle.rateLimit; i++) expect((await deleteOnce()).status).toBe(403);
  expect((await deleteOnce()).status).toBe(429);
  expect((await stack.app.orders.get('3'))?.status).toBe('pending');
});

test('a cached Allow covers every route, not just the first one used', async () => {
  const { key: fresh } = await stack.newKey('business');
  expect((await stack.call('GET', '/v1/store/orders', bearer(fresh))).status).toBe(200);
  expect((await stack.call('DELETE', '/v1/store/orders/1', bearer(fresh))).status).toBe(204);
});

test("a read-only key's GET works; its cancel is 403 INSUFFICIENT_SCOPE, changes nothing and uses none of its limits", async () => {
  const { key: reader } = await createApiKey(stack.app.keys, { plan: 'free', scope: 'read' });
  await stack.app.orders.putMany([{ id: '2', status: 'pending' }]);
  const remaining = async (): Promise<number> => {
    const response = await stack.call('GET', '/v1/store/orders', bearer(reader));
    expect(response.status).toBe(200);
    return Number(response.headers.get(RATE_LIMIT_HEADERS.remaining));
  };
  expect(await remaining()).toBe(PLAN_LIMITS.free.perMinute - 1);

  // The second call comes from the authorizer cache: the cached policy refuses it too.
  for (let i = 0; i < 2; i++) {
    const refused = await stack.call('DELETE', '/v1/store/orders/2', bearer(reader));
    expect(refused.headers.get('www-authenticate')).toBe(INSUFFICIENT_SCOPE_WWW_AUTHENTICATE);
    expect(refused.headers.get(RATE_LIMIT_HEADERS.limit)).toBeNull();
    await expectError(refused, 403, 'INSUFFICIENT_SCOPE');
  }
  expect((await stack.app.orders.get('2'))?.status).toBe('pending');
  // Refused at the gateway, before the limiter: the next GET has used one more request, not three.
  expect(await remaining()).toBe(PLAN_LIMITS.free.perMinute - 2);
  // A full key can still cancel the same order.
  expect((await stack.call('DELETE', '/v1/store/orders/2', bearer(key))).status).toBe(204);
  expect((await stack.app.orders.get('2'))?.status).toBe('cancelled');
});
