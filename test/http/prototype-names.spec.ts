// Query and header names that are also the names of an object's inherited members (issue 44: each
// answered 500 in the local stack, whose event builder pushed onto a plain object's `constructor`).
// API Gateway passes them to the function as ordinary keys of the event's JSON; v2 refuses an
// unknown parameter, v1's listing takes no parameters and ignores them, and a header is a header.
import { MAX_CUSTOM_LIMITS } from '../../lib/contract/plans';
import { BASE_PATH, V2_BASE_PATH } from '../../lib/contract/routes';
import { rawRequest } from '../support/raw-http';
import { bearer, expectError, startLocalStack, type LocalStack } from '../support/local-stack';

const NAMES = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'] as const;

let stack: LocalStack;
let key: string;
beforeAll(async () => {
  stack = await startLocalStack();
  ({ key } = await stack.newKey('enterprise', MAX_CUSTOM_LIMITS));
});
afterAll(() => stack.close());

/** A GET with one more header; Object.fromEntries makes `__proto__` an own key, so it is sent. */
async function withHeader(path: string, name: string): Promise<{ status: number; body: unknown }> {
  const headers = Object.fromEntries([...Object.entries(bearer(key)), [name, '1']]);
  const response = await rawRequest(stack.baseUrl, 'GET', path, { headers });
  return { status: response.status, body: JSON.parse(response.body) as unknown };
}

test.each(NAMES)('GET /v2/store/orders?%s=1 is 400 INVALID_QUERY naming the parameter', async (name) => {
  const body = await expectError(
    await stack.call('GET', `${V2_BASE_PATH}/store/orders?${name}=1`, bearer(key)),
    400,
    'INVALID_QUERY',
  );
  expect(body.message.startsWith(`${name}: unknown parameter`)).toBe(true);
});

test.each(NAMES)('GET /v1/store/orders?%s=1 lists the orders as without it (v1 takes no parameters)', async (name) => {
  const response = await stack.call('GET', `${BASE_PATH}/store/orders?${name}=1`, bearer(key));
  expect(response.status).toBe(200);
  expect(Array.isArray(await response.json())).toBe(true);
});

test.each(NAMES)('a header named %s is an ordinary header on v1 and v2', async (name) => {
  const v1 = await withHeader(`${BASE_PATH}/store/orders`, name);
  expect(v1).toEqual({ status: 200, body: expect.any(Array) });
  const v2 = await withHeader(`${V2_BASE_PATH}/store/orders`, name);
  expect(v2).toEqual({ status: 200, body: expect.objectContaining({ orders: expect.any(Array) }) });
});
