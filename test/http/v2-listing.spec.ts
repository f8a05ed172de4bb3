// Black-box: GET /v2/store/orders over HTTP on the local stack, clause by clause of issue 27's interface.
import { randomBytes } from 'node:crypto';
import type { SyncedOrder } from '../../lib/contract/synced-order';
import { ORDER_STATUSES, type OrderStatus } from '../../lib/contract/order';
import { MAX_CUSTOM_LIMITS } from '../../lib/contract/plans';
import { RATE_LIMIT_HEADERS } from '../../lib/contract/headers';
import { SYNC_PAGE, SYNC_PARAMETERS } from '../../lib/contract/sync';
import { V2_BASE_PATH } from '../../lib/contract/routes';
import { sealCursor } from '../../lib/core/sync/cursor';
import { docsRoutes } from '../../tools/local/docs-routes';
import { bearer, expectError, startLocalStack, type LocalStack } from '../support/local-stack';

const LIST = `${V2_BASE_PATH}/store/orders`;
let stack: LocalStack;
let key: string;
/** Every order in the store, as the test wrote it. */
const seeded: SyncedOrder[] = [];
const MINUTE = 60_000;
const T0 = Date.UTC(2026, 10, 1);
const at = (minutes: number) => new Date(T0 + minutes * MINUTE).toISOString();

beforeAll(async () => {
  stack = await startLocalStack({ publicRoutes: docsRoutes() });
  ({ key } = await stack.newKey('enterprise', MAX_CUSTOM_LIMITS));
  // 40 orders, updatedAt shuffled against id, some sharing a millisecond, ids of both signs.
  for (let i = 0; i < 40; i++) {
    const id = String(i % 5 === 0 ? -i - 1 : i * 1_000_003);
    const status = ORDER_STATUSES[i % ORDER_STATUSES.length] as OrderStatus;
    seeded.push({ id, status, updatedAt: at((i * 7) % 23) });
  }
  await stack.app.orders.putMany(seeded);
});
afterAll(() => stack.close());

interface Page {
  orders: SyncedOrder[];
  departed?: SyncedOrder[];
  nextCursor?: string;
}

async function get(query: string): Promise<Response> {
  return stack.call('GET', `${LIST}${query ? `?${query}` : ''}`, bearer(key));
}

async function page(query: string): Promise<{ response: Response; body: Page }> {
  const response = await get(query);
  expect(response.status).toBe(200);
  const body = (await response.json()) as Page;
  // ids come as JSON integers (int64); these are all below 2^53, so a number holds them exactly.
  const exact = (orders: SyncedOrder[]) => orders.map((o) => ({ ...o, id: String(o.id) }));
  const departed = body.departed ? { departed: exact(body.departed) } : {};
  return { response, body: { ...body, orders: exact(body.orders), ...departed } };
}

/** Follows `Link: rel="next"` from the first page to the last; every page is checked on the way. */
async function walk(
  query: string,
  limit: number,
): Promise<{ orders: SyncedOrder[]; departed: SyncedOrder[]; pages: number; departedPages: number }> {
  const orders: SyncedOrder[] = [];
  const departed: SyncedOrder[] = [];
  let target: string | undefined = `${LIST}?${query}${query ? '&' : ''}limit=${limit}`;
  let pages = 0;
  let departedPages = 0;
  while (target !== undefined) {
    const { response, body } = await page(target.slice(LIST.length + 1));
    pages++;
    expect(body.orders.length + (body.departed?.length ?? 0)).toBeLessThanOrEqual(limit);
    orders.push(...body.orders);
    if (body.departed) departedPages++;
    departed.push(...(body.departed ?? []));
    const link = response.headers.get('link');
    if (body.nextCursor === undefined) {
      expect(link).toBeNull();
      target = undefined;
    } else {
      const ref = /^<([^>]*)>; rel="next"$/.exec(link ?? '')?.[1];
      expect(ref).toBeDefined();
      const next: URL = new URL(ref ?? '', `http://host${target}`);
      expect(next.pathname).toBe(LIST);
      expect(next.searchParams.get(SYNC_PARAMETERS.cursor)).toBe(body.nextCursor);
      target = `${next.pathname}${next.search}`;
    }
  }
  return { orders, departed, pages, departedPages };
}

const ids = (orders: readonly SyncedOrder[]) => orders.map((o) => o.id);
const byChange = (a: SyncedOrder, b: SyncedOrder) =>
  (a.updatedAt ?? '').localeCompare(b.updatedAt ?? '') || Number(BigInt(a.id) - BigInt(b.id));

test('an unfiltered walk with a small limit returns every order exactly once, each with its updatedAt', async () => {
  const { orders, pages } = await walk('', 3);
  expect(pages).toBeGreaterThan(seeded.length / 3);
  expect(ids(orders).sort()).toEqual(ids(seeded).sort());
  expect(new Set(ids(orders)).size).toBe(orders.length);
  const want = new Map(seeded.map((o) => [o.id, o]));
  for (const order of orders) expect(order).toEqual(want.get(order.id));
});

describe('filters return exactly the matching orders, in ascending updatedAt', () => {
  const since = at(11);
  const cases: [string, string, (o: SyncedOrder) => boolean][] = [
    ...ORDER_STATUSES.map((s): [string, string, (o: SyncedOrder) => boolean] => [
      `status=${s}`,
      `status=${s}`,
      (o) => o.status === s,
    ]),
    ['updatedSince', `updatedSince=${encodeURIComponent(since)}`, (o) => (o.updatedAt ?? '') >= since],
    [
      'status and updatedSince',
      `status=pending&updatedSince=${encodeURIComponent(since)}`,
      (o) => o.status === 'pending' && (o.updatedAt ?? '') >= since,
    ],
  ];
  test.each(cases)('%s', async (_name, query, matches) => {
    const expected = seeded.filter(matches).sort(byChange);
    expect(expected.length).toBeGreaterThan(3);
    const { orders } = await walk(query, 4);
    expect(ids(orders)).toEqual(ids(expected));
  });

  test('status and updatedSince: the orders changed since that are now outside the status are departed', async () => {
    // walk() checks that a page's orders and departed orders together are at most its limit.
    const { departed } = await walk(`status=pending&updatedSince=${encodeURIComponent(since)}`, 4);
    const changed = seeded.filter((o) => (o.updatedAt ?? '') >= since).sort(byChange);
    expect(ids(departed)).toEqual(ids(changed.filter((o) => o.status !== 'pending')));
    expect(departed.length).toBeGreaterThan(3);
    // Departed orders come whole, as they are now.
    const want = new Map(seeded.map((o) => [o.id, o]));
    for (const order of departed) expect(order).toEqual(want.get(order.id));
  });

  test.each([
    ['status', 'status=pending'],
    ['updatedSince', `updatedSince=${encodeURIComponent(since)}`],
    ['no filter', ''],
  ])('a walk with %s alone lists no departed', async (_name, query) => {
    const { departedPages } = await walk(query, 4);
    expect(departedPages).toBe(0);
  });

  test('updatedSince in another offset means the same instant', async () => {
    const { orders } = await walk(`updatedSince=${encodeURIComponent('2026-11-01T01:11:00+01:00')}`, 50);
    expect(ids(orders)).toEqual(ids(seeded.filter((o) => (o.updatedAt ?? '') >= since).sort(byChange)));
  });
});

test('a cancel over v1 moves the order to the time of the cancel; v1 answers still carry no updatedAt', async () => {
  const pending = seeded.find((o) => o.status === 'pending');
  if (!pending) throw new Error('no pending order seeded');
  stack.clock.advance(MINUTE);
  expect((await stack.call('DELETE', `/v1/store/orders/${pending.id}`, bearer(key))).status).toBe(204);
  const cancelled = new Date(stack.clock.now()).toISOString();
  const { body } = await page(`updatedSince=${encodeURIComponent(cancelled)}`);
  // The walk asked from the cancel's own instant, later than what has settled: the watermark is
  // what has settled, earlier than the walk asked from, never the instant it asked from.
  const watermark = new Date(stack.clock.now() - stack.app.settleMs).toISOString();
  expect(body).toEqual({ orders: [{ id: pending.id, status: 'cancelled', updatedAt: cancelled }], watermark });
  const v1 = await stack.call('GET', '/v1/store/orders', bearer(key));
  expect(await v1.text()).not.toContain('updatedAt');
  // Put it back as it was for the other tests.
  await stack.app.orders.putMany([pending]);
});

test('every page carries the rate-limit headers and counts as one request', async () => {
  const first = await get('limit=1');
  const second = await get('limit=1');
  for (const response of [first, second])
    for (const header of Object.values(RATE_LIMIT_HEADERS)) expect(response.headers.get(header)).not.toBeNull();
  const remaining = (r: Response) => Number(r.headers.get(RATE_LIMIT_HEADERS.remaining));
  expect(remaining(first) - remaining(second)).toBe(1);
});

test('the default page is SYNC_PAGE.defaultLimit orders', async () => {
  const { body } = await page('');
  expect(body.orders).toHaveLength(Math.min(SYNC_PAGE.defaultLimit, seeded.length));
});

describe('400 INVALID_QUERY names the parameter', () => {
  test.each([
    [`limit=${SYNC_PAGE.minLimit - 1}`, 'limit'],
    [`limit=${SYNC_PAGE.maxLimit + 1}`, 'limit'],
    ['limit=ten', 'limit'],
    ['limit=2.5', 'limit'],
    ['limit=', 'limit'],
    ['limit=5&limit=6', 'limit'],
    ['status=lost', 'status'],
    ['status=PENDING', 'status'],
    ['updatedSince=yesterday', 'updatedSince'],
    ['updatedSince=2026-02-30T00:00:00Z', 'updatedSince'],
    ['updatedSince=2026-11-01', 'updatedSince'],
    ['updatedSince=2026-11-01T25:00:00Z', 'updatedSince'],
    ['sort=updatedAt', 'sort'],
    ['cursor=', 'cursor'],
  ])('%s', async (query, parameter) => {
    const body = await expectError(await get(query), 400, 'INVALID_QUERY');
    expect(body.message.startsWith(`${parameter}:`)).toBe(true);
  });

  test('an offset sent with an unencoded + is told to send it as %2B', async () => {
    const body = await expectError(await get('updatedSince=2026-11-01T01:11:00+01:00'), 400, 'INVALID_QUERY');
    expect(body.message).toContain('%2B');
    const encoded = await get(`updatedSince=${encodeURIComponent('2026-11-01T01:11:00+01:00')}`);
    expect(encoded.status).toBe(200);
  });

  test('a date-time without a space is not given the %2B hint', async () => {
    const body = await expectError(await get('updatedSince=yesterday'), 400, 'INVALID_QUERY');
    expect(body.message).not.toContain('%2B');
  });
});

describe('400 INVALID_CURSOR', () => {
  let pendingCursor: string;
  beforeAll(async () => {
    const { body } = await page('status=pending&limit=2');
    if (!body.nextCursor) throw new Error('expected a next page');
    pendingCursor = body.nextCursor;
  });

  test('the same cursor with its own filters, or none, reads on', async () => {
    for (const query of ['', '&status=pending']) {
      const { body } = await page(`cursor=${encodeURIComponent(pendingCursor)}${query}`);
      expect(body.orders.length).toBeGreaterThan(0);
      for (const order of body.orders) expect(order.status).toBe('pending');
    }
  });

  test.each([
    ['used with another status', () => `cursor=${encodeURIComponent(pendingCursor)}&status=shipped`],
    [
      'used with an added filter',
      () => `cursor=${encodeURIComponent(pendingCursor)}&updatedSince=2026-11-01T00:00:00Z`,
    ],
    [
      'with its content altered',
      () => {
        const [payload = '', tag = ''] = pendingCursor.split('.');
        const json = Buffer.from(payload, 'base64url').toString().replace('"pending"', '"shipped"');
        return `cursor=${encodeURIComponent(`${Buffer.from(json).toString('base64url')}.${tag}`)}`;
      },
    ],
    [
      'sealed with another key',
      () =>
        `cursor=${encodeURIComponent(sealCursor({ filters: {}, position: { kind: 'scan', after: '1' }, started: Date.now() }, { current: randomBytes(32) }))}`,
    ],
    ['that is not a cursor at all', () => 'cursor=hello'],
  ])('%s', async (_name, query) => {
    await expectError(await get(query()), 400, 'INVALID_CURSOR');
  });
});

test('a filtered page is Queries on the index, never a Scan; an unfiltered page is one Scan', async () => {
  const commands: string[] = [];
  stack.app.dynamo.middlewareStack.add(
    (next, context) => async (args) => {
      commands.push(context.commandName ?? '');
      return next(args);
    },
    { step: 'initialize', name: 'countCommands' },
  );
  try {
    const since = `updatedSince=${encodeURIComponent(at(3))}`;
    for (const query of ['status=shipped&limit=5', `${since}&limit=5`, `status=pending&${since}&limit=5`]) {
      commands.length = 0;
      await page(query);
      expect(commands.filter((c) => c === 'ScanCommand')).toEqual([]);
      expect(commands).toContain('QueryCommand');
    }
    commands.length = 0;
    await page('limit=5');
    expect(commands.filter((c) => c === 'ScanCommand')).toEqual(['ScanCommand']);
  } finally {
    stack.app.dynamo.middlewareStack.remove('countCommands');
  }
});

test('the v2 OpenAPI document is served at /v2/openapi.json, marked beta', async () => {
  const response = await fetch(`${stack.baseUrl}${V2_BASE_PATH}/openapi.json`);
  expect(response.status).toBe(200);
  const document = (await response.json()) as {
    info: Record<string, unknown>;
    paths: Record<string, Record<string, Record<string, unknown>>>;
  };
  expect(document.info['x-stability']).toBe('beta');
  expect(document.paths['/store/orders']?.get?.['x-stability']).toBe('beta');
});
