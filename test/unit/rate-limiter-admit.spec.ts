// The admit algorithm (lib/core/limiter/limiter.ts) over the in-memory store, with an injected clock: the
// limiter's rules request by request, under parallel requests, with late, lost and failed writes,
// and across minute and day boundaries. The store keeps the DynamoDB store's conditions (both run
// test/support/limiter-store-contract.ts). Every plan value comes from lib/contract/plans.ts.
import { BAN, limitsFor, PLAN_LIMITS, type Limits } from '../../lib/contract/plans';
import { admit, markRevoked } from '../../lib/core/limiter/limiter';
import { ItemKeptChangingError, KeyRevokedError, MinutePassedError } from '../../lib/core/limiter/limit-errors';
import {
  banThreshold,
  REVOCATION_CLOCK_SKEW_SECONDS,
  revocationDays,
  type Admission,
  type LimiterState,
} from '../../lib/core/limiter/rules';
import type { LimiterStore } from '../../lib/core/limiter/store';
import { MINUTE_SECONDS, refusalAt, unixSeconds, windowAt } from '../../lib/core/limiter/windows';
import {
  InMemoryLimiterStore,
  type InMemoryLimiterOptions,
  type StoreCall,
  type StoreFault,
} from '../support/in-memory-limiter-store';

const free = PLAN_LIMITS.free;
const PAID = (['free', 'pro', 'business'] as const).map((plan) => [plan, PLAN_LIMITS[plan]] as const);
const T0 = Date.parse('2026-11-22T10:00:15.000Z');
const seconds = (ms: number) => unixSeconds(ms);
const minuteEnd = (ms: number) => windowAt('minute', seconds(ms)).resetAt;
const dayEnd = (ms: number) => windowAt('day', seconds(ms)).resetAt;
let keys = 0;
const newKey = () => `key-${++keys}`;

/** A limiter over an in-memory store, on a clock the test moves. */
function limiter(options: InMemoryLimiterOptions = {}, startMs = T0) {
  const store = new InMemoryLimiterStore(options);
  const clock = { ms: startMs };
  const warnings: string[] = [];
  const deps = { store, now: () => clock.ms, warn: (what: string) => void warnings.push(what) };
  const one = (keyId: string, limits: Limits) => admit(deps, keyId, limits);
  return {
    store,
    clock,
    warnings,
    admit: one,
    /** One after the other. */
    async many(keyId: string, limits: Limits, n: number): Promise<Admission[]> {
      const out: Admission[] = [];
      for (let i = 0; i < n; i++) out.push(await one(keyId, limits));
      return out;
    },
    parallel: (keyId: string, limits: Limits, n: number) =>
      Promise.all(Array.from({ length: n }, () => one(keyId, limits))),
    /** The key's item for the clock's day (or `atMs`'s), past any fault. */
    stored: (keyId: string, atMs = clock.ms): LimiterState | undefined =>
      store.peek({ keyId, day: windowAt('day', seconds(atMs)) }),
  };
}

const outcome = (a: Admission) => (a.admitted ? 'served' : a.reason);
const count = (admissions: Admission[], what: string) => admissions.filter((a) => outcome(a) === what).length;
/** Retry-After of the answer made at `nowMs`. */
const retryAfter = (a: Admission, nowMs: number) => refusalAt(a.headers, nowMs).retryAfterSeconds;

/** A gate the test opens: replies held on it arrive once it is open. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe.each(PAID)('the %s plan', (_plan, limits) => {
  test('Remaining counts down exactly, Reset is the next minute boundary; the request after the limit is RATE_LIMITED', async () => {
    const under = limiter();
    const key = newKey();
    const served = await under.many(key, limits, limits.perMinute);
    served.forEach((a, i) => {
      expect(a).toEqual({
        admitted: true,
        headers: { limit: limits.perMinute, remaining: limits.perMinute - 1 - i, resetAt: minuteEnd(T0) },
        slot: { minute: minuteEnd(T0) - MINUTE_SECONDS, day: expect.objectContaining({ kind: 'day' }) },
      });
    });
    under.clock.ms = T0 + 44_400;
    const refused = await under.admit(key, limits);
    expect(refused).toEqual({
      admitted: false,
      reason: 'RATE_LIMITED',
      headers: { limit: limits.perMinute, remaining: 0, resetAt: minuteEnd(T0) },
    });
    expect(retryAfter(refused, under.clock.ms)).toBe(1);
    expect(retryAfter(refused, T0)).toBe(minuteEnd(T0) - seconds(T0));
  });

  test('a key that ignores its 429s is banned by the refusal past the threshold, is not counted while banned, and the ban lifts on time', async () => {
    const under = limiter();
    const key = newKey();
    const banEnd = seconds(T0) + BAN.durationSeconds;
    await under.many(key, limits, limits.perMinute);
    const refused = await under.many(key, limits, banThreshold(limits));
    expect(refused.every((a) => outcome(a) === 'RATE_LIMITED')).toBe(true);
    const banned = {
      admitted: false,
      reason: 'KEY_TEMPORARILY_BANNED',
      headers: { limit: limits.perMinute, remaining: 0, resetAt: banEnd },
    };
    // The refusal that crosses the threshold imposes the ban; the next finds it in force.
    const first = await under.admit(key, limits);
    expect(first).toEqual({ ...banned, banStarted: true });
    expect(retryAfter(first, under.clock.ms)).toBe(BAN.durationSeconds);
    under.clock.ms = T0 + 1000;
    expect(await under.admit(key, limits)).toEqual(banned);
    under.clock.ms = T0 + 5 * 60_000;
    expect(retryAfter(await under.admit(key, limits), under.clock.ms)).toBe(BAN.durationSeconds - 5 * 60);
    under.clock.ms = T0 + BAN.durationSeconds * 1000 - 500;
    const last = await under.admit(key, limits);
    expect(last).toEqual(banned);
    expect(retryAfter(last, under.clock.ms)).toBe(1);
    // Requests refused for the ban are counted nowhere.
    expect(under.stored(key)).toMatchObject({
      day: limits.perMinute,
      inMinute: limits.perMinute,
      refused: banThreshold(limits) + 1,
    });
    under.clock.ms = T0 + BAN.durationSeconds * 1000;
    expect(await under.admit(key, limits)).toEqual({
      admitted: true,
      headers: { limit: limits.perMinute, remaining: limits.perMinute - 1, resetAt: minuteEnd(under.clock.ms) },
      slot: { minute: minuteEnd(under.clock.ms) - MINUTE_SECONDS, day: expect.objectContaining({ kind: 'day' }) },
    });
    expect(under.stored(key)).toMatchObject({ day: limits.perMinute + 1, inMinute: 1, refused: 0 });
    // In the second the ban ends, a window's refusal is the window's, not the ended ban's.
    await under.many(key, limits, limits.perMinute - 1);
    expect(await under.admit(key, limits)).toMatchObject({ reason: 'RATE_LIMITED' });
  });

  test('the minute rolls over at the boundary of the clock', async () => {
    const under = limiter();
    const key = newKey();
    await under.many(key, limits, limits.perMinute);
    under.clock.ms = (minuteEnd(T0) - 1) * 1000 + 999;
    const refused = await under.admit(key, limits);
    expect(refused).toMatchObject({ admitted: false, reason: 'RATE_LIMITED' });
    expect(retryAfter(refused, under.clock.ms)).toBe(1);
    under.clock.ms = minuteEnd(T0) * 1000;
    expect(await under.admit(key, limits)).toEqual({
      admitted: true,
      headers: { limit: limits.perMinute, remaining: limits.perMinute - 1, resetAt: minuteEnd(T0) + MINUTE_SECONDS },
      slot: { minute: minuteEnd(T0), day: expect.objectContaining({ kind: 'day' }) },
    });
    expect(under.stored(key)).toMatchObject({ day: limits.perMinute + 1, inMinute: 1 });
  });

  test('parallel requests on a fresh key: exactly the limit served, the threshold refused, the rest told of one ban', async () => {
    const under = limiter();
    const key = newKey();
    const extra = limits.perMinute;
    const admissions = await under.parallel(key, limits, limits.perMinute + banThreshold(limits) + extra);
    expect(count(admissions, 'served')).toBe(limits.perMinute);
    expect(count(admissions, 'RATE_LIMITED')).toBe(banThreshold(limits));
    expect(count(admissions, 'KEY_TEMPORARILY_BANNED')).toBe(extra);
    const ends = new Set(
      admissions.filter((a) => !a.admitted && a.reason === 'KEY_TEMPORARILY_BANNED').map((a) => a.headers.resetAt),
    );
    expect([...ends]).toEqual([under.stored(key)?.bannedUntil]);
    expect(admissions.filter((a) => !a.admitted && a.banStarted)).toHaveLength(1);
    // Every served request was told its own place in the minute.
    const remaining = admissions.filter((a) => a.admitted).map((a) => a.headers.remaining);
    expect(new Set(remaining).size).toBe(limits.perMinute);
  });
});

test('requests crossing the threshold together on clocks a second apart all report the one ban stored', async () => {
  const under = limiter();
  const key = newKey();
  const limits = { perMinute: 1, perDay: 100 };
  await under.many(key, limits, limits.perMinute + banThreshold(limits));
  const aSecondAhead = { store: under.store, now: () => under.clock.ms + 1000, warn: () => {} };
  const answers = await Promise.all([under.admit(key, limits), admit(aSecondAhead, key, limits)]);
  const stored = under.stored(key)?.bannedUntil;
  expect(answers.map((a) => a.headers.resetAt)).toEqual([stored, stored]);
  expect(answers.map((a) => outcome(a))).toEqual(['KEY_TEMPORARILY_BANNED', 'KEY_TEMPORARILY_BANNED']);
  expect(answers.filter((a) => !a.admitted && a.banStarted)).toHaveLength(1);
});

describe('the day window', () => {
  test('binds when it runs out first: its headers, then QUOTA_EXCEEDED until midnight UTC, whatever the minute', async () => {
    const under = limiter();
    const key = newKey();
    const limits = limitsFor('enterprise', { perMinute: 100, perDay: 5 });
    const admissions = await under.many(key, limits, limits.perDay);
    admissions.forEach((a, i) =>
      expect(a.headers).toEqual({ limit: limits.perDay, remaining: limits.perDay - 1 - i, resetAt: dayEnd(T0) }),
    );
    expect(await under.admit(key, limits)).toEqual({
      admitted: false,
      reason: 'QUOTA_EXCEEDED',
      headers: { limit: limits.perDay, remaining: 0, resetAt: dayEnd(T0) },
    });
    under.clock.ms = (dayEnd(T0) - 1) * 1000;
    const late = await under.admit(key, limits);
    expect(late).toMatchObject({ admitted: false, reason: 'QUOTA_EXCEEDED', headers: { resetAt: dayEnd(T0) } });
    expect(retryAfter(late, under.clock.ms)).toBe(1);
    under.clock.ms = dayEnd(T0) * 1000;
    expect(await under.admit(key, limits)).toMatchObject({ admitted: true, headers: { remaining: limits.perDay - 1 } });
  });

  test('binds once enough minutes have been used, and only then', async () => {
    const under = limiter();
    const key = newKey();
    const limits = { perMinute: 10, perDay: 25 };
    for (let minute = 0; minute < 2; minute++) {
      under.clock.ms = T0 + minute * 60_000;
      const full = await under.many(key, limits, limits.perMinute);
      expect(full.every((a) => a.admitted)).toBe(true);
      expect(full.at(-1)?.headers).toMatchObject({ limit: limits.perMinute, remaining: 0 });
    }
    under.clock.ms += 60_000;
    const admissions = await under.many(key, limits, 6);
    expect(admissions[0]?.headers).toEqual({ limit: limits.perDay, remaining: 4, resetAt: dayEnd(T0) });
    expect(admissions.filter((a) => a.admitted)).toHaveLength(5);
    expect(admissions.at(-1)).toMatchObject({
      reason: 'QUOTA_EXCEEDED',
      headers: { limit: limits.perDay, remaining: 0 },
    });
  });

  test('a request refused by the minute window does not use up the day, and the reverse', async () => {
    const under = limiter();
    const key = newKey();
    const limits = { perMinute: 3, perDay: 5 };
    await under.many(key, limits, 3);
    expect((await under.many(key, limits, 3)).map(outcome)).toEqual(Array(3).fill('RATE_LIMITED'));
    expect(under.stored(key)).toMatchObject({ day: 3, inMinute: 3, refused: 3 });
    under.clock.ms += 60_000;
    const next = await under.many(key, limits, 3);
    expect(next.map((a) => a.headers.remaining)).toEqual([1, 0, 0]);
    expect(next[2]).toMatchObject({ admitted: false, reason: 'QUOTA_EXCEEDED' });
    expect(under.stored(key)).toMatchObject({ day: 5, inMinute: 2, refused: 1 });
  });

  test('refusals by the day window count towards a ban too', async () => {
    const under = limiter();
    const key = newKey();
    const limits = { perMinute: 3, perDay: 1 };
    await under.admit(key, limits);
    const refused = await under.many(key, limits, banThreshold(limits) + 1);
    expect(refused.map(outcome)).toEqual([
      ...Array(banThreshold(limits)).fill('QUOTA_EXCEEDED'),
      'KEY_TEMPORARILY_BANNED',
    ]);
  });

  test('refusals of a full day in a new minute are all recorded there, whichever starts the minute', async () => {
    const under = limiter();
    const key = newKey();
    const limits = { perMinute: 5, perDay: 2 };
    await under.many(key, limits, limits.perDay);
    under.clock.ms += 60_000;
    const refused = await under.parallel(key, limits, 3);
    expect(refused.map(outcome)).toEqual(Array(3).fill('QUOTA_EXCEEDED'));
    expect(under.stored(key)).toMatchObject({ minute: minuteEnd(T0), day: limits.perDay, inMinute: 0, refused: 3 });
  });

  test('parallel requests on a full day minute by minute: no QUOTA_EXCEEDED while the day is below its limit', async () => {
    const under = limiter();
    const key = newKey();
    const limits = { perMinute: 10, perDay: 25 };
    expect((await under.parallel(key, limits, 10)).every((a) => a.admitted)).toBe(true);
    under.clock.ms += 60_000;
    const second = await under.parallel(key, limits, 20);
    expect([count(second, 'served'), count(second, 'RATE_LIMITED')]).toEqual([10, 10]);
    under.clock.ms += 60_000;
    const third = await under.parallel(key, limits, 10);
    expect([count(third, 'served'), count(third, 'QUOTA_EXCEEDED')]).toEqual([5, 5]);
    expect(under.stored(key)).toMatchObject({ day: 25, inMinute: 5 });
  });
});

test('a ban that crosses midnight holds on the next day (its item written too) and lifts on time', async () => {
  const start = Date.parse('2026-11-22T23:55:30.000Z');
  const under = limiter({}, start);
  const key = newKey();
  const limits = { perMinute: 2, perDay: 100 };
  await under.many(key, limits, limits.perMinute + banThreshold(limits));
  const banEnd = seconds(start) + BAN.durationSeconds;
  expect(banEnd).toBeGreaterThan(dayEnd(start));
  expect(await under.admit(key, limits)).toMatchObject({
    reason: 'KEY_TEMPORARILY_BANNED',
    headers: { resetAt: banEnd },
  });
  expect(under.stored(key, dayEnd(start) * 1000)).toMatchObject({ bannedUntil: banEnd, day: 0 });

  under.clock.ms = dayEnd(start) * 1000 + 10_000;
  const nextDay = await under.admit(key, limits);
  expect(nextDay).toEqual({
    admitted: false,
    reason: 'KEY_TEMPORARILY_BANNED',
    headers: { limit: limits.perMinute, remaining: 0, resetAt: banEnd },
  });
  expect(retryAfter(nextDay, under.clock.ms)).toBe(banEnd - seconds(under.clock.ms));
  under.clock.ms = banEnd * 1000;
  expect(await under.admit(key, limits)).toMatchObject({ admitted: true, headers: { limit: 2, remaining: 1 } });
});

test('enterprise custom limits apply', async () => {
  const under = limiter();
  const key = newKey();
  const limits = limitsFor('enterprise', { perMinute: 2, perDay: 3 });
  const first = await under.many(key, limits, 3);
  expect(first.map((a) => a.headers)).toEqual([
    { limit: 2, remaining: 1, resetAt: minuteEnd(T0) },
    { limit: 2, remaining: 0, resetAt: minuteEnd(T0) },
    { limit: 2, remaining: 0, resetAt: minuteEnd(T0) },
  ]);
  expect(first[2]).toMatchObject({ admitted: false, reason: 'RATE_LIMITED' });
  under.clock.ms += 60_000;
  const second = await under.many(key, limits, 2);
  expect(second.map((a) => a.admitted)).toEqual([true, false]);
  expect(second[1]).toMatchObject({ reason: 'QUOTA_EXCEEDED', headers: { limit: 3, remaining: 0 } });
});

test('a tie between the windows goes to the day, the longer wait', async () => {
  const [first] = await limiter().many(newKey(), { perMinute: 5, perDay: 5 }, 1);
  expect(first?.headers).toEqual({ limit: 5, remaining: 4, resetAt: dayEnd(T0) });
});

test('different keys never share counters', async () => {
  const under = limiter();
  const limits = { perMinute: 1, perDay: 10 };
  const [a, b] = [newKey(), newKey()];
  expect((await under.many(a, limits, 2)).map((x) => x.admitted)).toEqual([true, false]);
  expect((await under.many(b, limits, 1)).map((x) => x.admitted)).toEqual([true]);
});

describe.each(['returned', 'read after'] as const)('failed conditions %s', (conditionFailures) => {
  /** Picks the calls of the store by what they are. */
  const when =
    (pick: (call: StoreCall) => StoreFault | undefined) =>
    (_n: number, call: StoreCall): StoreFault | undefined =>
      pick(call);

  test("another function's clock a little ahead started the next minute: a request in our minute is counted there, never moves it back", async () => {
    const under = limiter({ conditionFailures });
    const ahead = { ...under, now: () => under.clock.ms + 1000 };
    const key = newKey();
    under.clock.ms = minuteEnd(T0) * 1000 - 500;
    // The fast clock reads the next minute already.
    const fast = await admit({ store: under.store, now: ahead.now, warn: () => {} }, key, free);
    expect(fast).toMatchObject({ admitted: true, headers: { resetAt: minuteEnd(T0) + MINUTE_SECONDS } });
    const ours = await under.admit(key, free);
    expect(ours).toEqual({
      admitted: true,
      headers: { limit: free.perMinute, remaining: free.perMinute - 2, resetAt: minuteEnd(T0) + MINUTE_SECONDS },
      slot: { minute: minuteEnd(T0), day: expect.objectContaining({ kind: 'day' }) },
    });
    expect(under.stored(key)).toMatchObject({ minute: minuteEnd(T0), inMinute: 2, day: 2 });
  });

  test('a refusal met in a later minute (a clock behind) is answered but counted nowhere', async () => {
    const under = limiter({ conditionFailures });
    const key = newKey();
    under.clock.ms = minuteEnd(T0) * 1000;
    await under.many(key, free, free.perMinute);
    under.clock.ms -= 500;
    const refused = await under.admit(key, free);
    expect(refused).toMatchObject({ reason: 'RATE_LIMITED', headers: { resetAt: minuteEnd(T0) + MINUTE_SECONDS } });
    expect(under.stored(key)).toMatchObject({ refused: 0 });
    expect(under.store.calls.filter((c) => c.operation === 'recordRefusal')).toHaveLength(0);
  });

  test('a request whose minute ended while it waited, the next minute started meanwhile: 503 (MinutePassedError) or an uncounted 429, never a slot or a refusal of the new minute', async () => {
    const held = gate();
    const slowKey = newKey();
    const hold = { on: false };
    const under = limiter({
      conditionFailures,
      fault: when((call) => (call.operation === 'take' && hold.on ? { kind: 'late', until: held.opened } : undefined)),
    });
    under.clock.ms = minuteEnd(T0) * 1000 - 200;
    await under.many(slowKey, free, free.perMinute);
    hold.on = true;
    // Its admission meets the full minute, and the answer comes after the next minute started.
    const late = under.admit(slowKey, free).then(outcome, (error: unknown) => error);
    await new Promise((resolve) => setImmediate(resolve));
    hold.on = false;
    under.clock.ms = minuteEnd(T0) * 1000 + 100;
    expect(await under.admit(slowKey, free)).toMatchObject({ admitted: true });
    held.open();
    const answer = await late;
    if (conditionFailures === 'read after') expect(answer).toBeInstanceOf(MinutePassedError);
    else expect(answer).toBe('RATE_LIMITED');
    expect(under.stored(slowKey)).toMatchObject({ minute: minuteEnd(T0), inMinute: 1, refused: 0 });
  });

  test('bursts at :59.8 and :00.1, every write answered only once the clock has moved on: no ban, and the next minute serves its own limit', async () => {
    const moved = gate();
    const under = limiter({
      conditionFailures,
      fault: when((call) => (call.operation === 'read' ? undefined : { kind: 'late', until: moved.opened })),
    });
    const key = newKey();
    // Past the limit, within the ban threshold; two bursts' refusals together would be past it.
    type Sent = { sent: string; servedIn: number | undefined; minute: number };
    const size = free.perMinute + Math.floor((banThreshold(free) * 2) / 3) + 1;
    const sent = (minuteMs: number) =>
      Array.from({ length: size }, () =>
        under.admit(key, free).then(
          (a): Sent => ({ sent: outcome(a), servedIn: a.admitted ? a.headers.resetAt : undefined, minute: minuteMs }),
          (error: unknown): Sent => ({
            sent: error instanceof MinutePassedError ? '503' : String(error),
            servedIn: undefined,
            minute: minuteMs,
          }),
        ),
      );
    under.clock.ms = minuteEnd(T0) * 1000 - 200;
    const first = sent(under.clock.ms);
    under.clock.ms = minuteEnd(T0) * 1000 + 100;
    const second = sent(under.clock.ms);
    moved.open();
    const answers = await Promise.all([...first, ...second]);
    const next = minuteEnd(T0) + MINUTE_SECONDS;
    expect(answers.filter((a) => a.sent === 'served' && a.servedIn === next)).toHaveLength(free.perMinute);
    expect(answers.filter((a) => a.sent === 'served' && a.minute === under.clock.ms)).toHaveLength(free.perMinute);
    expect(answers.filter((a) => a.sent === 'served' && a.servedIn === minuteEnd(T0)).length).toBeLessThanOrEqual(
      free.perMinute,
    );
    expect(new Set(answers.map((a) => a.sent))).not.toContain('KEY_TEMPORARILY_BANNED');
    expect(answers.filter((a) => !['served', 'RATE_LIMITED', '503'].includes(a.sent))).toEqual([]);
    expect(under.stored(key)?.bannedUntil).toBeUndefined();
  });

  test('the old minute served in full, its refusals decided after the next minute started: both minutes serve their limit, no ban', async () => {
    const held = gate();
    const hold = { on: false };
    const under = limiter({
      conditionFailures,
      fault: when((call) => (hold.on && call.operation === 'take' ? { kind: 'late', until: held.opened } : undefined)),
    });
    const key = newKey();
    under.clock.ms = minuteEnd(T0) * 1000 - 200;
    const opener = await under.admit(key, free);
    // The rest of the minute and the ban threshold's worth more, each answer held after its first write.
    hold.on = true;
    const first = Promise.all(
      Array.from({ length: free.perMinute + banThreshold(free) }, () =>
        under.admit(key, free).then(outcome, (error: unknown) => (error instanceof MinutePassedError ? 503 : error)),
      ),
    );
    while ((under.stored(key)?.inMinute ?? 0) < free.perMinute) await new Promise((r) => setImmediate(r));
    hold.on = false;
    under.clock.ms = minuteEnd(T0) * 1000 + 100;
    const second = await under.parallel(key, free, free.perMinute + banThreshold(free));
    held.open();
    const old = [outcome(opener), ...(await first)];
    expect(count(second, 'served')).toBe(free.perMinute);
    expect(count(second, 'RATE_LIMITED')).toBe(banThreshold(free));
    expect(old.filter((o) => o === 'served')).toHaveLength(free.perMinute);
    // Late, the old minute's refusals are 429s counted nowhere, or 503s where the new minute was read.
    const late = conditionFailures === 'returned' ? 'RATE_LIMITED' : 503;
    expect(old.filter((o) => o !== 'served')).toEqual(Array(banThreshold(free) + 1).fill(late));
    expect(under.stored(key)).toMatchObject({
      day: 2 * free.perMinute,
      inMinute: free.perMinute,
      refused: banThreshold(free),
    });
    expect(under.stored(key)?.bannedUntil).toBeUndefined();
  });
});

describe('lost and failed writes', () => {
  test('an admission whose reply is lost fails (503) and has used up its slot; one never made uses none', async () => {
    const lost = { fault: undefined as StoreFault | undefined };
    const under = limiter({ fault: () => lost.fault });
    const key = newKey();
    await under.admit(key, free);
    lost.fault = { kind: 'lost-after-write' };
    await expect(under.admit(key, free)).rejects.toMatchObject({ name: 'TimeoutError' });
    lost.fault = { kind: 'failed-before-write' };
    await expect(under.admit(key, free)).rejects.toMatchObject({ name: 'TimeoutError' });
    lost.fault = undefined;
    expect(await under.admit(key, free)).toMatchObject({ headers: { remaining: free.perMinute - 3 } });
    expect(under.stored(key)).toMatchObject({ day: 3, inMinute: 3, refused: 0 });
  });

  test('a request whose refusing answer is lost fails (503) and records no refusal', async () => {
    const lost = { on: false };
    const under = limiter({
      fault: (_n, call) => (lost.on && call.operation === 'take' ? { kind: 'lost-after-write' } : undefined),
    });
    const key = newKey();
    await under.many(key, free, free.perMinute);
    lost.on = true;
    for (let i = 0; i < banThreshold(free) + 5; i++) await expect(under.admit(key, free)).rejects.toThrow();
    expect(under.stored(key)).toMatchObject({ inMinute: free.perMinute, refused: 0 });
    expect(under.stored(key)?.bannedUntil).toBeUndefined();
  });

  test('refusals whose records lose their replies are answered 429 and, counted as sent, still ban the key', async () => {
    const under = limiter({
      fault: (_n, call) => (call.operation === 'recordRefusal' ? { kind: 'lost-after-write' } : undefined),
    });
    const key = newKey();
    await under.many(key, free, free.perMinute);
    const refused = await under.many(key, free, banThreshold(free) + 1);
    expect(refused.map(outcome)).toEqual([...Array(banThreshold(free)).fill('RATE_LIMITED'), 'KEY_TEMPORARILY_BANNED']);
    expect(under.warnings).toEqual(Array(banThreshold(free) + 1).fill('refusal not counted'));
  });

  test('refusals whose records are never made are answered 429 and never ban: a late ban, never a false one', async () => {
    const under = limiter({
      fault: (_n, call) => (call.operation === 'recordRefusal' ? { kind: 'failed-before-write' } : undefined),
    });
    const key = newKey();
    await under.many(key, free, free.perMinute);
    const refused = await under.many(key, free, 2 * banThreshold(free) + 2);
    expect(new Set(refused.map(outcome))).toEqual(new Set(['RATE_LIMITED']));
    expect(under.stored(key)).toMatchObject({ refused: 0 });
  });

  test('a ban write that fails leaves the 429 a RATE_LIMITED, not a 503; the next refusal bans', async () => {
    const failBan = { on: true };
    const under = limiter({
      fault: (_n, call) => (failBan.on && call.operation === 'writeBan' ? { kind: 'failed-before-write' } : undefined),
    });
    const key = newKey();
    await under.many(key, free, free.perMinute + banThreshold(free));
    expect(outcome(await under.admit(key, free))).toBe('RATE_LIMITED');
    expect(under.warnings).toEqual(['ban not written']);
    failBan.on = false;
    expect(await under.admit(key, free)).toMatchObject({ reason: 'KEY_TEMPORARILY_BANNED', banStarted: true });
  });

  test("a ban past midnight whose next day's entry fails still bans today", async () => {
    const start = Date.parse('2026-11-22T23:55:30.000Z');
    const under = limiter(
      {
        fault: (_n, call) =>
          call.operation === 'writeBan' && call.item.day.start === dayEnd(start)
            ? { kind: 'failed-before-write' }
            : undefined,
      },
      start,
    );
    const key = newKey();
    const limits = { perMinute: 2, perDay: 100 };
    await under.many(key, limits, limits.perMinute + banThreshold(limits));
    expect(await under.admit(key, limits)).toMatchObject({ reason: 'KEY_TEMPORARILY_BANNED', banStarted: true });
    expect(under.warnings).toEqual(['ban not extended past midnight']);
    expect(under.stored(key, dayEnd(start) * 1000)).toBeUndefined();
  });
});

describe('an item that another request changes before each write of ours', () => {
  const AUTHORIZER_TTL_SECONDS = 60;
  const start = Date.parse('2026-11-22T10:00:30.000Z');

  /**
   * A request at `start` whose every write finds the item changed just before it: a request of the
   * minute before stored its minute; ahead of our second write another request starts our minute,
   * ahead of the third one a function whose clock reads the next minute starts that, and ahead of
   * the fourth `last` runs. Each failed condition sends the algorithm to try again.
   */
  async function beaten(last: (at: (ms: number) => Promise<Admission>, memory: LimiterStore, key: string) => unknown) {
    const memory = new InMemoryLimiterStore();
    const key = newKey();
    /** Another request of the key, on a clock reading `ms`. */
    const at = (ms: number) => admit({ store: memory, now: () => ms, warn: () => {} }, key, free);
    await at(start - 60_000);
    const meanwhile = [async () => {}, () => at(start), () => at(start + 60_000), () => last(at, memory, key)];
    let takes = 0;
    const store: LimiterStore = {
      take: async (item, write, deadline) => {
        await meanwhile[takes++]?.();
        return memory.take(item, write, deadline);
      },
      recordRefusal: (item, write, deadline) => memory.recordRefusal(item, write, deadline),
      writeBan: (item, ban, deadline) => memory.writeBan(item, ban, deadline),
      giveBack: (item, write, deadline) => memory.giveBack(item, write, deadline),
      markRevoked: (item, mark) => memory.markRevoked(item, mark),
      read: (item, deadline) => memory.read(item, deadline),
    };
    const answer = admit({ store, now: () => start, warn: () => {} }, key, free);
    return { answer, memory, key, takes: () => takes };
  }

  test('gives up after four writes with a 503 (contention, not a bug), its request counted nowhere', async () => {
    const under = await beaten((at) => at(start + 120_000));
    await expect(under.answer).rejects.toThrow(ItemKeptChangingError);
    await expect(under.answer).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(under.takes()).toBe(4);
    // The four other requests, each in a minute of its own; ours in none.
    expect(under.memory.peek({ keyId: under.key, day: windowAt('day', seconds(start)) })).toMatchObject({
      day: 4,
      inMinute: 1,
      minute: windowAt('minute', seconds(start)).start + 2 * MINUTE_SECONDS,
    });
  });

  test('a revocation met by the last of the four writes is still a KeyRevokedError (401)', async () => {
    const under = await beaten((_at, memory, key) => markRevoked(memory, key, start, AUTHORIZER_TTL_SECONDS));
    await expect(under.answer).rejects.toBeInstanceOf(KeyRevokedError);
    expect(under.takes()).toBe(4);
    expect(under.memory.peek({ keyId: under.key, day: windowAt('day', seconds(start)) })).toMatchObject({
      day: 3,
      revoked: true,
    });
  });
});

describe('revocation', () => {
  const AUTHORIZER_TTL_SECONDS = 60;

  test.each(['returned', 'read after'] as const)(
    'a key marked revoked is refused (KeyRevokedError) by its next admitting write, banned or not, over the limit or not, and counted nowhere (condition failures %s)',
    async (conditionFailures) => {
      const under = limiter({ conditionFailures });
      const served = newKey();
      const overLimit = newKey();
      const banned = newKey();
      await under.many(served, free, 3);
      await under.many(overLimit, free, free.perMinute + 2);
      await under.many(banned, free, free.perMinute + banThreshold(free) + 2);
      expect(under.stored(banned)?.bannedUntil).toBeDefined();
      for (const key of [served, overLimit, banned]) {
        const before = under.stored(key);
        await markRevoked(under.store, key, under.clock.ms, AUTHORIZER_TTL_SECONDS);
        // With no call beyond the one every request makes.
        const calls = under.store.calls.length;
        await expect(under.admit(key, free)).rejects.toBeInstanceOf(KeyRevokedError);
        // A new minute too: the mark is on the day's item, not the minute's.
        under.clock.ms += MINUTE_SECONDS * 1000;
        await expect(under.admit(key, free)).rejects.toBeInstanceOf(KeyRevokedError);
        expect(under.store.calls.slice(calls).map((call) => call.operation)).toEqual(['take', 'take']);
        under.clock.ms -= MINUTE_SECONDS * 1000;
        expect(under.stored(key)).toEqual({ ...before, revoked: true });
      }
      // Another key is untouched.
      expect((await under.admit(newKey(), free)).admitted).toBe(true);
    },
  );

  test('the mark reaches every day an authorization cached at the revoke can still be used in: a revoke just before midnight covers the next day', async () => {
    const late = Date.parse('2026-11-22T23:59:30.000Z');
    const under = limiter({}, late);
    const key = newKey();
    await under.admit(key, free);
    await markRevoked(under.store, key, late, AUTHORIZER_TTL_SECONDS);
    under.clock.ms = late + AUTHORIZER_TTL_SECONDS * 1000;
    await expect(under.admit(key, free)).rejects.toBeInstanceOf(KeyRevokedError);
    // Nothing counted on the next day either.
    expect(under.stored(key)).toMatchObject({ day: 0, revoked: true });
    // Each day the days covering [revoke - skew, revoke + TTL + skew] names, and no other.
    const days = revocationDays(seconds(late), AUTHORIZER_TTL_SECONDS);
    expect(days.map((d) => d.start)).toEqual([windowAt('day', seconds(late)).start, dayEnd(late)]);
    const midday = Date.parse('2026-11-22T12:00:00.000Z');
    expect(revocationDays(seconds(midday), AUTHORIZER_TTL_SECONDS)).toEqual([windowAt('day', seconds(midday))]);
    // The clocks ahead of the operator's by the skew reach the next day only through the cache time.
    const beforeSkew = (dayEnd(late) - REVOCATION_CLOCK_SKEW_SECONDS - AUTHORIZER_TTL_SECONDS / 2) * 1000;
    expect(revocationDays(seconds(beforeSkew), AUTHORIZER_TTL_SECONDS).map((d) => d.start)).toEqual([
      windowAt('day', seconds(late)).start,
      dayEnd(late),
    ]);
    const justAfter = Date.parse('2026-11-23T00:00:10.000Z');
    expect(revocationDays(seconds(justAfter), AUTHORIZER_TTL_SECONDS).map((d) => d.start)).toEqual([
      windowAt('day', seconds(late)).start,
      windowAt('day', seconds(justAfter)).start,
    ]);
  });
});
