// Black-box: what a client of the local stack sees over HTTP for the two order operations.

import { bearer, expectError, startLocalStack, type LocalStack } from '../support/local-stack';
import { ordersById } from '../support/orders-table';

let stack: LocalStack;
let key: string;

const BIG = '9223372036854775807';

beforeAll(async () => {
  stack = await startLocalStack();
  ({ key } = await stack.newKey('enterprise', { perMinute: 10_000, perDay: 100_000 }));
  await stack.app.orders.putMany([
    { id: '1', petId: '11', quantity: 2, shipDate: '2026-11-20T10:00:00.000Z', complete: false, status: 'pending' },
    { id: '2', status: 'shipped', complete: true },
    { id: '3', status: 'cancelled' },
    { id: BIG, petId: '9223372036854775806', status: 'pending' },
    { id: '9007199254740992', status: 'pending' },
    { id: '9007199254740993', status: 'pending' },
  ]);
});
afterAll(() => stack.close());

const status = async (id: string) => (await stack.app.orders.get(id))?.status;

describe('GET /v1/store/orders', () => {
  test('200 with every order, int64 ids as exact JSON integers, absent fields left out', async () => {
    const response = await stack.call('GET', '/v1/store/orders', bearer(key));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const text = await response.text();
    expect(text).toContain(`{"id":${BIG},"petId":9223372036854775806,"status":"pending"}`);
    expect(text).toContain('{"id":9007199254740993,"status":"pending"}');
    expect(text).toContain('{"id":9007199254740992,"status":"pending"}');
    const orders = JSON.parse(text) as { id: number; status: string }[];
    expect(orders).toHaveLength(6);
    expect(orders.map((o) => o.status).sort()).toEqual([
      'cancelled',
      'pending',
      'pending',
      'pending',
      'pending',
      'shipped',
    ]);
    expect(orders).toContainEqual({
      id: 1,
      petId: 11,
      quantity: 2,
      shipDate: '2026-11-20T10:00:00.000Z',
      complete: false,
      status: 'pending',
    });
  });
});

describe('DELETE /v1/store/orders/{orderId}', () => {
  test('204 with no body cancels a pending order; a retried cancel is 204 again', async () => {
    const first = await stack.call('DELETE', '/v1/store/orders/1', bearer(key));
    expect(first.status).toBe(204);
    expect(await first.text()).toBe('');
    expect(await status('1')).toBe('cancelled');
    const again = await stack.call('DELETE', '/v1/store/orders/1', bearer(key));
    expect(again.status).toBe(204);
    expect(await status('1')).toBe('cancelled');
  });

  test('an already cancelled order is 204', async () => {
    expect((await stack.call('DELETE', '/v1/store/orders/3', bearer(key))).status).toBe(204);
  });

  test('409 ORDER_ALREADY_SHIPPED leaves a shipped order unchanged', async () => {
    await expectError(await stack.call('DELETE', '/v1/store/orders/2', bearer(key)), 409, 'ORDER_ALREADY_SHIPPED');
    expect(await stack.app.orders.get('2')).toEqual({ id: '2', status: 'shipped', complete: true });
  });

  test('404 ORDER_NOT_FOUND creates nothing', async () => {
    await expectError(await stack.call('DELETE', '/v1/store/orders/424242', bearer(key)), 404, 'ORDER_NOT_FOUND');
    expect(await stack.app.orders.get('424242')).toBeUndefined();
  });

  test('the largest int64 can be cancelled by its exact id', async () => {
    expect((await stack.call('DELETE', `/v1/store/orders/${BIG}`, bearer(key))).status).toBe(204);
    expect(await status(BIG)).toBe('cancelled');
  });

  test('2^53+1 cancels only itself, never 2^53', async () => {
    expect((await stack.call('DELETE', '/v1/store/orders/9007199254740993', bearer(key))).status).toBe(204);
    expect(await status('9007199254740993')).toBe('cancelled');
    expect(await status('9007199254740992')).toBe('pending');
  });

  test.each(['abc', '1.5', '1e3', '9223372036854775808', '99999999999999999999', '%20', '-', '0x1'])(
    '400 INVALID_ORDER_ID for %j, and nothing is read or written',
    async (raw) => {
      // The table read past the API, ids exact (a listing's JSON numbers would round those past 2^53).
      const before = await ordersById(stack.tables);
      await expectError(await stack.call('DELETE', `/v1/store/orders/${raw}`, bearer(key)), 400, 'INVALID_ORDER_ID');
      expect(await ordersById(stack.tables)).toEqual(before);
    },
  );
});

describe('routing', () => {
  test('404 NOT_FOUND for unknown paths, inside and outside the version prefixes', async () => {
    await expectError(await stack.call('GET', '/v1/store/pets', bearer(key)), 404, 'NOT_FOUND');
    await expectError(await stack.call('GET', '/store/orders', bearer(key)), 404, 'NOT_FOUND');
    await expectError(await stack.call('GET', '/v3/store/orders', bearer(key)), 404, 'NOT_FOUND');
    await expectError(await stack.call('GET', '/v1/store/orders/1/items'), 404, 'NOT_FOUND');
  });

  test('405 METHOD_NOT_ALLOWED for a wrong method, with Allow', async () => {
    const post = await stack.call('POST', '/v1/store/orders', bearer(key));
    expect(post.headers.get('allow')).toBe('GET');
    await expectError(post, 405, 'METHOD_NOT_ALLOWED');
    await expectError(await stack.call('GET', '/v1/store/orders/1', bearer(key)), 405, 'METHOD_NOT_ALLOWED');
    expect(await status('2')).toBe('shipped');
  });
});

test('50 parallel cancels racing a ship leave one consistent state', async () => {
  for (let round = 0; round < 5; round++) {
    const id = String(5000 + round);
    await stack.app.orders.putMany([{ id, status: 'pending' }]);
    const cancels = Array.from({ length: 50 }, () => stack.call('DELETE', `/v1/store/orders/${id}`, bearer(key)));
    const ship = stack.app.orders.ship(id).then(
      () => 'shipped' as const,
      () => 'refused' as const,
    );
    const statuses = await Promise.all(cancels.map((c) => c.then((r) => r.status)));
    const shipOutcome = await ship;
    const final = await status(id);
    if (shipOutcome === 'shipped') {
      // Cancels that ran before the ship succeeded would have blocked it: none did.
      expect(final).toBe('shipped');
      expect(statuses.every((s) => s === 409)).toBe(true);
    } else {
      expect(final).toBe('cancelled');
      expect(statuses.every((s) => s === 204)).toBe(true);
    }
  }
});
