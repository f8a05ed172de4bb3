// The limiter's rules, request by request, against the embedded server with the deployed limiter's
// client settings (one attempt per call). Concurrency, late replies and round trips have files of
// their own.
import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { RateLimiter, type Admission, type LimiterState } from '../../lib/stores/rate-limiter';
import { BAN, PLAN_LIMITS, limitsFor, type Limits } from '../../lib/contract/plans';
import { refusalAt } from '../../lib/core/windows';
import { createTestTables, type TestTables } from '../support/dynamo';
import { limiterDocumentClient } from '../support/limiter-clients';

let tables: TestTables;
let doc: DynamoDBDocumentClient;
let limiter: RateLimiter;
/** The injected clock, epoch ms: tests move it instead of sleeping. */
let nowMs: number;

beforeAll(async () => {
  tables = await createTestTables();
  doc = limiterDocumentClient(tables.endpoint);
  limiter = new RateLimiter(doc, tables.names.rateLimits, () => nowMs);
});
afterAll(async () => {
  doc.destroy();
  await tables.drop();
});
beforeEach(() => {
  nowMs = Date.parse('2026-11-22T10:00:15.000Z');
});

const free = PLAN_LIMITS.free;
const seconds = (iso: string) => Date.parse(iso) / 1000;
const newKey = () => `key-${randomUUID()}`;

async function admitMany(keyId: string, limits: Limits, n: number, on: RateLimiter = limiter): Promise<Admission[]> {
  const out: Admission[] = [];
  for (let i = 0; i < n; i++) out.push(await on.admit(keyId, limits));
  return out;
}

/** The key's limiter item for the clock's day, read straight from the table. */
async function stored(keyId: string): Promise<LimiterState> {
  const state = await limiter.read(keyId, nowMs);
  if (!state) throw new Error(`no limiter item for ${keyId}`);
  return state;
}

/** Retry-After as the answer made now would carry it. */
const retryAfter = (a: Admission) => refusalAt(a.headers, nowMs).retryAfterSeconds;

test('Remaining counts down exactly and Reset is the next minute boundary', async () => {
  const key = newKey();
  const admissions = await admitMany(key, free, 60);
  admissions.forEach((a, i) => {
    expect(a).toEqual({
      admitted: true,
      headers: { limit: 60, remaining: 59 - i, resetAt: seconds('2026-11-22T10:01:00Z') },
    });
  });
});

test('the 61st request of a free key within a minute is RATE_LIMITED until the next minute, Remaining 0', async () => {
  const key = newKey();
  await admitMany(key, free, 60);
  nowMs = Date.parse('2026-11-22T10:00:59.400Z');
  const refused = await limiter.admit(key, free);
  expect(refused).toEqual({
    admitted: false,
    reason: 'RATE_LIMITED',
    headers: { limit: 60, remaining: 0, resetAt: seconds('2026-11-22T10:01:00Z') },
  });
  expect(retryAfter(refused)).toBe(1);
  nowMs = Date.parse('2026-11-22T10:00:15.000Z');
  expect(retryAfter(await limiter.admit(key, free))).toBe(45);
});

test('the day window binds when it runs out first: its headers, then QUOTA_EXCEEDED until midnight UTC', async () => {
  const key = newKey();
  const limits = { perMinute: 100, perDay: 5 };
  const midnight = seconds('2026-11-23T00:00:00Z');
  const admissions = await admitMany(key, limits, 5);
  admissions.forEach((a, i) => expect(a.headers).toEqual({ limit: 5, remaining: 4 - i, resetAt: midnight }));
  expect(await limiter.admit(key, limits)).toEqual({
    admitted: false,
    reason: 'QUOTA_EXCEEDED',
    headers: { limit: 5, remaining: 0, resetAt: midnight },
  });
  // A new minute does not help; a new day does.
  nowMs = Date.parse('2026-11-22T23:59:59.000Z');
  const late = await limiter.admit(key, limits);
  expect(late).toMatchObject({ admitted: false, reason: 'QUOTA_EXCEEDED', headers: { resetAt: midnight } });
  expect(retryAfter(late)).toBe(1);
  nowMs = Date.parse('2026-11-23T00:00:00.000Z');
  expect(await limiter.admit(key, limits)).toMatchObject({ admitted: true, headers: { remaining: 4 } });
});

test('the day window binds once enough minutes have been used', async () => {
  const key = newKey();
  const limits = { perMinute: 10, perDay: 25 };
  for (let minute = 0; minute < 2; minute++) {
    nowMs = Date.parse('2026-11-22T10:00:00.000Z') + minute * 60_000;
    const minuteFull = await admitMany(key, limits, 10);
    expect(minuteFull.every((a) => a.admitted)).toBe(true);
    expect(minuteFull.at(-1)?.headers).toMatchObject({ limit: 10, remaining: 0 });
  }
  // 20 used: a fresh minute has 9 left after this request, the day only 4.
  nowMs += 60_000;
  const admissions = await admitMany(key, limits, 6);
  expect(admissions[0]?.headers).toEqual({ limit: 25, remaining: 4, resetAt: seconds('2026-11-23T00:00:00Z') });
  expect(admissions.filter((a) => a.admitted)).toHaveLength(5);
  expect(admissions.at(-1)).toMatchObject({
    admitted: false,
    reason: 'QUOTA_EXCEEDED',
    headers: { limit: 25, remaining: 0 },
  });
});

test('a tie goes to the day window, the longer wait', async () => {
  const [first] = await admitMany(newKey(), { perMinute: 5, perDay: 5 }, 1);
  expect(first?.headers).toEqual({ limit: 5, remaining: 4, resetAt: seconds('2026-11-23T00:00:00Z') });
});

test('a request refused by the minute window does not use up the day, and the reverse', async () => {
  const key = newKey();
  const limits = { perMinute: 3, perDay: 5 };
  await admitMany(key, limits, 3);
  const refused = await admitMany(key, limits, 3);
  expect(refused.map((a) => a.admitted === false && a.reason)).toEqual([
    'RATE_LIMITED',
    'RATE_LIMITED',
    'RATE_LIMITED',
  ]);
  expect(await stored(key)).toMatchObject({ day: 3, inMinute: 3, refused: 3 });

  nowMs += 60_000;
  const next = await admitMany(key, limits, 3);
  expect(next.map((a) => a.headers.remaining)).toEqual([1, 0, 0]);
  expect(next[2]).toMatchObject({ admitted: false, reason: 'QUOTA_EXCEEDED' });
  expect(await stored(key)).toMatchObject({ day: 5, inMinute: 2, refused: 1 });
});

test('a key that ignores its 429s is banned, is not counted while banned, and the ban lifts after 15 minutes', async () => {
  const key = newKey();
  const banStart = nowMs;
  const banEnd = seconds('2026-11-22T10:15:15Z');
  await admitMany(key, free, 60);
  const refused = await admitMany(key, free, free.perMinute * BAN.rejectedPerMinuteFactor);
  expect(refused.every((a) => a.admitted === false && a.reason === 'RATE_LIMITED')).toBe(true);

  const banned: Admission = {
    admitted: false,
    reason: 'KEY_TEMPORARILY_BANNED',
    headers: { limit: 60, remaining: 0, resetAt: banEnd },
  };
  // The refusal that crosses the threshold imposes the ban; the next finds it in force.
  const first = await limiter.admit(key, free);
  expect(first).toEqual({ ...banned, banStarted: true });
  expect(retryAfter(first)).toBe(BAN.durationSeconds);
  expect(await limiter.admit(key, free)).toEqual(banned);

  nowMs = banStart + 5 * 60_000;
  const later = await limiter.admit(key, free);
  expect(later).toEqual(banned);
  expect(retryAfter(later)).toBe(600);
  nowMs = banStart + BAN.durationSeconds * 1000 - 500;
  const last = await limiter.admit(key, free);
  expect(last).toEqual(banned);
  expect(retryAfter(last)).toBe(1);
  // Requests refused for the ban are not counted anywhere.
  expect(await stored(key)).toMatchObject({ day: 60, inMinute: 60, refused: 61 });

  nowMs = banStart + BAN.durationSeconds * 1000;
  expect(await limiter.admit(key, free)).toEqual({
    admitted: true,
    headers: { limit: 60, remaining: 59, resetAt: seconds('2026-11-22T10:16:00Z') },
  });
  expect(await stored(key)).toMatchObject({ day: 61, inMinute: 1, refused: 0 });
});

test('refusals by the day window count towards a ban too', async () => {
  const key = newKey();
  const limits = { perMinute: 3, perDay: 1 };
  await admitMany(key, limits, 1);
  const refused = await admitMany(key, limits, 4);
  expect(refused.map((a) => a.admitted === false && a.reason)).toEqual([
    'QUOTA_EXCEEDED',
    'QUOTA_EXCEEDED',
    'QUOTA_EXCEEDED',
    'KEY_TEMPORARILY_BANNED',
  ]);
});

test('a ban that crosses midnight holds on the next day and lifts on time', async () => {
  const key = newKey();
  const limits = { perMinute: 2, perDay: 100 };
  nowMs = Date.parse('2026-11-22T23:55:30.000Z');
  await admitMany(key, limits, 4);
  const banEnd = seconds('2026-11-23T00:10:30Z');
  expect(await limiter.admit(key, limits)).toMatchObject({
    reason: 'KEY_TEMPORARILY_BANNED',
    headers: { resetAt: banEnd },
  });

  nowMs = Date.parse('2026-11-23T00:00:10.000Z');
  const nextDay = await limiter.admit(key, limits);
  expect(nextDay).toEqual({
    admitted: false,
    reason: 'KEY_TEMPORARILY_BANNED',
    headers: { limit: 2, remaining: 0, resetAt: banEnd },
  });
  expect(retryAfter(nextDay)).toBe(620);
  nowMs = Date.parse('2026-11-23T00:10:30.000Z');
  expect(await limiter.admit(key, limits)).toMatchObject({ admitted: true, headers: { limit: 2, remaining: 1 } });
});

test('enterprise custom limits apply', async () => {
  const key = newKey();
  const limits = limitsFor('enterprise', { perMinute: 2, perDay: 3 });
  const first = await admitMany(key, limits, 3);
  expect(first.map((a) => a.headers)).toEqual([
    { limit: 2, remaining: 1, resetAt: seconds('2026-11-22T10:01:00Z') },
    { limit: 2, remaining: 0, resetAt: seconds('2026-11-22T10:01:00Z') },
    { limit: 2, remaining: 0, resetAt: seconds('2026-11-22T10:01:00Z') },
  ]);
  expect(first[2]).toMatchObject({ admitted: false, reason: 'RATE_LIMITED' });
  nowMs += 60_000;
  const second = await admitMany(key, limits, 2);
  expect(second.map((a) => a.admitted)).toEqual([true, false]);
  expect(second[1]).toMatchObject({ reason: 'QUOTA_EXCEEDED', headers: { limit: 3, remaining: 0 } });
});

test('the minute window rolls over at the boundary of the injected clock', async () => {
  const key = newKey();
  await admitMany(key, free, 60);
  nowMs = Date.parse('2026-11-22T10:00:59.999Z');
  const refused = await limiter.admit(key, free);
  expect(refused).toMatchObject({ admitted: false, reason: 'RATE_LIMITED' });
  expect(retryAfter(refused)).toBe(1);
  nowMs = Date.parse('2026-11-22T10:01:00.000Z');
  expect(await limiter.admit(key, free)).toEqual({
    admitted: true,
    headers: { limit: 60, remaining: 59, resetAt: seconds('2026-11-22T10:02:00Z') },
  });
  expect(await stored(key)).toMatchObject({ day: 61, inMinute: 1 });
});

test('different keys never share counters', async () => {
  const limits = { perMinute: 1, perDay: 10 };
  const [a, b] = [newKey(), newKey()];
  expect((await admitMany(a, limits, 2)).map((x) => x.admitted)).toEqual([true, false]);
  expect((await admitMany(b, limits, 1)).map((x) => x.admitted)).toEqual([true]);
});
