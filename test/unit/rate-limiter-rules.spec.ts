// The limiter's decisions as functions of the stored state, the limits and the time, table by
// table. Limits come from lib/contract/plans.ts; the algorithm over a store is in
// rate-limiter-admit.test.ts.
import { BAN, PLAN_LIMITS, type Limits } from '../../lib/contract/plans';
import {
  admitted,
  banFrom,
  banned,
  isBanned,
  planFor,
  refusedBy,
  type LimiterPlan,
  type LimiterState,
} from '../../lib/core/limiter/rules';
import { usageAt } from '../../lib/core/limiter/usage';
import { MINUTE_SECONDS, windowAt } from '../../lib/core/limiter/windows';

const free = PLAN_LIMITS.free;
/** 10:00:15 UTC, in Unix seconds. */
const NOW = Date.parse('2026-11-22T10:00:15Z') / 1000;
const MINUTE = windowAt('minute', NOW).start;
const NEXT = MINUTE + MINUTE_SECONDS;
const DAY = windowAt('day', NOW);

/** A stored item: `minute` current unless given, nothing counted unless given. */
const item = (fields: Partial<LimiterState>): LimiterState => ({
  day: 0,
  minute: MINUTE,
  inMinute: 0,
  refused: 0,
  bannedFrom: undefined,
  bannedUntil: undefined,
  revoked: false,
  ...fields,
});
const ban = (from: number, until: number) => ({ bannedFrom: from, bannedUntil: until });
const inForce = ban(NOW - 10, NOW + BAN.durationSeconds - 10);
const fromNextSecond = ban(NOW + 1, NOW + BAN.durationSeconds);
const ended = ban(NOW - BAN.durationSeconds, NOW);

describe('planFor: what a request arriving at 10:00:15 does, given the stored item', () => {
  const cases: [string, LimiterState | 'absent', Limits, number, LimiterPlan][] = [
    ['no item: the first request of the day starts its minute', 'absent', free, MINUTE, admit(MINUTE, true)],
    ['the current minute below both limits', item({ day: 5, inMinute: 5 }), free, MINUTE, admit(MINUTE, false)],
    [
      'the current minute one below its limit',
      item({ day: free.perMinute - 1, inMinute: free.perMinute - 1 }),
      free,
      MINUTE,
      admit(MINUTE, false),
    ],
    [
      'the current minute full: RATE_LIMITED, with the refusals it holds',
      item({ day: free.perMinute, inMinute: free.perMinute, refused: 7 }),
      free,
      MINUTE,
      refuse('RATE_LIMITED', MINUTE, false, 7),
    ],
    [
      'an earlier minute, full: a new minute starts',
      item({ minute: MINUTE - 60, day: free.perMinute, inMinute: free.perMinute, refused: 9 }),
      free,
      MINUTE,
      admit(MINUTE, true),
    ],
    [
      'the day full, in the current minute: QUOTA_EXCEEDED, even with the minute full too',
      item({ day: free.perDay, inMinute: free.perMinute, refused: 3 }),
      free,
      MINUTE,
      refuse('QUOTA_EXCEEDED', MINUTE, false, 3),
    ],
    [
      'the day full, in an earlier minute: QUOTA_EXCEEDED, as the first refusal of a new minute',
      item({ minute: MINUTE - 60, day: free.perDay, refused: 3 }),
      free,
      MINUTE,
      refuse('QUOTA_EXCEEDED', MINUTE, true, 0),
    ],
    ['a ban in force', item({ ...inForce }), free, MINUTE, { kind: 'banned', until: inForce.bannedUntil }],
    [
      'a ban in force on an item with nothing counted (the next day)',
      { ...item({ ...inForce }), minute: undefined },
      free,
      MINUTE,
      { kind: 'banned', until: inForce.bannedUntil },
    ],
    [
      'a ban from the next second, the windows admitting: served',
      item({ ...fromNextSecond }),
      free,
      MINUTE,
      admit(MINUTE, false),
    ],
    [
      'a ban from the next second, the windows refusing: told of the ban, not counted',
      item({ ...fromNextSecond, day: free.perMinute, inMinute: free.perMinute }),
      free,
      MINUTE,
      { kind: 'banned', until: fromNextSecond.bannedUntil },
    ],
    ['a ban that ended', item({ ...ended, day: 3, inMinute: 3 }), free, MINUTE, admit(MINUTE, false)],
    [
      "a later minute while our clock is still in ours (another function's clock is ahead): counted there",
      item({ minute: NEXT, day: 3, inMinute: 3 }),
      free,
      MINUTE,
      admit(NEXT, false),
    ],
    [
      'a later minute, full, while our clock is still in ours: refused in it',
      item({ minute: NEXT, day: free.perMinute, inMinute: free.perMinute, refused: 2 }),
      free,
      MINUTE,
      refuse('RATE_LIMITED', NEXT, false, 2),
    ],
    [
      'a later minute once our clock has passed ours too: too late (the request is slow, not early)',
      item({ minute: NEXT, day: 3, inMinute: 3 }),
      free,
      NEXT,
      { kind: 'too late' },
    ],
    [
      'a later minute once our clock has passed ours, the day full: refused by the day all the same',
      item({ minute: NEXT, day: free.perDay, inMinute: 1 }),
      free,
      NEXT,
      refuse('QUOTA_EXCEEDED', NEXT, false, 0),
    ],
  ];
  test.each(cases)('%s', (_name, found, limits, minuteNow, plan) => {
    expect(planFor(found, MINUTE, limits, NOW, minuteNow)).toEqual(plan);
  });
});

test.each([
  ['no ban', item({}), false],
  ['in force', item({ ...inForce }), true],
  ['from its first second', item({ ...ban(NOW, NOW + 60) }), true],
  ['not before it', item({ ...fromNextSecond }), false],
  ['not from its end', item({ ...ended }), false],
  ['without a start stored', item({ bannedUntil: NOW + 1 }), true],
])('isBanned: %s', (_name, state, expected) => {
  expect(isBanned(state, NOW)).toBe(expected);
});

test('a ban written now starts with the next second and lasts the declared time', () => {
  expect(banFrom(NOW)).toEqual({ from: NOW + 1, until: NOW + BAN.durationSeconds });
});

describe('headers', () => {
  test.each([
    ['the minute runs out first', { day: 10, inMinute: 10 }, free, { limit: free.perMinute, reset: NEXT }],
    ['the day runs out first', { day: free.perDay - 1, inMinute: 1 }, free, { limit: free.perDay, reset: DAY.resetAt }],
    [
      'a tie goes to the day, the longer wait',
      { day: 1, inMinute: 1 },
      { perMinute: 5, perDay: 5 },
      { limit: 5, reset: DAY.resetAt },
    ],
  ])('served, %s', (_name, stored, limits, expected) => {
    const remaining = expected.limit - (expected.reset === NEXT ? stored.inMinute : stored.day);
    expect(admitted(stored, MINUTE, limits, DAY)).toEqual({
      admitted: true,
      headers: { limit: expected.limit, remaining, resetAt: expected.reset },
      slot: { minute: MINUTE, day: DAY },
    });
  });

  test('a refusal names the window that refused: its limit, nothing left, its end', () => {
    expect(refusedBy('RATE_LIMITED', MINUTE, free, DAY)).toEqual({
      admitted: false,
      reason: 'RATE_LIMITED',
      headers: { limit: free.perMinute, remaining: 0, resetAt: NEXT },
    });
    expect(refusedBy('QUOTA_EXCEEDED', MINUTE, free, DAY)).toEqual({
      admitted: false,
      reason: 'QUOTA_EXCEEDED',
      headers: { limit: free.perDay, remaining: 0, resetAt: DAY.resetAt },
    });
  });

  test('a ban carries the per-minute limit and resets when it ends', () => {
    expect(banned(NOW + 100, free)).toEqual({
      admitted: false,
      reason: 'KEY_TEMPORARILY_BANNED',
      headers: { limit: free.perMinute, remaining: 0, resetAt: NOW + 100 },
    });
  });
});

describe('usageAt: a key as `keys usage` shows it at 10:00:15', () => {
  const at = NOW * 1000;
  const minute = (used: number, refused = 0) => ({
    used,
    remaining: free.perMinute - used,
    resetAt: NEXT,
    refused,
  });
  const day = (used: number) => ({ used, remaining: free.perDay - used, resetAt: DAY.resetAt });
  test.each([
    ['nothing stored: nothing used', undefined, { minute: minute(0), day: day(0) }],
    ['this minute as stored', item({ day: 12, inMinute: 4, refused: 2 }), { minute: minute(4, 2), day: day(12) }],
    [
      'an earlier minute counts for the day only',
      item({ minute: MINUTE - 60, day: 12, inMinute: 4, refused: 2 }),
      {
        minute: minute(0),
        day: day(12),
      },
    ],
    [
      'a full minute leaves nothing, never less',
      item({ day: free.perMinute, inMinute: free.perMinute }),
      { minute: { ...minute(free.perMinute), remaining: 0 }, day: day(free.perMinute) },
    ],
    [
      'a ban not ended, even one from the next second',
      item({ ...fromNextSecond }),
      {
        minute: minute(0),
        day: day(0),
        bannedUntil: fromNextSecond.bannedUntil,
      },
    ],
    ['an ended ban is not shown', item({ ...ended }), { minute: minute(0), day: day(0) }],
  ])('%s', (_name, state, usage) => {
    expect(usageAt(state, free, at)).toEqual(usage);
  });
});

function admit(minute: number, newMinute: boolean): LimiterPlan {
  return { kind: 'admit', minute, newMinute };
}

function refuse(
  reason: 'RATE_LIMITED' | 'QUOTA_EXCEEDED',
  minute: number,
  newMinute: boolean,
  refusedBefore: number,
): LimiterPlan {
  return { kind: 'refuse', reason, minute, newMinute, refusedBefore };
}
