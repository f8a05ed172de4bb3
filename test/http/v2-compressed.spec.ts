// GET /v2/store/orders with Accept-Encoding, through the local gateway as API Gateway passes a
// buffered Lambda's base64 body on: bytes for a request whose Accept its binaryMediaTypes cover.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { SyncedOrder } from '../../lib/contract/synced-order';
import { ORDER_STATUSES, type OrderStatus } from '../../lib/contract/order';
import { MAX_CUSTOM_LIMITS } from '../../lib/contract/plans';
import { BUFFERED_ENCODED_VARY, CONTENT_CODINGS, type ContentCoding } from '../../lib/contract/headers';
import { SYNC_PAGE } from '../../lib/contract/sync';
import { V2_BASE_PATH } from '../../lib/contract/routes';
import { bearer, startLocalStack, type LocalStack } from '../support/local-stack';
import { headerOf, rawRequest, type RawResponse } from '../support/raw-http';

let stack: LocalStack;
let key: string;
const COUNT = SYNC_PAGE.maxLimit;
const PAGE = `${V2_BASE_PATH}/store/orders?updatedSince=2026-01-01T00:00:00Z&limit=${COUNT}`;

beforeAll(async () => {
  stack = await startLocalStack();
  ({ key } = await stack.newKey('enterprise', MAX_CUSTOM_LIMITS));
  const orders: SyncedOrder[] = Array.from({ length: COUNT }, (_, i) => ({
    id: String(1_000_003 * (i + 1)),
    petId: String((i * 7_919) % 100_000),
    quantity: 1 + (i % 20),
    shipDate: new Date(Date.UTC(2026, 0, 1) + i * 86_399_000).toISOString(),
    complete: false,
    status: ORDER_STATUSES[i % ORDER_STATUSES.length] as OrderStatus,
    updatedAt: new Date(Date.UTC(2026, 10, 1) + i * 37).toISOString(),
  }));
  await stack.app.orders.putMany(orders);
});
afterAll(() => stack.close());

const get = (headers: Record<string, string>, path = PAGE) =>
  rawRequest(stack.baseUrl, 'GET', path, { headers: { ...bearer(key), ...headers } });

const DECODE: Record<ContentCoding, (bytes: Buffer) => Buffer> = { gzip: gunzipSync, br: brotliDecompressSync };

/** The page's orders, as parsed JSON (the cursor, sealed afresh per request, left out). */
const ordersOf = (text: string): unknown => (JSON.parse(text) as { orders: unknown }).orders;

let plain: RawResponse;
beforeAll(async () => {
  plain = await get({ Accept: 'application/json' });
});

test('without Accept-Encoding a page comes uncompressed, saying it varies', () => {
  expect(plain.status).toBe(200);
  expect(headerOf(plain, 'content-encoding')).toBeUndefined();
  expect(headerOf(plain, 'vary')).toBe(BUFFERED_ENCODED_VARY);
  expect((ordersOf(plain.body) as unknown[]).length).toBe(COUNT);
});

test.each(CONTENT_CODINGS)(
  'with Accept-Encoding: %s the page comes in that coding, the same orders, several times smaller',
  async (coding) => {
    const response = await get({ Accept: 'application/json', 'Accept-Encoding': coding });
    expect(response.status).toBe(200);
    expect(headerOf(response, 'content-encoding')).toBe(coding);
    expect(headerOf(response, 'vary')).toBe(BUFFERED_ENCODED_VARY);
    expect(headerOf(response, 'content-type')).toMatch(/^application\/json/);
    expect(ordersOf(DECODE[coding](response.bytes).toString('utf8'))).toEqual(ordersOf(plain.body));
    expect(response.bytes.length * 3).toBeLessThan(plain.bytes.length);
  },
);

test('the coding follows the q-values, as v1 negotiates', async () => {
  const response = await get({ Accept: '*/*', 'Accept-Encoding': 'br;q=0.5, gzip' });
  expect(headerOf(response, 'content-encoding')).toBe('gzip');
  expect(ordersOf(gunzipSync(response.bytes).toString('utf8'))).toEqual(ordersOf(plain.body));
});

test('without an Accept header the page comes uncompressed, as API Gateway would not decode it for the client', async () => {
  const response = await get({ 'Accept-Encoding': 'gzip, br' });
  expect(response.status).toBe(200);
  expect(headerOf(response, 'content-encoding')).toBeUndefined();
  expect(ordersOf(response.body)).toEqual(ordersOf(plain.body));
});

test('an error stays an uncompressed Error body', async () => {
  const response = await get(
    { Accept: 'application/json', 'Accept-Encoding': 'gzip' },
    `${V2_BASE_PATH}/store/orders?limit=0`,
  );
  expect(response.status).toBe(400);
  expect(headerOf(response, 'content-encoding')).toBeUndefined();
  expect(JSON.parse(response.body)).toMatchObject({ status: 400 });
});
