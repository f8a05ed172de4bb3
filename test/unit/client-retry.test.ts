import { errorJson, type ErrorCode } from '../../lib/contract/errors';
import { StoreOrdersClient } from '../../client/client';
import { retryDelayMs } from '../../client/retry';

/** Retry rules with a scripted fetch: what is retried, how long it waits, and when it stops. */
type Step = { status: number; code?: ErrorCode; headers?: Record<string, string> } | 'network';

function scripted(steps: Step[], options: { maxRetries?: number; random?: () => number } = {}) {
  const calls: string[] = [];
  const sleeps: number[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    calls.push(`${init?.method} ${String(input)}`);
    const step = steps[Math.min(calls.length - 1, steps.length - 1)] as Step;
    if (step === 'network') throw new TypeError('fetch failed');
    const body = step.code ? errorJson(step.code) : step.status === 200 ? '[]' : null;
    return new Response(body, { status: step.status, headers: step.headers ?? {} });
  };
  const api = new StoreOrdersClient({
    baseUrl: 'http://api.test/v1/',
    apiKey: 'k',
    fetch: fetchFn,
    sleep: async (ms) => void sleeps.push(ms),
    random: options.random ?? (() => 1 - Number.EPSILON),
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
  });
  return { api, calls, sleeps };
}

test('5xx without Retry-After backs off exponentially with full jitter, then succeeds', async () => {
  const { api, calls, sleeps } = scripted([{ status: 500, code: 'INTERNAL_ERROR' }, { status: 502 }, { status: 200 }], { random: () => 0.5 });
  await expect(api.listOrders()).resolves.toEqual([]);
  expect(calls).toEqual(['GET http://api.test/v1/store/orders', 'GET http://api.test/v1/store/orders', 'GET http://api.test/v1/store/orders']);
  expect(sleeps).toEqual([100, 200]);
});

test('503 with Retry-After waits exactly that long', async () => {
  const { api, sleeps } = scripted([{ status: 503, code: 'SERVICE_UNAVAILABLE', headers: { 'Retry-After': '2' } }, { status: 204 }]);
  await api.cancelOrder(5n);
  expect(sleeps).toEqual([2000]);
});

test('retries are bounded: after maxRetries the last error is thrown', async () => {
  const { api, calls, sleeps } = scripted([{ status: 429, code: 'RATE_LIMITED', headers: { 'Retry-After': '1' } }], { maxRetries: 2 });
  await expect(api.listOrders()).rejects.toMatchObject({ code: 'RATE_LIMITED', status: 429, retryAfterSeconds: 1 });
  expect(calls).toHaveLength(3);
  expect(sleeps).toEqual([1000, 1000]);
});

test('a Retry-After past the limit (a daily quota, a ban) is returned to the caller at once', async () => {
  const { api, calls } = scripted([{ status: 429, code: 'KEY_TEMPORARILY_BANNED', headers: { 'Retry-After': '900' } }]);
  await expect(api.listOrders()).rejects.toMatchObject({ code: 'KEY_TEMPORARILY_BANNED', retryAfterSeconds: 900 });
  expect(calls).toHaveLength(1);
});

test.each<[number, ErrorCode]>([
  [400, 'INVALID_ORDER_ID'],
  [401, 'UNAUTHORIZED'],
  [404, 'ORDER_NOT_FOUND'],
  [409, 'ORDER_ALREADY_SHIPPED'],
])('%i is never retried', async (status, code) => {
  const { api, calls } = scripted([{ status, code }, { status: 204 }]);
  await expect(api.cancelOrder('5')).rejects.toMatchObject({ code, status });
  expect(calls).toHaveLength(1);
});

test('a lost connection is retried (both operations are idempotent)', async () => {
  const { api, calls } = scripted(['network', { status: 200 }]);
  await expect(api.listOrders()).resolves.toEqual([]);
  expect(calls).toHaveLength(2);
});

test('a body that is not an Error record is UNEXPECTED_RESPONSE', async () => {
  const { api } = scripted([{ status: 418 }]);
  await expect(api.listOrders()).rejects.toMatchObject({ code: 'UNEXPECTED_RESPONSE', status: 418 });
});

test('the backoff ceiling doubles up to maxDelayMs and the wait is uniform below it', () => {
  const policy = { maxRetries: 10, baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 60_000 };
  const top = () => 0.999999;
  expect([0, 1, 2, 3, 4, 5].map((attempt) => retryDelayMs(policy, attempt, undefined, top))).toEqual([99, 199, 399, 799, 999, 999]);
  expect(retryDelayMs(policy, 3, undefined, () => 0)).toBe(0);
  expect(retryDelayMs(policy, 10, undefined, top)).toBeUndefined();
});
