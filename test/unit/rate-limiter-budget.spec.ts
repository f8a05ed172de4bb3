// The admit algorithm's time budget (lib/core/limiter/budget.ts) over the in-memory store, as
// timedLimiter runs it: each store call takes as long as the test says, moving the clock it is timed
// by (no real waiting). No admitting write once the work after its reply has no time left; a slot
// whose reply came too late for the work given back; no refusal recorded without time for its
// write; the windows of the request's arrival; the request's deadline on every call; and the
// estimate of a call's time, the slowest of the recent ones.
import { requestDeadline } from '../../lib/commons/deadline';
import type { Limits } from '../../lib/contract/plans';
import { PLAN_LIMITS } from '../../lib/contract/plans';
import { RECENT_CALLS, RecentLatency, timedStore, type TimeBudget } from '../../lib/core/limiter/budget';
import { KeyRevokedError, NoTimeToServeError } from '../../lib/core/limiter/limit-errors';
import { admit, timedLimiter } from '../../lib/core/limiter/limiter';
import { banThreshold } from '../../lib/core/limiter/rules';
import { unixSeconds, windowAt } from '../../lib/core/limiter/windows';
import { InMemoryLimiterStore, type StoreCall, type StoreFault } from '../support/in-memory-limiter-store';

const free = PLAN_LIMITS.free;
const T0 = Date.parse('2026-11-22T10:00:15.000Z');
const minuteOf = (ms: number) => windowAt('minute', unixSeconds(ms));
let keys = 0;
const newKey = () => `budget-key-${++keys}`;

/**
 * timedLimiter over the in-memory store on one clock, its epoch ms and the monotonic clock it
 * times calls by: a call takes `slow(call)` ms, the clock moving on by as much while it is under way.
 */
function limiter(
  slow: (call: StoreCall) => number,
  fault: (call: StoreCall) => StoreFault | undefined = () => undefined,
) {
  const clock = { ms: T0 };
  const store = new InMemoryLimiterStore({
    fault: (_n, call) => {
      clock.ms += slow(call);
      return fault(call);
    },
  });
  const warnings: string[] = [];
  const timed = timedLimiter(store, { now: () => clock.ms, elapsedMs: () => clock.ms }, (what) => {
    warnings.push(what);
  });
  return {
    ...timed,
    clock,
    store,
    warnings,
    /** `ms` from now for the request's calls, and `workCalls` calls of its own work once admitted. */
    budget(ms: number, workCalls: number, more: Partial<TimeBudget> = {}): TimeBudget {
      const endsAt = clock.ms + ms;
      return { remainingMs: () => endsAt - clock.ms, workCalls, ...more };
    },
    stored: (keyId: string) => store.peek({ keyId, day: windowAt('day', unixSeconds(clock.ms)) }),
    operations: () => store.calls.map((call) => call.operation),
  };
}

/** Calls of `operation` take `ms`; the others none. */
const slowCalls =
  (slowness: { operation?: StoreCall['operation']; ms: number }) =>
  (call: StoreCall): number =>
    slowness.operation === undefined || call.operation === slowness.operation ? slowness.ms : 0;

describe('the time budget of an admission', () => {
  test('with no time for the work as slow as the slowest recent call, no write is sent: 503 (NoTimeToServeError), counted nowhere; with just enough, served', async () => {
    const slowness = { ms: 300 };
    const under = limiter(slowCalls(slowness));
    const key = newKey();
    // The estimate starts at nothing: the first request has all the time it needs.
    expect(await under.admit(key, free, under.budget(10_000, 1))).toMatchObject({ admitted: true });
    slowness.ms = 0;
    const workCalls = 2;
    const calls = under.store.calls.length;
    await expect(under.admit(key, free, under.budget(workCalls * 300 - 1, workCalls))).rejects.toBeInstanceOf(
      NoTimeToServeError,
    );
    expect(under.store.calls).toHaveLength(calls);
    expect(under.stored(key)).toMatchObject({ day: 1, inMinute: 1 });
    expect(await under.admit(key, free, under.budget(workCalls * 300, workCalls))).toMatchObject({ admitted: true });
    expect(under.stored(key)).toMatchObject({ day: 2, inMinute: 2 });
  });

  test('a slot whose reply came too late for the work is given back: 503 (NoTimeToServeError), the counts as before; a give-back that fails leaves it used', async () => {
    const slowness = { operation: 'take' as const, ms: 0 };
    const failGiveBack = { on: false };
    const under = limiter(slowCalls(slowness), (call) =>
      failGiveBack.on && call.operation === 'giveBack' ? { kind: 'failed-before-write' } : undefined,
    );
    const key = newKey();
    await under.admit(key, free);
    await under.admit(key, free);
    // Time for the write and the work as far as the estimate knows, but the reply takes 600 of the 1000 ms.
    slowness.ms = 600;
    await expect(under.admit(key, free, under.budget(1000, 1))).rejects.toBeInstanceOf(NoTimeToServeError);
    expect(under.operations().slice(-2)).toEqual(['take', 'giveBack']);
    expect(under.store.calls.at(-1)).toMatchObject({ write: { minute: minuteOf(T0).start } });
    expect(under.stored(key)).toMatchObject({ day: 2, inMinute: 2 });
    expect(under.warnings).toEqual([]);
    // With time for the work after a reply as slow as the slowest, served.
    expect(await under.admit(key, free, under.budget(1200, 1))).toMatchObject({ admitted: true });
    expect(under.stored(key)).toMatchObject({ day: 3, inMinute: 3 });

    failGiveBack.on = true;
    slowness.ms = 1000;
    await expect(under.admit(key, free, under.budget(1500, 1))).rejects.toBeInstanceOf(NoTimeToServeError);
    expect(under.warnings).toEqual(['slot not given back']);
    expect(under.stored(key)).toMatchObject({ day: 4, inMinute: 4 });
  });

  test('a refusal whose refusing reply left no time for one more write is answered 429 and not recorded; with just that time, recorded', async () => {
    const slowness = { ms: 0 };
    const under = limiter(slowCalls(slowness));
    const key = newKey();
    const limits: Limits = { perMinute: 2, perDay: 100 };
    await under.admit(key, limits);
    await under.admit(key, limits);
    slowness.ms = 400;
    // The work would make no call (0): only the refusal's record needs the time left.
    expect(await under.admit(key, limits, under.budget(799, 0))).toMatchObject({ reason: 'RATE_LIMITED' });
    expect(under.operations()).not.toContain('recordRefusal');
    expect(under.stored(key)).toMatchObject({ refused: 0 });
    expect(await under.admit(key, limits, under.budget(800, 0))).toMatchObject({ reason: 'RATE_LIMITED' });
    expect(under.operations().slice(-2)).toEqual(['take', 'recordRefusal']);
    expect(under.stored(key)).toMatchObject({ refused: 1 });
  });

  test('without an estimate of the time a call takes, any time left will do', async () => {
    const store = new InMemoryLimiterStore();
    const key = newKey();
    const noTimeLeft = { remainingMs: () => 0, workCalls: 3 };
    expect(await admit({ store, now: () => T0, warn: () => undefined }, key, free, noTimeLeft)).toMatchObject({
      admitted: true,
    });
  });

  test('a request is counted in the windows of its arrival, not those of the moment it reaches the limiter', async () => {
    const under = limiter(() => 0);
    const key = newKey();
    under.clock.ms = minuteOf(T0).resetAt * 1000 - 200;
    const arrivedAtMs = under.clock.ms;
    // Its key lookup took until the next minute.
    under.clock.ms += 300;
    const admission = await under.admit(key, free, under.budget(10_000, 1, { arrivedAtMs }));
    expect(admission).toMatchObject({
      admitted: true,
      headers: { resetAt: minuteOf(arrivedAtMs).resetAt },
      slot: { minute: minuteOf(arrivedAtMs).start },
    });
    expect(under.stored(key)).toMatchObject({ minute: minuteOf(arrivedAtMs).start });
  });

  test('every store call a request makes carries its deadline: the admitting write, the refusal, the ban and its next day, the give-back', async () => {
    const start = Date.parse('2026-11-22T23:55:30.000Z');
    const under = limiter(() => 0);
    under.clock.ms = start;
    const timers = { now: () => under.clock.ms, after: () => () => undefined };
    const deadline = requestDeadline(timers, 6_000, 100);
    const key = newKey();
    const limits: Limits = { perMinute: 1, perDay: 100 };
    const served = await under.admit(key, limits);
    for (let i = 0; i < banThreshold(limits); i++) await under.admit(key, limits);
    const before = under.store.calls.length;
    expect(await under.admit(key, limits, under.budget(10_000, 1, { deadline }))).toMatchObject({
      reason: 'KEY_TEMPORARILY_BANNED',
      banStarted: true,
    });
    const banning = under.store.calls.slice(before);
    expect(banning.map((call) => call.operation)).toEqual(['take', 'recordRefusal', 'writeBan', 'writeBan']);
    expect(banning.every((call) => call.deadline === deadline)).toBe(true);
    if (!served.admitted) throw new Error('the first request is served');
    await under.giveBack(key, served.slot, deadline);
    expect(under.store.calls.at(-1)).toMatchObject({ operation: 'giveBack', deadline });
    expect(under.stored(key)).toMatchObject({ day: 0, inMinute: 0 });
  });

  test('a slot its request did not use after all is given back (a failed give-back only warns); a key marked revoked is refused', async () => {
    const failing = { on: false };
    const under = limiter(
      () => 0,
      (call) => (failing.on && call.operation === 'giveBack' ? { kind: 'failed-before-write' } : undefined),
    );
    const key = newKey();
    const first = await under.admit(key, free);
    const second = await under.admit(key, free);
    if (!first.admitted || !second.admitted) throw new Error('both requests are served');
    await under.giveBack(key, first.slot);
    expect(under.stored(key)).toMatchObject({ day: 1, inMinute: 1 });
    failing.on = true;
    await under.giveBack(key, second.slot);
    expect(under.warnings).toEqual(['slot not given back']);
    expect(under.stored(key)).toMatchObject({ day: 1, inMinute: 1 });
    await under.markRevoked(key, under.clock.ms, 60);
    await expect(under.admit(key, free)).rejects.toBeInstanceOf(KeyRevokedError);
  });
});

describe("the estimate of a call's time", () => {
  test('is the slowest of the last RECENT_CALLS calls, 0 before any', () => {
    const latency = new RecentLatency();
    expect(latency.slowestMs()).toBe(0);
    for (const ms of [5, 30, 10]) latency.record(ms);
    expect(latency.slowestMs()).toBe(30);
    for (let i = 0; i < RECENT_CALLS - 3; i++) latency.record(1);
    expect(latency.slowestMs()).toBe(30);
    // The oldest go out first: the 5, the 30, then the 10.
    latency.record(2);
    expect(latency.slowestMs()).toBe(30);
    latency.record(2);
    expect(latency.slowestMs()).toBe(10);
    latency.record(2);
    expect(latency.slowestMs()).toBe(2);
  });

  test('times every call of the store, failed ones too, and passes each through with its deadline', async () => {
    const clock = { ms: 0 };
    const durations: Record<StoreCall['operation'], number> = {
      take: 1,
      recordRefusal: 2,
      writeBan: 3,
      giveBack: 4,
      markRevoked: 5,
      read: 6,
    };
    const failing = { on: false };
    const memory = new InMemoryLimiterStore({
      fault: (_n, call) => {
        clock.ms += failing.on ? 50 : durations[call.operation];
        return failing.on ? { kind: 'failed-before-write' } : undefined;
      },
    });
    const latency = new RecentLatency();
    const store = timedStore(memory, latency, () => clock.ms);
    const deadline = requestDeadline({ now: () => clock.ms, after: () => () => undefined }, 6_000, 100);
    const item = { keyId: newKey(), day: windowAt('day', unixSeconds(T0)) };
    const minute = minuteOf(T0).start;
    const now = unixSeconds(T0);
    const limits = { perMinute: 5, perDay: 10 };

    expect(await store.take(item, { minute, newMinute: true, now, limits }, deadline)).toEqual({
      applied: true,
      day: 1,
      inMinute: 1,
    });
    expect(latency.slowestMs()).toBe(1);
    expect(await store.recordRefusal(item, { minute, newMinute: false }, deadline)).toBe(1);
    expect(latency.slowestMs()).toBe(2);
    expect(await store.writeBan(item, { from: now + 1, until: now + 60, now }, deadline)).toEqual({ applied: true });
    expect(latency.slowestMs()).toBe(3);
    expect(await store.giveBack(item, { minute }, deadline)).toBe(true);
    expect(latency.slowestMs()).toBe(4);
    await store.markRevoked(item, { at: now });
    expect(latency.slowestMs()).toBe(5);
    expect(await store.read(item, deadline)).toMatchObject({
      day: 0,
      refused: 1,
      bannedUntil: now + 60,
      revoked: true,
    });
    expect(latency.slowestMs()).toBe(6);
    expect(memory.calls.filter((call) => call.operation !== 'markRevoked').map((call) => call.deadline)).toEqual(
      Array(5).fill(deadline),
    );

    failing.on = true;
    await expect(store.read(item)).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(latency.slowestMs()).toBe(50);
  });

  test('a slow call seen by one request holds back the next requests until it is no longer recent', async () => {
    const slowness = { ms: 500 };
    const under = limiter(slowCalls(slowness));
    const key = newKey();
    const limits: Limits = { perMinute: RECENT_CALLS + 10, perDay: 1000 };
    await under.admit(key, limits);
    slowness.ms = 0;
    await expect(under.admit(key, limits, under.budget(499, 1))).rejects.toBeInstanceOf(NoTimeToServeError);
    // Each served request makes one call, as quick as the clock can tell.
    for (let i = 0; i < RECENT_CALLS - 1; i++) await under.admit(key, limits);
    await expect(under.admit(key, limits, under.budget(499, 1))).rejects.toBeInstanceOf(NoTimeToServeError);
    await under.admit(key, limits);
    expect(await under.admit(key, limits, under.budget(499, 1))).toMatchObject({ admitted: true });
    expect(under.stored(key)).toMatchObject({ minute: minuteOf(T0).start, inMinute: RECENT_CALLS + 2 });
  });
});
