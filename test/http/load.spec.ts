// A bounded loopback load: 8 clients send a few hundred requests between them (enough for the
// free key to reach its ban), lists and cancels on keys of four plans and one unknown key. Every
// answer is documented, limits are counted exactly, and no order is lost or changed other than by
// a cancel that answered 204.

import { generateApiKey } from '../../lib/core/access/key-format';
import { BAN, PLAN_LIMITS } from '../../lib/contract/plans';
import { banThreshold } from '../../lib/core/limiter/rules';
import { windowAt } from '../../lib/core/limiter/windows';
import { LEASE_EXPIRY_MARGIN_SECONDS } from '../../lib/stores/listings-in-flight';
import { FUNCTIONS } from '../../lib/contract/deployment';
import type { Order, OrderStatus } from '../../lib/contract/order';
import { errorCodeOf, responseProblems } from '../support/documented-response';
import { runClients, seededRandom } from '../support/load-driver';
import { startLocalStack, type LocalStack } from '../support/local-stack';
import { ordersById } from '../support/orders-table';
import { headerOf, rawRequest, type RawResponse } from '../support/raw-http';

const CLIENTS = 8;
/**
 * Requests sent after the clock moves on, into the ban. The fixed mix gives each kind its share of
 * them (about 30 of the free key's, lists and cancels both, and the enterprise and unknown keys'
 * too): every answer the ban and the spent day give is met, under the same concurrency, by more
 * than one request. More of them only repeat those answers.
 */
const AFTER_TICK = 80;
const ENTERPRISE = { perMinute: 100, perDay: 30 };

const STATUSES: OrderStatus[] = ['pending', 'shipped', 'cancelled'];
const SEEDS: Order[] = [
  ...Array.from({ length: 60 }, (_, i): Order => ({ id: String(i + 1), status: STATUSES[i % 3] ?? 'pending' })),
  { id: '9007199254740993', status: 'pending' },
  { id: '9223372036854775807', status: 'shipped' },
];
const MISSING = ['1000', '1001', '9007199254740992', '-5'];
const INVALID = ['abc', '1.5', '%2B1', '99999999999999999999'];
const TARGETS = [...SEEDS.map((o) => o.id), ...MISSING, ...INVALID];

type KeyName = 'free' | 'pro' | 'business' | 'enterprise' | 'unknown';
/** A list when `cancel` is absent. */
interface Planned {
  key: KeyName;
  cancel?: string;
}
interface Sent extends Planned {
  response: RawResponse;
}

/**
 * A fixed mix, the same on every run: 40% free (which runs into its limit, then a ban), 10% an
 * unknown key, a quarter lists. It runs until the free key's requests are enough for the ban to
 * have been written even with every other client's request still in flight, and the enterprise
 * key's are past its day (the clock moves on a second there, `banTick`, so the ban takes effect),
 * then `AFTER_TICK` more.
 */
function planRequests(): { requests: Planned[]; banTick: number } {
  const freeToBan = PLAN_LIMITS.free.perMinute + banThreshold(PLAN_LIMITS.free) + 1 + (CLIENTS - 1);
  const random = seededRandom(6);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const mix: KeyName[] = [
    'free',
    'free',
    'free',
    'free',
    'pro',
    'pro',
    'business',
    'business',
    'enterprise',
    'unknown',
  ];
  const next = (): Planned => {
    const key = pick(mix);
    return random() < 0.25 ? { key } : { key, cancel: pick(TARGETS) };
  };
  const requests: Planned[] = [];
  const planned = (name: KeyName) => requests.filter((r) => r.key === name).length;
  // The enterprise key goes past its day, too.
  while (planned('free') < freeToBan || planned('enterprise') <= ENTERPRISE.perDay) requests.push(next());
  const banTick = requests.length;
  while (requests.length < banTick + AFTER_TICK) requests.push(next());
  return { requests, banTick };
}

let stack: LocalStack;
let keys: Record<KeyName, string>;
let sent: Sent[];
/** The hand-moved clock at the start of the run, in Unix seconds. */
let startSeconds: number;

beforeAll(async () => {
  stack = await startLocalStack();
  await stack.app.orders.putMany(SEEDS);
  keys = {
    free: (await stack.newKey('free')).key,
    pro: (await stack.newKey('pro')).key,
    business: (await stack.newKey('business')).key,
    enterprise: (await stack.newKey('enterprise', ENTERPRISE)).key,
    unknown: generateApiKey(),
  };
  const { requests, banTick } = planRequests();
  startSeconds = stack.clock.now() / 1000;
  sent = await runClients(CLIENTS, requests.length, async (i, agent) => {
    if (i === banTick) stack.clock.advance(1_000);
    const planned = requests[i];
    if (!planned) throw new Error(`no request ${i} in the plan`);
    const { key, cancel } = planned;
    const path = cancel === undefined ? '/v1/store/orders' : `/v1/store/orders/${cancel}`;
    const response = await rawRequest(stack.baseUrl, cancel === undefined ? 'GET' : 'DELETE', path, {
      agent,
      headers: { Authorization: `Bearer ${keys[key]}` },
    });
    return { key, ...(cancel === undefined ? {} : { cancel }), response };
  });
}, 120_000);
afterAll(() => stack.close());

const initially = new Map(SEEDS.map((o) => [o.id, o.status]));
const byKey = (name: KeyName) => sent.filter((s) => s.key === name);
/** Too many listings of one key at once: refused after the windows admitted it, its slot given back. */
const tooManyListings = (s: Sent) => s.response.status === 429 && errorCodeOf(s.response) === 'TOO_MANY_LISTINGS';
/** Counted by the rate windows: everything but the 429s (TOO_MANY_LISTINGS included: it gives its slot back). */
const served = (name: KeyName) => byKey(name).filter((s) => s.response.status !== 429);
const cancelledBy204 = () =>
  new Set(sent.filter((s) => s.cancel !== undefined && s.response.status === 204).map((s) => s.cancel));

test('every response is a documented status with its headers and Error body', () => {
  const problems = sent.flatMap((s, i) =>
    responseProblems(s.response).map((p) => `#${i} ${s.key} ${s.cancel ?? 'list'}: ${p}`),
  );
  expect(problems).toEqual([]);
  expect(byKey('unknown').every((s) => s.response.status === 401)).toBe(true);
});

test('limits are counted exactly under concurrency: 429s where a window ran out, a ban once ignored', () => {
  expect(served('free')).toHaveLength(PLAN_LIMITS.free.perMinute);
  expect(served('enterprise')).toHaveLength(ENTERPRISE.perDay);
  // Pro and business keys stay within their limits: all served.
  expect(byKey('pro').length).toBeLessThan(PLAN_LIMITS.pro.perMinute);
  expect(byKey('business').length).toBeLessThan(PLAN_LIMITS.business.perMinute);
  expect(served('pro')).toHaveLength(byKey('pro').length);
  expect(served('business')).toHaveLength(byKey('business').length);
  const codes = (name: KeyName) =>
    new Set(
      byKey(name)
        .filter((s) => s.response.status === 429 && !tooManyListings(s))
        .map((s) => errorCodeOf(s.response)),
    );
  expect(codes('free')).toEqual(new Set(['RATE_LIMITED', 'KEY_TEMPORARILY_BANNED']));
  expect(codes('enterprise')).toEqual(new Set(['QUOTA_EXCEEDED']));
  // Only listings are refused for the listings in flight.
  expect(sent.filter(tooManyListings).every((s) => s.cancel === undefined)).toBe(true);
});

test('each cancel answered as the order it named allowed', () => {
  const wrong = sent
    .filter((s) => s.cancel !== undefined && s.response.status !== 401 && s.response.status !== 429)
    .filter(({ cancel, response }) => {
      const was = initially.get(cancel ?? '');
      if (INVALID.includes(cancel ?? '')) return response.status !== 400;
      if (was === undefined) return response.status !== 404 || errorCodeOf(response) !== 'ORDER_NOT_FOUND';
      return response.status !== (was === 'shipped' ? 409 : 204);
    });
  expect(wrong.map((s) => `${s.cancel}: ${s.response.status}`)).toEqual([]);
});

test('no order lost or wrongly changed: every list held each order once, the table ends as the 204s say', async () => {
  const cancelled = cancelledBy204();
  const expected = new Map(SEEDS.map((o) => [o.id, { ...o, status: cancelled.has(o.id) ? 'cancelled' : o.status }]));
  expect(await ordersById(stack.tables)).toEqual(expected);

  const lists = sent.filter((s) => s.cancel === undefined && s.response.status === 200);
  expect(lists.length).toBeGreaterThan(0);
  for (const { response } of lists) {
    // Exact digits: JSON.parse would round the int64 ids.
    const listed = [...response.body.matchAll(/\{"id":(-?\d+)[^}]*"status":"(\w+)"\}/g)].map((m) => [m[1], m[2]]);
    expect(listed.map(([id]) => id).sort()).toEqual(SEEDS.map((o) => o.id).sort());
    for (const [id, status] of listed) {
      const was = initially.get(id ?? '');
      expect([was, was === 'pending' ? 'cancelled' : was]).toContain(status);
    }
  }
});

test('each 429 says when to come back: Retry-After runs out at X-RateLimit-Reset, the end of what refused it', () => {
  const ends: Record<string, number> = {
    RATE_LIMITED: windowAt('minute', startSeconds).resetAt,
    QUOTA_EXCEEDED: windowAt('day', startSeconds).resetAt,
    // Written before the clock moved on, by the refusal that crossed the threshold.
    KEY_TEMPORARILY_BANNED: startSeconds + BAN.durationSeconds,
  };
  const refusals = sent.filter((s) => s.response.status === 429 && !tooManyListings(s));
  expect(refusals.length).toBeGreaterThan(0);
  // TOO_MANY_LISTINGS: until the first held lease expires, at most a whole lease from now.
  for (const s of sent.filter(tooManyListings)) {
    const retryAfter = Number(headerOf(s.response, 'retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(FUNCTIONS['list-orders'].timeoutSeconds + LEASE_EXPIRY_MARGIN_SECONDS);
  }
  const wrong = refusals.filter(({ response }) => {
    const reset = Number(headerOf(response, 'x-ratelimit-reset'));
    const retryAfter = Number(headerOf(response, 'retry-after'));
    const answeredAt = reset - retryAfter;
    return (
      reset !== ends[errorCodeOf(response) ?? ''] || (answeredAt !== startSeconds && answeredAt !== startSeconds + 1)
    );
  });
  expect(
    wrong.map(
      (s) =>
        `${errorCodeOf(s.response)} reset ${headerOf(s.response, 'x-ratelimit-reset')} retry ${headerOf(s.response, 'retry-after')}`,
    ),
  ).toEqual([]);
});
