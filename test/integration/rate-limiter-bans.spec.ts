// A ban follows only from refusals the client was sent, each in the minute window it was sent for
// (docs/rate-limits.md): not from an old minute's refusals decided late, after the key's next
// minute started, nor from refusals whose answers were lost (a 503 for the client). A key that
// goes on sending past its 429s is still banned. Through all of it, no window serves more than
// its limit. Both server behaviours: the embedded server (the item read after a failed
// condition) and DynamoDB (the item returned with it, as it stood when the condition failed).
// The rules themselves are unit tests of the algorithm (test/unit/rate-limiter-admit.spec.ts);
// here the DynamoDB store's writes meet late and lost replies for real. The clock is injected and
// replies are held by gates, then a few milliseconds late: nothing waits for real time.
import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { LimiterState, RateLimiter } from '../../lib/stores/rate-limiter';
import { limitsFor, type Limits } from '../../lib/contract/plans';
import { banThreshold } from '../../lib/core/limiter/rules';
import { MINUTE_SECONDS, unixSeconds, windowAt } from '../../lib/core/limiter/windows';
import { toHttpError } from '../../lib/edge/http-errors';
import { createTestTables, type TestTables } from '../support/dynamo';
import {
  limiterOn,
  limiterWrite,
  SERVER_BEHAVIOURS,
  type LateReply,
  type PickedCall,
  type ServerBehaviour,
} from '../support/limiter-clients';

let tables: TestTables;
let nowMs: number;
const clock = () => nowMs;
const docs: DynamoDBDocumentClient[] = [];
const newKey = () => `key-${randomUUID()}`;
/**
 * Small custom limits keep the bursts short: what the store does under late replies does not depend
 * on their size. The free plan at full size runs the same scenarios over the in-memory store in
 * test/unit/rate-limiter-admit.spec.ts.
 */
const small = limitsFor('enterprise', { perMinute: 12, perDay: 1000 });
/**
 * Refusals one burst past the limit draws: within the ban threshold, but two bursts' worth are
 * past it, so counting an old minute's refusals in the new minute would ban the key.
 */
const OVER = Math.floor((banThreshold(small) * 2) / 3) + 1;

beforeAll(async () => {
  tables = await createTestTables();
});
afterAll(async () => {
  for (const doc of docs) doc.destroy();
  await tables.drop();
});

/** Bursts of hundreds of calls queue in the one embedded server process on a shared machine. */
const BURST_TIMEOUT_MS = 60_000;

/** What the client was sent for one request, and when it sent it. */
interface Answer {
  sent: 'served' | 'RATE_LIMITED' | 'QUOTA_EXCEEDED' | 'KEY_TEMPORARILY_BANNED' | 503;
  /** The minute the request was sent in: the limiter's clock when it arrived. */
  minute: number;
  /** The minute window that served it (the minute runs out first in these tests). */
  servedIn?: number;
}

/** One request as the rate-limit middleware answers it: served, a 429 with its code, or a 503. */
async function request(limiter: RateLimiter, keyId: string, limits: Limits): Promise<Answer> {
  const minute = windowAt('minute', unixSeconds(nowMs)).start;
  try {
    const admission = await limiter.admit(keyId, limits);
    if (admission.admitted) return { sent: 'served', minute, servedIn: admission.headers.resetAt - MINUTE_SECONDS };
    return { sent: admission.reason, minute };
  } catch (error) {
    // Only what the edge answers 503 is an expected failure here; anything else is a bug.
    if (toHttpError(error, new Set(['SERVICE_UNAVAILABLE']))?.statusCode === 503) return { sent: 503, minute };
    throw error;
  }
}

const burst = (limiter: RateLimiter, keyId: string, limits: Limits, n: number) =>
  Promise.all(Array.from({ length: n }, () => request(limiter, keyId, limits)));

const isWindowRefusal = (a: Answer) => a.sent === 'RATE_LIMITED' || a.sent === 'QUOTA_EXCEEDED';
const count = (answers: Answer[], test: (a: Answer) => boolean) => answers.filter(test).length;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** 1 to 30 ms, spread over the calls, so replies come back out of order. */
const fewMilliseconds = (n: number) => 1 + ((n * 389) % 30);

/**
 * Every UpdateItem reply a few ms late after the server answered it, and with `after`, held until
 * that opens (then a few ms more).
 */
const updatesLate =
  (after?: Promise<unknown>) =>
  (n: number, _attempt: number, call: PickedCall): LateReply | undefined =>
    call.operation === 'UpdateItem' ? { kind: 'late', ms: fewMilliseconds(n), ...(after ? { after } : {}) } : undefined;

/** A gate the test opens. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

/** Waits until the key's item satisfies `ready` (read past the faults, straight from the table). */
async function until(under: RateLimiter, keyId: string, ready: (item: LimiterState | undefined) => boolean) {
  while (!ready(await under.read(keyId, nowMs))) await sleep(20);
}

/**
 * The rules over a run on one key, from what each request was sent and the item afterwards: no
 * minute window served more than its limit, every served request is in the day count (no reply
 * was lost here), the stored minute recorded no more refusals than were sent for its own
 * requests, and there is no ban.
 */
function expectNoBanAndExact(answers: Answer[], limits: Limits, item: LimiterState | undefined) {
  const served = answers.filter((a) => a.sent === 'served');
  for (const minute of new Set(served.map((a) => a.servedIn))) {
    expect(count(served, (a) => a.servedIn === minute)).toBeLessThanOrEqual(limits.perMinute);
  }
  expect(item?.day).toBe(served.length);
  expect(item?.inMinute).toBe(count(served, (a) => a.servedIn === item?.minute));
  expect(item?.refused).toBeLessThanOrEqual(count(answers, (a) => isWindowRefusal(a) && a.minute === item?.minute));
  expect(count(answers, (a) => a.sent === 'KEY_TEMPORARILY_BANNED')).toBe(0);
  expect(item?.bannedUntil).toBeUndefined();
}

describe.each(SERVER_BEHAVIOURS)('on %s', (behaviour: ServerBehaviour) => {
  const limiterWith = (pick?: Parameters<typeof limiterOn>[4]) => {
    const under = limiterOn(behaviour, tables.endpoint, tables.names.rateLimits, clock, pick);
    docs.push(under.doc);
    return under;
  };
  /** Reads the limiter items past the faults. */
  let checker: RateLimiter;
  beforeAll(() => {
    checker = limiterWith().limiter;
  });

  const lastSecond = Date.parse('2026-11-22T10:00:59.800Z');
  const nextMinute = Date.parse('2026-11-22T10:01:00.100Z');
  const minuteStart = (ms: number) => windowAt('minute', unixSeconds(ms)).start;

  test(
    `${small.perMinute + OVER} requests at :59.8 and as many at :00.1 on a fresh key, every UpdateItem reply late: no ban, and the next minute serves its own limit`,
    async () => {
      // The first burst's replies come only once the clock has moved on and the second is sent.
      const moved = gate();
      const { limiter, faults } = limiterWith(updatesLate(moved.opened));
      const key = newKey();
      nowMs = lastSecond;
      const first = burst(limiter, key, small, small.perMinute + OVER);
      // Every first write of the burst is applied, its reply held.
      while (faults.answered < small.perMinute + OVER) await sleep(5);
      nowMs = nextMinute;
      const second = burst(limiter, key, small, small.perMinute + OVER);
      moved.open();
      const answers = [...(await first), ...(await second)];
      const item = await checker.read(key, nowMs);
      expectNoBanAndExact(answers, small, item);
      // The old minute's late requests took none of the new minute's slots.
      expect(item?.minute).toBe(minuteStart(nextMinute));
      expect(count(answers, (a) => a.sent === 'served' && a.servedIn === minuteStart(nextMinute))).toBe(
        small.perMinute,
      );
      expect(count(answers, (a) => a.sent === 'served' && a.minute === minuteStart(nextMinute))).toBe(small.perMinute);
    },
    BURST_TIMEOUT_MS,
  );

  test(
    'the old minute served in full, its refusals decided only after the next minute started: each minute serves its limit, no ban',
    async () => {
      // Two functions on one key: the first minute's burst goes through one whose replies are
      // held until the key's next minute has started (then a few ms more), the rest through another.
      const held = gate();
      const slow = limiterWith(updatesLate(held.opened)).limiter;
      const other = limiterWith(updatesLate()).limiter;
      const key = newKey();
      nowMs = lastSecond;
      const opener = await request(other, key, small);
      const first = burst(slow, key, small, small.perMinute + OVER - 1);
      // The burst's admissions are applied (their replies held): the old minute is full.
      await until(checker, key, (item) => item?.inMinute === small.perMinute);
      nowMs = nextMinute;
      const second = burst(other, key, small, small.perMinute + OVER);
      await until(checker, key, (item) => item?.minute === minuteStart(nextMinute));
      held.open();
      const answers = [opener, ...(await first), ...(await second)];
      const item = await checker.read(key, nowMs);
      expectNoBanAndExact(answers, small, item);
      for (const minute of [lastSecond, nextMinute]) {
        expect(count(answers, (a) => a.sent === 'served' && a.servedIn === minuteStart(minute))).toBe(small.perMinute);
      }
      expect(item).toMatchObject({ day: 2 * small.perMinute, inMinute: small.perMinute, refused: OVER });
    },
    BURST_TIMEOUT_MS,
  );

  test(
    'a drop run (replies lost or never sent): every recorded refusal was sent as a 429, and the ban comes only after more 429s than the limit',
    async () => {
      const limits: Limits = { perMinute: 5, perDay: 1000 };
      const { limiter } = limiterWith((n) =>
        n % 3 === 0 ? { kind: 'timeout-after-write' } : n % 7 === 0 ? { kind: 'timeout-before-write' } : undefined,
      );
      const key = newKey();
      nowMs = Date.parse('2026-11-22T10:00:15.000Z');
      const answers: Answer[] = [];
      // A client that retries its 503s, one request at a time, as a DynamoDB fault goes on.
      for (let i = 0; i < 60; i++) answers.push(await request(limiter, key, limits));
      const item = await checker.read(key, nowMs);
      expect(count(answers, (a) => a.sent === 'served')).toBeLessThanOrEqual(limits.perMinute);
      expect(count(answers, (a) => a.sent === 503)).toBeGreaterThan(0);
      // A key that goes on past its 429s is banned, but only by a refusal that is one more than the
      // limit: the 429s sent before it number at least the limit.
      const firstBan = answers.findIndex((a) => a.sent === 'KEY_TEMPORARILY_BANNED');
      expect(firstBan).toBeGreaterThan(0);
      const refusalsSent = answers.slice(0, firstBan).filter(isWindowRefusal).length;
      expect(refusalsSent).toBeGreaterThanOrEqual(limits.perMinute);
      // Every refusal recorded was sent: the window's 429s, and the one that crossed the threshold
      // (answered with the ban). Those refused for the ban in force are not recorded.
      expect(item?.refused).toBeLessThanOrEqual(refusalsSent + 1);
    },
    BURST_TIMEOUT_MS,
  );

  test('a refusal whose record got no reply is still answered 429, and counts as the 429 it was', async () => {
    const limits: Limits = { perMinute: 2, perDay: 1000 };
    const recordLost = { on: false };
    const { limiter } = limiterWith((_n, _attempt, call) =>
      recordLost.on && limiterWrite(call) === 'refusal' ? { kind: 'timeout-after-write' } : undefined,
    );
    const key = newKey();
    nowMs = Date.parse('2026-11-22T10:00:15.000Z');
    expect(await request(limiter, key, limits)).toMatchObject({ sent: 'served' });
    expect(await request(limiter, key, limits)).toMatchObject({ sent: 'served' });
    recordLost.on = true;
    expect(await request(limiter, key, limits)).toMatchObject({ sent: 'RATE_LIMITED' });
    expect(await request(limiter, key, limits)).toMatchObject({ sent: 'RATE_LIMITED' });
    expect((await checker.read(key, nowMs))?.refused).toBe(2);
    recordLost.on = false;
    // Two 429s sent, at most 2 allowed: the third 429 crosses the threshold and bans.
    expect(await request(limiter, key, limits)).toMatchObject({ sent: 'KEY_TEMPORARILY_BANNED' });
  });

  test(
    `a genuine abuser under the same late replies is still banned: ${small.perMinute + banThreshold(small) + OVER} at once on a fresh key, the limit served, the refusal past the threshold bans`,
    async () => {
      const { limiter } = limiterWith(updatesLate());
      const key = newKey();
      nowMs = Date.parse('2026-11-22T10:00:30.000Z');
      const answers = await burst(limiter, key, small, small.perMinute + banThreshold(small) + OVER);
      const item = await checker.read(key, nowMs);
      expect(count(answers, (a) => a.sent === 'served')).toBe(small.perMinute);
      expect(count(answers, (a) => a.sent === 'RATE_LIMITED')).toBe(banThreshold(small));
      expect(count(answers, (a) => a.sent === 'KEY_TEMPORARILY_BANNED')).toBe(OVER);
      expect(item?.bannedUntil).toBeDefined();
    },
    BURST_TIMEOUT_MS,
  );
});
