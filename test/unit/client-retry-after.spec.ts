// Retry-After as RFC 9110 defines it (delta-seconds or an HTTP-date), and what the client waits for
// each value: never a burst of immediate retries, whatever the header says.
import { errorJson } from '../../lib/contract/errors';
import { StoreOrdersApiError, StoreOrdersClient } from '../../client/client';
import { parseRetryAfter } from '../../client/retry-after';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);

/** The waits of a client that sees 503 with this Retry-After on every attempt (3 retries). */
async function waitsFor(retryAfter: string): Promise<{ sleeps: number[]; told: number | undefined }> {
  const sleeps: number[] = [];
  const api = new StoreOrdersClient({
    baseUrl: 'http://api.test/v1',
    apiKey: 'k',
    fetch: async () =>
      new Response(errorJson('SERVICE_UNAVAILABLE'), { status: 503, headers: { 'Retry-After': retryAfter } }),
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 1 - Number.EPSILON,
    now: () => NOW,
  });
  const error = await api.listOrders().catch((e: unknown) => e);
  expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  return { sleeps, told: (error as StoreOrdersApiError).retryAfterSeconds };
}

/** The full-jitter backoff of the default policy at the top of its range: what no Retry-After gets. */
const BACKOFF = [199, 399, 799];

test('Retry-After: 0 waits the backoff floor (baseDelayMs, 200 ms) each time, never 0', async () => {
  expect(await waitsFor('0')).toEqual({ sleeps: [200, 200, 200], told: 0 });
});

test('an HTTP-date already past waits the floor too', async () => {
  expect(await waitsFor('Mon, 23 Nov 2026 11:59:00 GMT')).toEqual({ sleeps: [200, 200, 200], told: 0 });
});

test.each([['1.5'], ['-5'], ['+5'], ['5 s'], ['1e3'], ['0x10'], ['soon'], [''], ['Infinity']])(
  'Retry-After %p is not a Retry-After: the client backs off on its own',
  async (value) => {
    expect(await waitsFor(value)).toEqual({ sleeps: BACKOFF, told: undefined });
  },
);

test('an IMF-fixdate 30 s ahead waits 30 s, and the error says so', async () => {
  expect(await waitsFor('Mon, 23 Nov 2026 12:00:30 GMT')).toEqual({ sleeps: [30_000, 30_000, 30_000], told: 30 });
});

test.each<[string, number | undefined]>([
  ['0', 0],
  ['7', 7],
  [' 7 ', 7],
  ['007', 7],
  ['99999999999999999999999', 2 ** 31 - 1],
  ['1.5', undefined],
  ['-5', undefined],
  ['1,5', undefined],
  ['5a', undefined],
  ['', undefined],
  // IMF-fixdate, and the two obsolete forms a recipient must still accept, all in GMT.
  ['Mon, 23 Nov 2026 12:01:00 GMT', 60],
  ['Monday, 23-Nov-26 12:01:00 GMT', 60],
  ['Mon Nov 23 12:01:00 2026', 60],
  ['Mon Nov  3 12:00:00 2026', 0],
  ['Sun, 06 Nov 1994 08:49:37 GMT', 0],
  // Not HTTP-dates, although Date.parse reads them.
  ['Mon, 23 Nov 2026 12:01:00 UTC', undefined],
  ['Mon, 23 Nov 2026 12:01:00 +0000', undefined],
  ['2026-11-23T12:01:00Z', undefined],
  ['23 Nov 2026 12:01:00 GMT', undefined],
  ['mon, 23 nov 2026 12:01:00 gmt', undefined],
  // Days and times that do not exist.
  ['Thu, 31 Feb 2026 12:00:00 GMT', undefined],
  ['Mon, 23 Nov 2026 24:00:00 GMT', undefined],
  ['Mon, 23 Nov 2026 12:60:00 GMT', undefined],
])('parseRetryAfter(%p) is %p seconds', (value, seconds) => {
  expect(parseRetryAfter(value, NOW)).toBe(seconds);
});

test('an rfc850 date with a two-digit year more than 50 years ahead is read as the last century', () => {
  expect(parseRetryAfter('Sunday, 06-Nov-94 08:49:37 GMT', NOW)).toBe(0);
  expect(parseRetryAfter('Friday, 06-Nov-76 08:49:37 GMT', NOW)).toBeGreaterThan(0);
});

test('no header is no Retry-After', () => {
  expect(parseRetryAfter(null, NOW)).toBeUndefined();
});
