import { createServer } from 'node:net';
import { errorJson, type ErrorCode } from '../../lib/contract/errors';
import { StoreOrdersApiError, StoreOrdersClient, type RetryEvent } from '../../client/client';
import { retryDelayMs } from '../../client/retry';

/**
 * The client's own rules with a scripted fetch: the id check, what is retried, how long it waits,
 * what the caller is told, and when it stops.
 */
type Step = { status: number; code?: ErrorCode; headers?: Record<string, string> } | 'network';

function scripted(steps: Step[], options: { maxRetries?: number; random?: () => number } = {}) {
  const calls: string[] = [];
  const sleeps: number[] = [];
  /** onRetry events and sleeps in the order they happened. */
  const timeline: string[] = [];
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
    sleep: async (ms) => {
      sleeps.push(ms);
      timeline.push(`sleep ${ms}`);
    },
    onRetry: ({ attempt, status, waitMs, error }: RetryEvent) =>
      void timeline.push(`retry ${attempt} ${status} ${error.code} ${waitMs}`),
    random: options.random ?? (() => 1 - Number.EPSILON),
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
  });
  return { api, calls, sleeps, timeline };
}

test('cancelOrder(9007199254740993) as a JS number throws a TypeError before any request', async () => {
  const { api, calls } = scripted([{ status: 204 }]);
  // The literal is already 9007199254740992 at run time: exactly the loss the check is for.
  // eslint-disable-next-line no-loss-of-precision -- the lost digits are what this test is about
  const error = await api.cancelOrder(9007199254740993).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TypeError);
  expect((error as Error).message).toMatch(/string .*or a bigint/);
  expect(calls).toEqual([]);
});

test.each<[string, unknown]>([
  ['2^53 as a number', 2 ** 53],
  ['a negative unsafe number', -(2 ** 60)],
  ['a fraction', 1.5],
  ['NaN', Number.NaN],
  ['Infinity', Number.POSITIVE_INFINITY],
  ['a decimal string with a fraction', '1.5'],
  ['a leading zero', '007'],
  ['a plus sign', '+5'],
  ['spaces', ' 5'],
  ['an exponent', '1e3'],
  ['-0 as text', '-0'],
  ['a path', '5/../6'],
  ['an empty string', ''],
  ['int64 max + 1 as text', '9223372036854775808'],
  ['int64 max + 1 as a bigint', 2n ** 63n],
  ['an object', { id: '5' }],
  ['null', null],
  ['undefined', undefined],
])('cancelOrder refuses %s with a TypeError and sends nothing', async (_name, id) => {
  const { api, calls } = scripted([{ status: 204 }]);
  await expect(api.cancelOrder(id as string)).rejects.toThrow(TypeError);
  expect(calls).toEqual([]);
});

test.each<[string, string | bigint]>([
  ['string', '9'.repeat(100_000)],
  ['bigint', 10n ** 100_000n],
])(
  'a 100,000-digit id as a %s is refused with its first digits and its length, not echoed whole',
  async (_name, id) => {
    const { api, calls } = scripted([{ status: 204 }]);
    const error = (await api.cancelOrder(id).catch((e: unknown) => e)) as TypeError;
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(/… \(10000[01] characters\)/);
    expect(error.message.length).toBeLessThan(300);
    expect(calls).toEqual([]);
  },
);

test.each<[string, string | bigint | number, string]>([
  ['a safe number', 9007199254740991, '9007199254740991'],
  ['a negative safe number', -42, '-42'],
  ['zero', 0, '0'],
  ['a bigint above 2^53', 9007199254740993n, '9007199254740993'],
  ['int64 max as text', '9223372036854775807', '9223372036854775807'],
  ['int64 min as a bigint', -(2n ** 63n), '-9223372036854775808'],
])('cancelOrder takes %s', async (_name, id, sent) => {
  const { api, calls } = scripted([{ status: 204 }]);
  await api.cancelOrder(id);
  expect(calls).toEqual([`DELETE http://api.test/v1/store/orders/${sent}`]);
});

test('5xx without Retry-After backs off exponentially with full jitter, then succeeds', async () => {
  const { api, calls, sleeps } = scripted([{ status: 500, code: 'INTERNAL_ERROR' }, { status: 502 }, { status: 200 }], {
    random: () => 0.5,
  });
  await expect(api.listOrders()).resolves.toEqual([]);
  expect(calls).toEqual([
    'GET http://api.test/v1/store/orders',
    'GET http://api.test/v1/store/orders',
    'GET http://api.test/v1/store/orders',
  ]);
  expect(sleeps).toEqual([100, 200]);
});

test('503 with Retry-After waits exactly that long, and onRetry says so before the wait', async () => {
  const { api, sleeps, timeline } = scripted([
    { status: 503, code: 'SERVICE_UNAVAILABLE', headers: { 'Retry-After': '2' } },
    { status: 204 },
  ]);
  await api.cancelOrder(5n);
  expect(sleeps).toEqual([2000]);
  expect(timeline).toEqual(['retry 1 503 SERVICE_UNAVAILABLE 2000', 'sleep 2000']);
});

test('onRetry is called before every wait, backoff and Retry-After alike, and not when giving up', async () => {
  const { api, timeline } = scripted(
    [
      'network',
      { status: 500, code: 'INTERNAL_ERROR' },
      { status: 429, code: 'RATE_LIMITED', headers: { 'Retry-After': '3' } },
      { status: 502 },
    ],
    { maxRetries: 3, random: () => 0.5 },
  );
  await expect(api.listOrders()).rejects.toMatchObject({ status: 502, code: 'UNEXPECTED_RESPONSE' });
  expect(timeline).toEqual([
    'retry 1 0 NETWORK_ERROR 100',
    'sleep 100',
    'retry 2 500 INTERNAL_ERROR 200',
    'sleep 200',
    'retry 3 429 RATE_LIMITED 3000',
    'sleep 3000',
  ]);
});

test('an exception thrown by onRetry stops the retries', async () => {
  const calls: string[] = [];
  const api = new StoreOrdersClient({
    baseUrl: 'http://api.test/v1',
    apiKey: 'k',
    fetch: async (input) => {
      calls.push(String(input));
      return new Response(errorJson('RATE_LIMITED'), { status: 429, headers: { 'Retry-After': '30' } });
    },
    sleep: async () => undefined,
    onRetry: () => {
      throw new Error('not waiting 30 s');
    },
  });
  await expect(api.listOrders()).rejects.toThrow('not waiting 30 s');
  expect(calls).toHaveLength(1);
});

test('retries are bounded: after maxRetries the last error is thrown', async () => {
  const { api, calls, sleeps } = scripted([{ status: 429, code: 'RATE_LIMITED', headers: { 'Retry-After': '1' } }], {
    maxRetries: 2,
  });
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

test('a server that is down: after the retries, a NETWORK_ERROR with the cause attached (real socket, closed port)', async () => {
  const port = await closedPort();
  const events: RetryEvent[] = [];
  const api = new StoreOrdersClient({
    baseUrl: `http://127.0.0.1:${port}/v1`,
    apiKey: 'sok_secret',
    maxRetries: 2,
    random: () => 0.5,
    sleep: async () => undefined,
    onRetry: (event) => void events.push(event),
  });
  const error = await api.listOrders().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(StoreOrdersApiError);
  expect(error).toMatchObject({ name: 'StoreOrdersApiError', code: 'NETWORK_ERROR', status: 0 });
  const { message, cause } = error as StoreOrdersApiError;
  expect(message).toContain(`127.0.0.1:${port}`);
  expect(message).toContain('ECONNREFUSED');
  expect(message).not.toContain('sok_secret');
  // A TypeError shaped as fetch's (compared by name: it may come from another realm), with the
  // socket's error as its own cause.
  expect(cause).toMatchObject({ name: 'TypeError', message: 'fetch failed', cause: { code: 'ECONNREFUSED' } });
  expect(events.map(({ attempt, status, waitMs }) => [attempt, status, waitMs])).toEqual([
    [1, 0, 100],
    [2, 0, 200],
  ]);
});

test('a connection lost while the body is read is a NETWORK_ERROR too, and is retried', async () => {
  let calls = 0;
  const broken = new ReadableStream<Uint8Array>({
    start: (controller) => controller.error(new TypeError('terminated')),
  });
  const api = new StoreOrdersClient({
    baseUrl: 'http://api.test/v1',
    apiKey: 'k',
    fetch: async () => (++calls === 1 ? new Response(broken, { status: 200 }) : new Response('[]', { status: 200 })),
    sleep: async () => undefined,
  });
  await expect(api.listOrders()).resolves.toEqual([]);
  expect(calls).toBe(2);
});

/** A port on 127.0.0.1 that nothing listens on: bound by the OS, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

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
  expect([0, 1, 2, 3, 4, 5].map((attempt) => retryDelayMs(policy, attempt, undefined, top))).toEqual([
    99, 199, 399, 799, 999, 999,
  ]);
  expect(retryDelayMs(policy, 3, undefined, () => 0)).toBe(0);
  expect(retryDelayMs(policy, 10, undefined, top)).toBeUndefined();
});
