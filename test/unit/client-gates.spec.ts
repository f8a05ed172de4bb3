// The typed client's shared waits, with a scripted fetch and an injected clock: a 429's Retry-After
// holds back the client's other calls (a window's every call, TOO_MANY_LISTINGS the listings), so
// they wait once together; and the client runs one listing at a time unless told otherwise.
import { errorJson, type ErrorCode } from '../../lib/contract/errors';
import { StoreOrdersClient } from '../../client/client';
import { ADDRESS_LIMITED_ANSWER } from '../../lib/contract/address-limit';

/** Answers each request with `answer(n)` (n from 1); requests are held until `release` is called. */
function scriptedClient(
  answer: (n: number, method: string) => { status: number; code?: ErrorCode; retryAfter?: number },
) {
  let nowMs = Date.parse('2026-11-22T10:00:01Z');
  const sent: { method: string; at: number }[] = [];
  const held: (() => void)[] = [];
  let holding = false;
  const fetchFn: typeof fetch = async (_input, init) => {
    const method = init?.method ?? 'GET';
    sent.push({ method, at: nowMs });
    const { status, code, retryAfter } = answer(sent.length, method);
    if (holding) await new Promise<void>((resolve) => held.push(resolve));
    const body = code ? errorJson(code) : status === 200 ? '[]' : null;
    return new Response(body, {
      status,
      headers: retryAfter === undefined ? {} : { 'Retry-After': String(retryAfter) },
    });
  };
  const sleeps: number[] = [];
  /** The first wait lasts until the test ends it, so other calls can be started meanwhile. */
  let endFirstSleep = () => {};
  const firstSleepEnds = new Promise<void>((resolve) => (endFirstSleep = resolve));
  const api = new StoreOrdersClient({
    baseUrl: 'http://api.test/v1',
    apiKey: 'k',
    fetch: fetchFn,
    now: () => nowMs,
    // A wait ends at its end, never moving the clock back: concurrent waits for one moment end together.
    sleep: async (ms) => {
      sleeps.push(ms);
      if (sleeps.length === 1) await firstSleepEnds;
      nowMs = Math.max(nowMs, nowMs + ms);
    },
    random: () => 0.5,
  });
  return {
    api,
    sent,
    sleeps,
    hold: () => (holding = true),
    release: () => {
      holding = false;
      held.splice(0).forEach((go) => go());
    },
    heldCount: () => held.length,
    endFirstSleep: () => endFirstSleep(),
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

test("a window's 429 holds back the client's other calls until its Retry-After: none is sent before it, none is refused", async () => {
  const client = scriptedClient((n) =>
    n === 1 ? { status: 429, code: 'RATE_LIMITED', retryAfter: 30 } : { status: 204 },
  );
  const first = client.api.cancelOrder('1');
  // The first call is waiting out its Retry-After; three more are made meanwhile.
  while (client.sleeps.length === 0) await turn();
  const start = client.sent[0]?.at ?? 0;
  const others = Promise.all(['2', '3', '4'].map((id) => client.api.cancelOrder(id)));
  await others;
  client.endFirstSleep();
  await first;
  // Each later call was sent only once the 30 s had passed, and was served: one refusal in all.
  expect(client.sent.filter((call) => call.at < start + 30_000)).toHaveLength(1);
  expect(client.sent).toHaveLength(5);
  expect(client.sleeps.every((ms) => ms <= 30_000)).toBe(true);
});

test('TOO_MANY_LISTINGS holds back the listings only; a cancel goes on', async () => {
  const client = scriptedClient((n, method) =>
    n === 1 ? { status: 429, code: 'TOO_MANY_LISTINGS', retryAfter: 10 } : { status: method === 'GET' ? 200 : 204 },
  );
  client.endFirstSleep();
  await client.api.listOrders();
  const start = client.sent[0]?.at ?? 0;
  await client.api.cancelOrder('1');
  expect(client.sent.map((c) => c.method)).toEqual(['GET', 'GET', 'DELETE']);
  expect(client.sent[1]?.at).toBeGreaterThanOrEqual(start + 10_000);
});

test('a shared wait longer than maxRetryAfterMs is not made: the calls behind it fail at once with its 429', async () => {
  const client = scriptedClient(() => ({ status: 429, code: 'KEY_TEMPORARILY_BANNED', retryAfter: 900 }));
  await expect(client.api.cancelOrder('1')).rejects.toMatchObject({ code: 'KEY_TEMPORARILY_BANNED' });
  await expect(client.api.cancelOrder('2')).rejects.toMatchObject({ code: 'KEY_TEMPORARILY_BANNED' });
  expect(client.sent).toHaveLength(1);
});

test("the address limit's 429 holds back every call, listings too; its wait is longer than the default, so they fail at once", async () => {
  const retryAfter = Number(ADDRESS_LIMITED_ANSWER.headers['Retry-After']);
  const client = scriptedClient(() => ({ status: 429, code: 'ADDRESS_RATE_LIMITED', retryAfter }));
  await expect(client.api.cancelOrder('1')).rejects.toMatchObject({ code: 'ADDRESS_RATE_LIMITED', status: 429 });
  await expect(client.api.listOrders()).rejects.toMatchObject({ code: 'ADDRESS_RATE_LIMITED' });
  // The listing was held by the cancel's answer: from this address nothing more was sent.
  expect(client.sent).toHaveLength(1);
});

test('listings run one at a time by default, in the order asked; an aborted one leaves the queue', async () => {
  const client = scriptedClient(() => ({ status: 200 }));
  client.hold();
  const first = client.api.listOrders();
  const aborted = new AbortController();
  const second = client.api.listOrders({ signal: aborted.signal });
  const third = client.api.listOrders();
  for (let i = 0; i < 5; i++) await turn();
  expect(client.heldCount()).toBe(1);
  aborted.abort();
  await expect(second).rejects.toMatchObject({ code: 'ABORTED' });
  client.release();
  await first;
  for (let i = 0; i < 5; i++) await turn();
  client.release();
  await third;
  expect(client.sent).toHaveLength(2);
});

test('maxConcurrentListings lets that many run at once, and must be a positive integer', async () => {
  let running = 0;
  let most = 0;
  const api = new StoreOrdersClient({
    baseUrl: 'http://api.test/v1',
    apiKey: 'k',
    maxConcurrentListings: 2,
    fetch: async () => {
      most = Math.max(most, ++running);
      await turn();
      running--;
      return new Response('[]', { status: 200 });
    },
  });
  await Promise.all([api.listOrders(), api.listOrders(), api.listOrders()]);
  expect(most).toBe(2);
  expect(() => new StoreOrdersClient({ baseUrl: 'http://x/v1', apiKey: 'k', maxConcurrentListings: 0 })).toThrow(
    TypeError,
  );
});
