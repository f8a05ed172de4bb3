import { generateApiKey } from '../../lib/core/key-format';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../../lib/contract/auth';
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

test('a cached Allow covers every route, not just the first one used', async () => {
  const { key: fresh } = await stack.newKey('business');
  expect((await stack.call('GET', '/v1/store/orders', bearer(fresh))).status).toBe(200);
  expect((await stack.call('DELETE', '/v1/store/orders/1', bearer(fresh))).status).toBe(204);
});
