import {
  daysCovering,
  expiresAt,
  firstToRunOut,
  limiterKey,
  refusalAt,
  secondsUntil,
  unixSeconds,
  windowAt,
} from '../../lib/core/limiter/windows';

const at = (iso: string) => Date.parse(iso) / 1000;

test('windows are the calendar minute and the calendar day in UTC', () => {
  const now = at('2026-11-22T23:59:59Z');
  expect(windowAt('minute', now)).toEqual({
    kind: 'minute',
    start: at('2026-11-22T23:59:00Z'),
    resetAt: at('2026-11-23T00:00:00Z'),
  });
  expect(windowAt('day', now)).toEqual({
    kind: 'day',
    start: at('2026-11-22T00:00:00Z'),
    resetAt: at('2026-11-23T00:00:00Z'),
  });
});

test('a boundary second belongs to the window it starts', () => {
  const midnight = at('2026-11-23T00:00:00Z');
  expect(windowAt('minute', midnight).start).toBe(midnight);
  expect(windowAt('day', midnight).start).toBe(midnight);
  expect(windowAt('minute', midnight - 1).resetAt).toBe(midnight);
});

test('unixSeconds floors milliseconds, so the last millisecond of a window stays in it', () => {
  expect(unixSeconds(Date.parse('2026-11-22T10:00:59.999Z'))).toBe(at('2026-11-22T10:00:59Z'));
});

test('limiter keys tell key and day apart', () => {
  const day = windowAt('day', at('2026-11-22T10:00:30Z'));
  expect(limiterKey('k1', day)).toBe(`k1#${at('2026-11-22T00:00:00Z')}`);
  expect(limiterKey('k1', windowAt('day', at('2026-11-23T00:00:00Z')))).not.toBe(limiterKey('k1', day));
});

test('a refusal answered later than its window ended reports the next second, never a past Reset', () => {
  const state = { limit: 60, remaining: 0, resetAt: at('2026-11-22T10:01:00Z') };
  expect(refusalAt(state, Date.parse('2026-11-22T10:00:15.000Z'))).toEqual({ headers: state, retryAfterSeconds: 45 });
  expect(refusalAt(state, Date.parse('2026-11-22T10:00:59.400Z'))).toEqual({ headers: state, retryAfterSeconds: 1 });
  // Answered after the reset: the window the request was refused by is over; retry in a second.
  expect(refusalAt(state, Date.parse('2026-11-22T10:01:04.300Z'))).toEqual({
    headers: { ...state, resetAt: at('2026-11-22T10:01:05Z') },
    retryAfterSeconds: 1,
  });
  expect(refusalAt(state, Date.parse('2026-11-22T10:01:00.000Z')).headers.resetAt).toBe(at('2026-11-22T10:01:01Z'));
});

test('items expire a little after what they record', () => {
  const end = at('2026-11-23T00:00:00Z');
  expect(expiresAt(end)).toBeGreaterThan(end);
  expect(expiresAt(end)).toBeLessThanOrEqual(end + 300);
});

test('secondsUntil rounds up and is at least 1', () => {
  const reset = at('2026-11-22T10:01:00Z');
  expect(secondsUntil(reset, Date.parse('2026-11-22T10:00:00.000Z'))).toBe(60);
  expect(secondsUntil(reset, Date.parse('2026-11-22T10:00:15.000Z'))).toBe(45);
  expect(secondsUntil(reset, Date.parse('2026-11-22T10:00:59.001Z'))).toBe(1);
  expect(secondsUntil(reset, Date.parse('2026-11-22T10:00:58.500Z'))).toBe(2);
  expect(secondsUntil(reset, reset * 1000)).toBe(1);
});

test('daysCovering lists every day a ban overlaps', () => {
  const d22 = at('2026-11-22T00:00:00Z');
  const d23 = at('2026-11-23T00:00:00Z');
  expect(daysCovering(at('2026-11-22T10:00:00Z'), at('2026-11-22T10:15:00Z')).map((w) => w.start)).toEqual([d22]);
  expect(daysCovering(at('2026-11-22T23:55:00Z'), at('2026-11-23T00:10:00Z')).map((w) => w.start)).toEqual([d22, d23]);
  // A ban ending exactly at midnight needs no entry on the next day.
  expect(daysCovering(at('2026-11-22T23:45:00Z'), d23).map((w) => w.start)).toEqual([d22]);
  expect(daysCovering(at('2026-11-22T12:00:00Z'), at('2026-11-24T01:00:00Z'))).toHaveLength(3);
});

test('the window that runs out first has fewer left; a tie goes to the day', () => {
  const minute = { limit: 60, remaining: 10, resetAt: 1 };
  const day = { limit: 1000, remaining: 10, resetAt: 2 };
  expect(firstToRunOut(minute, day)).toBe(day);
  expect(firstToRunOut({ ...minute, remaining: 9 }, day).resetAt).toBe(1);
  expect(firstToRunOut(minute, { ...day, remaining: 11 }).resetAt).toBe(1);
});
