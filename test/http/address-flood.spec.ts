// A flood of refused keys from one client address, through the local stack: the web ACL's limit
// per address (lib/contract/address-limit.ts, as tools/local/address-limit.ts emulates AWS WAF's
// rate-based rule) cuts it off from WAF's next check on, answering its Error body before the
// authorizer or a handler runs (no DynamoDB call), while another address is served as ever. The
// second address is a loopback address of its own (Linux answers all of 127.0.0.0/8); the clock
// is the stack's, moved by hand. The limit is WAF's lowest, so a flood is a few dozen requests.
import { generateApiKey } from '../../lib/core/access/key-format';
import { ADDRESS_LIMIT, ADDRESS_LIMITED_ANSWER, WAF_RATE_RULE } from '../../lib/contract/address-limit';
import { adminRunner, testTarget } from '../support/admin-harness';
import { testEndpoint } from '../support/dynamo';
import { responseProblems } from '../support/documented-response';
import { startProxiedStack, type ProxiedStack } from '../support/proxied-stack';
import { headerOf, type RawResponse } from '../support/raw-http';

const LIMIT = { ...ADDRESS_LIMIT, limit: WAF_RATE_RULE.minLimit };
const CHECK_MS = WAF_RATE_RULE.delaySeconds * 1000;
const FLOODER = '127.0.0.2';
const CLIENT = '127.0.0.1';
const ORDERS = '/v1/store/orders';

let stack: ProxiedStack;
let served: string;
let revoked: string;

beforeAll(async () => {
  stack = await startProxiedStack(testEndpoint(), { addressLimit: LIMIT });
  served = await stack.newKey('free');
  const admin = adminRunner(() => testTarget(stack.tables), { now: () => new Date(stack.clock.now()) });
  const created = await admin('keys', 'create', '--plan', 'free', '--json');
  ({ key: revoked } = JSON.parse(created.stdout) as { key: string });
  await stack.orders.putMany([{ id: '1', status: 'pending' }]);
  // The revoked key's Allow is in the gateway's cache, as in the flood reported: each of its
  // requests reaches a handler, whose limiter write refuses it.
  expect((await stack.request('GET', ORDERS, revoked, FLOODER)).status).toBe(200);
  const { id } = JSON.parse(created.stdout) as { id: string };
  expect((await admin('keys', 'revoke', id)).code).toBe(0);
});
afterAll(() => stack.close());

/** The flood's next `n` requests, in turn the revoked key on v1 and a random well-formed key on v1 and v2. */
function flood(n: number): Promise<RawResponse[]> {
  const sent: Promise<RawResponse>[] = [];
  for (let i = 0; i < n; i++) {
    const [path, key] = [
      [ORDERS, revoked],
      [ORDERS, generateApiKey()],
      ['/v2/store/orders', generateApiKey()],
    ][i % 3] as [string, string];
    sent.push(stack.request('GET', path, key, FLOODER));
  }
  return Promise.all(sent);
}

function expectAddressLimited(responses: RawResponse[]): void {
  for (const response of responses) {
    expect(responseProblems(response)).toEqual([]);
    expect(response.status).toBe(429);
    expect(JSON.parse(response.body)).toMatchObject({ code: ADDRESS_LIMITED_ANSWER.code, status: 429 });
    expect(headerOf(response, 'retry-after')).toBe(ADDRESS_LIMITED_ANSWER.headers['Retry-After']);
  }
}

test('a flood of refused keys from one address is cut off at the next check, with no DynamoDB call; another address is served throughout', async () => {
  const t0 = stack.clock.now();
  expect(t0 % CHECK_MS).toBe(0);

  // Over the limit before WAF's next check: still let through, each refused by the authorizer or
  // the limiter, each a DynamoDB call or more.
  stack.proxy.resetStats();
  const before = await flood(LIMIT.limit + 5);
  expect(before.map((r) => r.status)).toEqual(before.map(() => 401));
  expect(stack.proxy.calls().length).toBeGreaterThanOrEqual(before.length);

  // From the check on, every request of that address is answered by the web ACL, on v1 and v2
  // alike, and nothing behind it runs.
  stack.clock.set(t0 + CHECK_MS);
  stack.proxy.resetStats();
  const cut = await flood(LIMIT.limit + 5);
  expectAddressLimited(cut);
  expect(stack.proxy.calls()).toEqual([]);

  // Meanwhile another address is served as ever, its request counted by the limiter.
  const other = await stack.request('GET', ORDERS, served, CLIENT);
  expect(responseProblems(other)).toEqual([]);
  expect(other.status).toBe(200);
  expect(headerOf(other, 'x-ratelimit-remaining')).toBeDefined();
  expect(stack.proxy.calls().length).toBeGreaterThan(0);

  // The blocked requests count too: a minute after the first flood, the second still holds the
  // address over the limit.
  stack.clock.set(t0 + 3 * CHECK_MS);
  stack.proxy.resetStats();
  expectAddressLimited(await flood(1));
  expect(stack.proxy.calls()).toEqual([]);

  // Once a check finds the window under the limit (no later than Retry-After after the last
  // request), the address reaches the gateway again: its refused key is refused, not blocked.
  stack.clock.set(t0 + 3 * CHECK_MS + Number(ADDRESS_LIMITED_ANSWER.headers['Retry-After']) * 1000);
  const again = await stack.request('GET', ORDERS, revoked, FLOODER);
  expect(again.status).toBe(401);
  expect(responseProblems(again)).toEqual([]);
});
