// Slow DynamoDB must not spend the quota on 503s (issue 26, item 2). The cancel handler as Lambda
// invokes it, its limiter over the in-memory store and its orders store a stand-in, every reply
// late by the deployed scenario's latencies (1-3 s, 0.5-3 s) against the deployed function timeout
// and deadline margin, all on a virtual clock (test/support/virtual-time.ts): minutes of traffic
// run in milliseconds, and nothing depends on how busy the machine is. Callers retry their 503s
// after Retry-After, as the client does. A request finished after its deadline less the margin
// was answered 503 by the function (the deadline's answer), whatever the handler came to later.
// For both server behaviours: DynamoDB (a failed condition returns the item) and the embedded
// server (the store reads it: one more slow call). The DynamoDB store's give-back write itself is
// in the store contract (test/support/limiter-store-contract.ts).
//
// The burst across a minute's edge on the embedded server is proved through the real path instead
// (test/http/slow-dynamo-quota.spec.ts: the gateway, the handlers and the embedded server behind a
// proxy holding its replies), where this model once passed while the service failed; here it runs
// on DynamoDB's answer alone, which the embedded server cannot give.
import type { Context } from 'aws-lambda';
import { FUNCTIONS } from '../../lib/contract/deployment';
import { SERVICE_UNAVAILABLE_ANSWER } from '../../lib/contract/errors';
import { PLAN_LIMITS, type PlanName } from '../../lib/contract/plans';
import { routeByOperation } from '../../lib/contract/routes';
import { callerContext } from '../../lib/core/access/caller';
import { timedLimiter } from '../../lib/core/limiter/limiter';
import type { LimiterItem, LimiterStore } from '../../lib/core/limiter/store';
import { unixSeconds, windowAt } from '../../lib/core/limiter/windows';
import { DEADLINE_MARGIN_MS } from '../../lib/commons/deadline';
import { makeCancelOrderHandler } from '../../lib/edge/orders-handlers';
import { buildProxyEvent, lambdaContext } from '../../tools/local/proxy-event';
import { InMemoryLimiterStore } from '../support/in-memory-limiter-store';
import { retryingEach503, VirtualTime } from '../support/virtual-time';

type Behaviour = 'DynamoDB' | 'the embedded server';
const TIMEOUT_MS = FUNCTIONS['cancel-order'].timeoutSeconds * 1000;
const KEY = 'key-slow';

/** Spreads calls over [lowMs, highMs] by their number, deterministically. */
const lateness = (lowMs: number, highMs: number) => (n: number) => lowMs + ((n * 0.618034) % 1) * (highMs - lowMs);

/**
 * The embedded server returns no item with a failed condition, so the DynamoDB store reads it: a
 * second call, as slow as the first.
 */
function readingAfterFailure(store: InMemoryLimiterStore): LimiterStore {
  const withRead = async <T extends { applied: boolean }>(item: LimiterItem, outcome: T) =>
    outcome.applied ? outcome : { ...outcome, found: await store.read(item) };
  return {
    take: async (item, write) => withRead(item, await store.take(item, write)),
    writeBan: async (item, ban) => withRead(item, await store.writeBan(item, ban)),
    recordRefusal: (item, write) => store.recordRefusal(item, write),
    giveBack: (item, write) => store.giveBack(item, write),
    markRevoked: (item, mark) => store.markRevoked(item, mark),
    read: (item) => store.read(item),
  };
}

/** What one request came to, as its caller saw it. */
interface Answer {
  orderId: string;
  status: number;
  code?: string;
  /** The minute it was sent in. */
  minute: number;
  retryAfter?: string | undefined;
}

const minuteOf = (ms: number) => windowAt('minute', unixSeconds(ms)).start;

/** The service on a virtual clock, every limiter and orders call late by `late(n)` ms. */
function slowService(
  behaviour: Behaviour,
  startMs: number,
  late: (n: number) => number,
  plan: Exclude<PlanName, 'enterprise'> = 'free',
) {
  const time = new VirtualTime(startMs);
  const memory = new InMemoryLimiterStore({
    conditionFailures: behaviour === 'DynamoDB' ? 'returned' : 'read after',
    fault: (n) => ({ kind: 'late', until: time.sleep(late(n)) }),
  });
  const store = behaviour === 'DynamoDB' ? memory : readingAfterFailure(memory);
  const limiter = timedLimiter(store, { now: time.now, elapsedMs: time.now }, () => undefined);
  const cancelled = new Set<string>();
  let orderCalls = 0;
  const orders = {
    listingPages: async function* () {},
    cancel: async (id: string) => {
      await time.sleep(late(++orderCalls));
      cancelled.add(id);
    },
  };
  const cancel = makeCancelOrderHandler({ orders, limiter });

  /** One cancel with the function's deadline from now; 503 when it finished past its deadline's answer. */
  async function cancelOnce(orderId: string): Promise<Answer> {
    const minute = minuteOf(time.now());
    const answerBy = time.now() + TIMEOUT_MS - DEADLINE_MARGIN_MS;
    const context: Context = {
      ...lambdaContext('cancel-order'),
      getRemainingTimeInMillis: () => answerBy + DEADLINE_MARGIN_MS - time.now(),
    };
    const event = buildProxyEvent({
      route: routeByOperation('cancelOrder'),
      pathParameters: { orderId },
      authorizer: { principalId: KEY, context: callerContext({ keyId: KEY, plan, limits: PLAN_LIMITS[plan] }) },
    });
    const result = await cancel(event, context);
    if (time.now() > answerBy) {
      const { code, headers } = SERVICE_UNAVAILABLE_ANSWER;
      return { orderId, status: 503, code, minute, retryAfter: headers['Retry-After'] };
    }
    const code = result.body ? (JSON.parse(result.body) as { code?: string }).code : undefined;
    const retryAfter = result.headers?.['Retry-After'];
    return {
      orderId,
      status: result.statusCode,
      minute,
      retryAfter: retryAfter === undefined ? undefined : String(retryAfter),
      ...(code ? { code } : {}),
    };
  }

  const stored = () => memory.peek({ keyId: KEY, day: windowAt('day', unixSeconds(time.now())) });
  const retrying = (orderId: string) => retryingEach503(time, () => cancelOnce(orderId));
  return { time, cancelOnce, retrying, cancelled, stored };
}

describe.each<Behaviour>(['DynamoDB'])('on %s', (behaviour) => {
  test('100 cancels at :59.8 and 100 at :00.1 on a free key, every reply 1-3 s late: the new minute serves at least 80 % of its limit, and no 503 used a slot or did its work', async () => {
    const free = PLAN_LIMITS.free;
    const service = slowService(behaviour, Date.parse('2026-11-22T10:00:59.800Z'), lateness(1_000, 3_000));
    const { time } = service;
    const once = async (id: number) => [await service.cancelOnce(String(id))];
    const retrying = (id: number) => service.retrying(String(id));
    const answers = await time.run(
      (async () => {
        // The hundred before the boundary as the issue sent them; the hundred after as the client
        // sends them, retrying a 503 after its Retry-After.
        const first = Promise.all(Array.from({ length: 100 }, (_, i) => once(i + 1)));
        await time.sleep(300);
        const second = Promise.all(Array.from({ length: 100 }, (_, i) => retrying(i + 101)));
        return [...(await first), ...(await second)].flat();
      })(),
    );
    const next = minuteOf(Date.parse('2026-11-22T10:01:00.100Z'));
    const served = answers.filter((a) => a.status === 204);
    const servedNow = served.filter((a) => a.minute === next).length;
    expect(servedNow).toBeGreaterThanOrEqual(Math.ceil(free.perMinute * 0.8));
    expect(servedNow).toBeLessThanOrEqual(free.perMinute);
    expect(answers.filter((a) => ![204, 429, 503].includes(a.status))).toEqual([]);
    expect(answers.filter((a) => a.code === 'KEY_TEMPORARILY_BANNED')).toEqual([]);
    // Every slot used is a request served in time: none went to a 503.
    const item = service.stored();
    expect(item).toMatchObject({ minute: next, inMinute: servedNow, day: served.length });
    expect(item?.bannedUntil).toBeUndefined();
    // And no 503 did its work: exactly the orders answered 204 are cancelled.
    expect([...service.cancelled].sort()).toEqual(served.map((a) => a.orderId).sort());
  });
});

describe.each<Behaviour>(['DynamoDB', 'the embedded server'])('on %s', (behaviour) => {
  test('40 callers under a sustained 0.5-3 s latency across minute boundaries: no admitted request ends 503', async () => {
    const business = PLAN_LIMITS.business;
    const start = Date.parse('2026-11-22T11:00:40.000Z');
    const service = slowService(behaviour, start, lateness(500, 3_000), 'business');
    const end = start + 90_000;
    const callers = 40;
    let next = 0;
    const answers = await service.time.run(
      Promise.all(
        Array.from({ length: callers }, async () => {
          const mine: Answer[] = [];
          while (service.time.now() < end) mine.push(await service.cancelOnce(String(++next)));
          return mine;
        }),
      ),
    );
    const all = answers.flat();
    const item = service.stored();
    // No window refused anything: every slot used is an admitted request, served (204) or answered 503 after.
    expect(all.filter((a) => a.status === 429)).toEqual([]);
    expect(all.length).toBeLessThan(business.perDay);
    const admitted = item?.day ?? 0;
    const served = all.filter((a) => a.status === 204).length;
    expect(new Set(all.map((a) => a.minute)).size).toBe(3);
    expect(served).toBeGreaterThan(all.length / 2);
    // The issue asks under 5 %. The budget keeps the slowest call seen for the work, and no call is
    // slower here, so none: today's main answers 503 to some of the requests it admitted.
    expect(admitted - served).toBeLessThan(admitted * 0.05);
    expect(admitted).toBe(served);
  });
});
