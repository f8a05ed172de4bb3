// listOrders with and without Accept-Encoding, through the local gateway.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { brotliDecompressSync, constants, gunzipSync } from 'node:zlib';
import { parse, isInteger, type LosslessNumber } from 'lossless-json';
import { bearer, type LocalStack } from '../support/local-stack';
import {
  EXTREME_IDS,
  LARGE_LISTING_COUNT as COUNT,
  LARGE_LISTING_KEY_LIMITS as KEY_LIMITS,
  closeLargeListingAfterLastUser,
  largeListingReader,
} from '../support/large-listing';
import { headerOf, rawRequest, type RawResponse } from '../support/raw-http';
import { failingAfterPages, stackListingFrom } from '../support/list-route';

let stack: LocalStack;
let key: string;
// The orders are the jest file's shared large listing (test/support/large-listing.ts), only read here.
beforeAll(async () => {
  ({ stack, key } = await largeListingReader());
});
closeLargeListingAfterLastUser();

const list = (headers: Record<string, string> = {}) =>
  rawRequest(stack.baseUrl, 'GET', '/v1/store/orders', { headers: { ...bearer(key), ...headers } });

let plainListing: Promise<RawResponse> | undefined;
/**
 * The listing without Accept-Encoding, read once for the tests that compare against it: the table
 * does not change in this spec, so every read of it is the same body.
 */
const plainList = () => (plainListing ??= list());

function decoded(response: RawResponse, partial = false): string {
  const coding = headerOf(response, 'content-encoding');
  if (coding === undefined) return response.bytes.toString('utf8');
  if (coding === 'gzip')
    return gunzipSync(response.bytes, partial ? { finishFlush: constants.Z_SYNC_FLUSH } : {}).toString('utf8');
  if (coding === 'br')
    return brotliDecompressSync(
      response.bytes,
      partial ? { finishFlush: constants.BROTLI_OPERATION_FLUSH } : {},
    ).toString('utf8');
  throw new Error(`unexpected coding ${coding}`);
}

/** Each order as its exact JSON digits and fields, sorted, so two bodies compare digit for digit. */
function canonicalOrders(text: string): string[] {
  const parsed = parse(text) as Record<string, unknown>[];
  return parsed
    .map((order) =>
      Object.entries(order)
        .map(
          ([k, v]) =>
            `${k}=${typeof v === 'object' && v !== null && isInteger((v as LosslessNumber).value) ? (v as LosslessNumber).value : String(v)}`,
        )
        .join(' '),
    )
    .sort();
}

test('without Accept-Encoding the body is identity-encoded JSON, as before', async () => {
  const plain = await plainList();
  expect(plain.status).toBe(200);
  expect(plain.complete).toBe(true);
  expect(headerOf(plain, 'content-encoding')).toBeUndefined();
  expect(headerOf(plain, 'vary')).toBe('Accept-Encoding');
  expect(plain.body.startsWith('[{"id":')).toBe(true);
  expect(canonicalOrders(plain.body)).toHaveLength(COUNT);
});

test.each([
  ['gzip', 'gzip'],
  ['br', 'br'],
  ['deflate, gzip, br, zstd', 'br'],
  ['gzip, br;q=0', 'gzip'],
])('Accept-Encoding %p: %p, the same orders digit for digit, int64 ids included', async (accept, coding) => {
  const [plain, compressed] = await Promise.all([plainList(), list({ 'Accept-Encoding': accept })]);
  expect(compressed.status).toBe(200);
  expect(compressed.complete).toBe(true);
  expect(headerOf(compressed, 'content-encoding')).toBe(coding);
  expect(headerOf(compressed, 'vary')).toBe('Accept-Encoding');
  expect(headerOf(compressed, 'content-type')).toBe('application/json');
  expect(headerOf(compressed, 'x-ratelimit-limit')).toBe(String(KEY_LIMITS.perMinute));
  expect(compressed.bytes.length).toBeLessThan(plain.bytes.length / 3);
  const orders = canonicalOrders(decoded(compressed));
  expect(orders).toEqual(canonicalOrders(plain.body));
  for (const id of EXTREME_IDS)
    expect(orders).toContain(
      `id=${id} petId=9223372036854775806 quantity=${EXTREME_IDS.indexOf(id)} shipDate=2026-11-20T10:00:00.000Z complete=true status=shipped`,
    );
});

test('gzip;q=0 and identity-only requests stay uncompressed', async () => {
  for (const accept of ['gzip;q=0', 'identity', '*;q=0']) {
    const response = await list({ 'Accept-Encoding': accept });
    expect(headerOf(response, 'content-encoding')).toBeUndefined();
    expect(canonicalOrders(response.body)).toHaveLength(COUNT);
  }
});

test('curl --compressed and a plain curl return the same orders', async () => {
  const run = promisify(execFile);
  const args = (extra: string[]) => [
    ...extra,
    '-sS',
    '--fail',
    '-H',
    `Authorization: Bearer ${key}`,
    `${stack.baseUrl}/v1/store/orders`,
  ];
  // The compressed run prints the response head before the body (-i): both from one exchange.
  const [included, plain] = await Promise.all([
    run('curl', args(['--compressed', '-i']), { maxBuffer: 64 * 1024 * 1024 }),
    run('curl', args([]), { maxBuffer: 64 * 1024 * 1024 }),
  ]);
  const headEnd = included.stdout.indexOf('\r\n\r\n');
  expect(headEnd).toBeGreaterThan(0);
  const [head, compressed] = [included.stdout.slice(0, headEnd), included.stdout.slice(headEnd + 4)];
  expect(head).toMatch(/^content-encoding: (gzip|br)\r?$/im);
  expect(compressed).toBe(plain.stdout);
  expect(canonicalOrders(compressed)).toHaveLength(COUNT);
});

test('an error before the first byte is an ordinary, uncompressed Error response', async () => {
  const broken = await stackListingFrom(stack, failingAfterPages(stack.app.orders, 0), '/unreadable');
  try {
    const { key: brokenKey } = await broken.newKey('pro');
    const response = await rawRequest(broken.baseUrl, 'GET', '/v1/unreadable', {
      headers: { ...bearer(brokenKey), 'Accept-Encoding': 'gzip, br' },
    });
    expect(response.status).toBe(500);
    expect(response.complete).toBe(true);
    expect(headerOf(response, 'content-encoding')).toBeUndefined();
    expect(JSON.parse(response.body)).toMatchObject({ code: 'INTERNAL_ERROR', status: 500 });
  } finally {
    await broken.close();
  }
});

test.each(['gzip', 'br'])(
  'a %s stream failing mid-way is cut: its text is invalid JSON, never a short array',
  async (coding) => {
    const real = stack.tables.stores().orders;
    const broken = await stackListingFrom(stack, failingAfterPages(real, 3), '/broken');
    try {
      const { key: brokenKey } = await broken.newKey('pro');
      const response = await rawRequest(broken.baseUrl, 'GET', '/v1/broken', {
        headers: { ...bearer(brokenKey), 'Accept-Encoding': coding },
      });
      expect(response.status).toBe(200);
      expect(headerOf(response, 'content-encoding')).toBe(coding);
      expect(response.complete).toBe(false);
      // The pages read before the failure arrived, flushed, but the coding's trailer never did.
      const text = decoded(response, true);
      expect(text.startsWith('[{"id":')).toBe(true);
      expect(text.split('"id":').length - 1).toBe(150);
      expect(() => decoded(response)).toThrow();
      expect(() => JSON.parse(text)).toThrow();
    } finally {
      await broken.close();
    }
  },
);
