// Arbitrary orderIds and Authorization headers over HTTP: never a 500, always the documented
// answer, and only the one order an exact canonical id names can change.

import fc from 'fast-check';
import { generateApiKey } from '../../lib/core/access/key-format';
import { canonicalInt64, type Order } from '../../lib/contract/order';
import { errorCodeOf, responseProblems } from '../support/documented-response';
import { startLocalStack, type LocalStack } from '../support/local-stack';
import { ordersById } from '../support/orders-table';
import { rawRequest, type RawResponse } from '../support/raw-http';
import {
  authorizationHeader,
  decodedId,
  idSegment,
  isAuthorized,
  isDotSegment,
  pathSegmentOf,
  type IdSegment,
} from '../support/request-arbitraries';

const SEEDS: Order[] = [
  { id: '0', status: 'pending' },
  { id: '1', status: 'pending', petId: '11', quantity: 2, shipDate: '2026-11-20T10:00:00.000Z', complete: false },
  { id: '-1', status: 'pending' },
  { id: '42', status: 'shipped', complete: true },
  { id: '7', status: 'cancelled' },
  { id: '9007199254740992', status: 'pending' },
  { id: '9007199254740993', status: 'pending' },
  { id: '9223372036854775807', status: 'pending' },
  { id: '-9223372036854775808', status: 'pending' },
];

let stack: LocalStack;
let key: string;
let revoked: string;

beforeAll(async () => {
  stack = await startLocalStack();
  ({ key } = await stack.newKey('enterprise', { perMinute: 1_000_000, perDay: 10_000_000 }));
  const gone = await stack.newKey('pro');
  await stack.app.keys.revoke(gone.id, new Date());
  revoked = gone.key;
});
afterAll(() => stack.close());

interface Expected {
  statuses: number[];
  /** The order that ends cancelled, if any. */
  cancels?: string;
}

/** The one answer decisions.md gives for this request, from the model of the table. */
function expected(method: string, id: IdSegment, authorized: boolean, model: Map<string, Order>): Expected {
  // `.`/`..` make the path another resource: a route the gateway refuses one way or another.
  if (isDotSegment(pathSegmentOf(id))) return { statuses: [400, 401, 404, 405] };
  // An empty id leaves a trailing slash, which names the list resource, as API Gateway matches it.
  if (pathSegmentOf(id) === '') return { statuses: method !== 'GET' ? [405] : authorized ? [200] : [401] };
  if (method !== 'DELETE') return { statuses: [405] };
  if (!authorized) return { statuses: [401] };
  const canonical = canonicalInt64(decodedId(id));
  if (canonical === undefined || canonical !== decodedId(id)) return { statuses: [400] };
  const order = model.get(canonical);
  if (!order) return { statuses: [404] };
  if (order.status === 'shipped') return { statuses: [409] };
  return { statuses: [204], cancels: canonical };
}

/** The code each refusal must carry when the model names one answer. */
const CODES: Record<number, string> = {
  400: 'INVALID_ORDER_ID',
  401: 'UNAUTHORIZED',
  404: 'ORDER_NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'ORDER_ALREADY_SHIPPED',
};

function describeRequest(method: string, path: string, header: string | undefined, response: RawResponse): string {
  return `${method} ${path} Authorization=${JSON.stringify(header)} -> ${response.status} ${response.body}`;
}

/** The seeds the last run of the cancel property may have changed in the table. */
let changed: readonly Order[] = SEEDS;

test('any orderId with any Authorization header: the documented answer, never a 500, no other order touched', async () => {
  const request = fc.record({
    method: fc.constantFrom('DELETE', 'DELETE', 'DELETE', 'DELETE', 'DELETE', 'DELETE', 'GET', 'POST', 'PUT', 'PATCH'),
    id: idSegment(SEEDS.map((o) => o.id)),
    header: authorizationHeader({ valid: key, others: [revoked, generateApiKey()] }),
  });
  await fc.assert(
    fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 3 }), async (requests) => {
      // Each run starts from SEEDS: what the last run changed is put back, or every seed when it did
      // not end with the table checked equal to its model.
      await stack.app.orders.putMany(changed);
      changed = SEEDS;
      const model = new Map(SEEDS.map((o) => [o.id, { ...o }]));
      for (const { method, id, header } of requests) {
        const path = `/v1/store/orders/${pathSegmentOf(id)}`;
        const response = await rawRequest(
          stack.baseUrl,
          method,
          path,
          header === undefined ? {} : { headers: { Authorization: header } },
        );
        // Each assertion carries the request, so a failure (and its shrunk case) reads on its own.
        const what = describeRequest(method, path, header, response);
        expect([what, ...responseProblems(response)]).toEqual([what]);
        const want = expected(method, id, isAuthorized(header, key), model);
        expect([what, want.statuses.includes(response.status)]).toEqual([what, true]);
        if (want.statuses.length === 1 && response.status >= 400)
          expect([what, errorCodeOf(response)]).toEqual([what, CODES[response.status]]);
        const cancelled = want.cancels === undefined ? undefined : model.get(want.cancels);
        if (cancelled) cancelled.status = 'cancelled';
      }
      expect(await ordersById(stack.tables)).toEqual(model);
      changed = SEEDS.filter((seed) => model.get(seed.id)?.status !== seed.status);
    }),
    { numRuns: 120 },
  );
}, 60_000);

test('the list route, by any method with any Authorization header: every order, or the documented refusal', async () => {
  await stack.app.orders.putMany(SEEDS);
  const everyOrder = [...(await ordersById(stack.tables)).keys()].sort();
  const request = fc.record({
    method: fc.constantFrom('GET', 'GET', 'GET', 'DELETE', 'POST', 'PUT', 'PATCH'),
    header: authorizationHeader({ valid: key, others: [revoked, generateApiKey()] }),
  });
  await fc.assert(
    fc.asyncProperty(request, async ({ method, header }) => {
      const response = await rawRequest(
        stack.baseUrl,
        method,
        '/v1/store/orders',
        header === undefined ? {} : { headers: { Authorization: header } },
      );
      const what = describeRequest(method, '/v1/store/orders', header, response);
      expect([what, ...responseProblems(response)]).toEqual([what]);
      const want = method !== 'GET' ? 405 : isAuthorized(header, key) ? 200 : 401;
      expect([what, response.status]).toEqual([what, want]);
      // Exact digits: JSON.parse would round the int64 ids.
      if (want === 200)
        expect([...response.body.matchAll(/"id":(-?\d+)/g)].map((m) => m[1]).sort()).toEqual(everyOrder);
    }),
    { numRuns: 60 },
  );
}, 60_000);
