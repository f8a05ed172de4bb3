// listOrders as a stream: what a client receives while the table is still being read.

import { request } from 'node:http';
import { invokeStreamedToResponse } from '../../tools/local/invoke';
import { buildProxyEvent, lambdaContext } from '../../tools/local/proxy-event';
import { routeByOperation } from '../../lib/contract/routes';
import { callerContext } from '../../lib/core/access/caller';
import { PLAN_LIMITS } from '../../lib/contract/plans';
import { composeService } from '../../lib/root/service';
import { bearer, type LocalStack } from '../support/local-stack';
import {
  LARGE_LISTING_COUNT as COUNT,
  LARGE_LISTING_KEY_LIMITS as KEY_LIMITS,
  closeLargeListingAfterLastUser,
  largeListingReader,
} from '../support/large-listing';
import { failingAfterPages, stackListingFrom } from '../support/list-route';
import { ordersJsonPage } from '../../lib/core/orders/orders-json';

let stack: LocalStack;
let key: string;
// The orders are the jest file's shared large listing (test/support/large-listing.ts), only read here.
beforeAll(async () => {
  ({ stack, key } = await largeListingReader());
});
closeLargeListingAfterLastUser();

/** Raw HTTP, to see the framing and whether the body ended cleanly. */
function rawGet(baseUrl: string, path: string, headers: Record<string, string>) {
  return new Promise<{
    status: number;
    headers: Record<string, string | string[] | undefined>;
    body: string;
    complete: boolean;
    chunks: number;
  }>((resolve) => {
    const req = request(`${baseUrl}${path}`, { headers }, (res) => {
      let body = '';
      let chunks = 0;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        chunks++;
      });
      const finish = (complete: boolean) =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, complete, chunks });
      res.on('end', () => finish(res.complete));
      res.on('error', () => finish(false));
      res.on('aborted', () => finish(false));
    });
    req.end();
  });
}

test('the head and the first page reach the client while the table is still being read', async () => {
  // The second page waits until the client has the first: a buffered answer would never arrive.
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const gated = {
    cancel: async () => undefined,
    async *listingPages() {
      yield ordersJsonPage([{ id: '1', status: 'pending' as const }]);
      await gate;
      yield ordersJsonPage([{ id: '2', status: 'shipped' as const }]);
    },
  };
  const local = await stackListingFrom(stack, gated, '/gated');
  try {
    const { key: gatedKey } = await local.newKey('pro');
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${local.baseUrl}/v1/gated`, { headers: bearer(gatedKey) }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          if (text.includes('"id":1')) release();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
    expect(JSON.parse(body)).toEqual([
      { id: 1, status: 'pending' },
      { id: 2, status: 'shipped' },
    ]);
  } finally {
    await local.close();
  }
});

test('a large list arrives chunked, as valid JSON holding every order exactly once, with the rate-limit headers', async () => {
  const response = await rawGet(stack.baseUrl, '/v1/store/orders', bearer(key));
  expect(response.status).toBe(200);
  expect(response.complete).toBe(true);
  expect(response.headers['transfer-encoding']).toBe('chunked');
  expect(response.headers['content-type']).toBe('application/json');
  expect(response.headers['x-ratelimit-limit']).toBe(String(KEY_LIMITS.perMinute));
  expect(response.headers['x-ratelimit-remaining']).toBe(String(KEY_LIMITS.perMinute - 1));
  const ids = (JSON.parse(response.body.replace(/"id":(-?\d+)/g, '"id":"$1"')) as { id: string }[]).map((o) => o.id);
  expect(ids).toHaveLength(COUNT);
  expect(new Set(ids).size).toBe(COUNT);
  expect(ids).toContain('9007199254740993');
});

test('parallel scan segments give the same orders', async () => {
  const handler = composeService({
    endpoint: stack.tables.endpoint,
    tables: stack.tables.names,
    now: stack.clock.now,
    listing: { scan: { segments: 4, pageSize: 100 } },
  }).listOrders;
  const event = buildProxyEvent({
    route: routeByOperation('listOrders'),
    authorizer: {
      principalId: 'key_segments',
      context: callerContext({ keyId: 'key_segments', plan: 'enterprise', limits: { perMinute: 10, perDay: 10 } }),
    },
  });
  const response = await invokeStreamedToResponse(handler, event, lambdaContext('list-orders'));
  expect(response.statusCode).toBe(200);
  const orders = JSON.parse(response.body.replace(/"id":(-?\d+)/g, '"id":"$1"')) as { id: string }[];
  expect(new Set(orders.map((o) => o.id)).size).toBe(COUNT);
  expect(orders).toHaveLength(COUNT);
});

test('a failure after the first byte cuts the stream: invalid JSON, never a silently short array', async () => {
  const real = stack.tables.stores().orders;
  const broken = await stackListingFrom(stack, failingAfterPages(real, 3), '/broken');
  try {
    const { key: brokenKey } = await broken.newKey('pro');
    const response = await rawGet(broken.baseUrl, '/v1/broken', bearer(brokenKey));
    expect(response.status).toBe(200);
    expect(response.headers['x-ratelimit-limit']).toBe(
      String(Math.min(PLAN_LIMITS.pro.perMinute, PLAN_LIMITS.pro.perDay)),
    );
    expect(response.complete).toBe(false);
    expect(response.body.startsWith('[')).toBe(true);
    expect(response.body.length).toBeGreaterThan(1);
    expect(() => JSON.parse(response.body)).toThrow();
  } finally {
    await broken.close();
  }
});

test('a client that hangs up before the first byte does not take the local stack down', async () => {
  let reached!: () => void;
  const scanStarted = new Promise<void>((resolve) => (reached = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const slow = {
    cancel: async () => undefined,
    async *listingPages() {
      reached();
      await gate;
      yield ordersJsonPage([{ id: '1', status: 'pending' as const }]);
    },
  };
  const local = await stackListingFrom(stack, slow, '/slow');
  try {
    const { key: slowKey } = await local.newKey('pro');
    const req = request(`${local.baseUrl}/v1/slow`, { headers: bearer(slowKey) });
    req.on('error', () => undefined);
    req.end();
    await scanStarted;
    req.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const after = await local.call('GET', '/v1/store/orders', bearer(slowKey));
    expect(after.status).toBe(200);
  } finally {
    await local.close();
  }
});
