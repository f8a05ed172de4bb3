import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { RateLimiter, type Admission } from '../../lib/limits/limiter';
import { BAN, PLAN_LIMITS, limitsFor, type Limits } from '../../lib/limits/plans';
import { counterKey, windowAt } from '../../lib/limits/windows';
import { createDocumentClient } from '../../lib/aws/dynamo';
import { createTestTables, type TestTables } from '../support/dynamo';

let tables: TestTables;
let client: DynamoDBClient;
let limiter: RateLimiter;
/** The injected clock, epoch ms: tests move it instead of sleeping. */
let nowMs: number;

beforeAll(async () => {
  tables = await createTestTables();
  // The service client's 1 s connection timeout also runs while a request waits for one of its 50
  // sockets: 400 concurrent updates on a busy test machine can exceed it, which is not a limiter bug.
  client = new DynamoDBClient({
    endpoint: tables.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    requestHandler: { connectionTimeout: 20_000 },
  });
  limiter = new RateLimiter(createDocumentClient(client), tables.names.rateLimits, () => nowMs);
});
afterAll(async () => {
  client.destroy();
  await tables.drop();
});
beforeEach(() => {
  nowMs = Date.parse('2026-11-22T10:00:15.000Z');
});

const free = PLAN_LIMITS.free;
const seconds = (iso: string) => Date.parse(iso) / 1000;
const newKey = () => `key-${randomUUID()}`;

async function admitMany(keyId: string, limits: Limits, n: number): Promise<Admission[]> {
  const out: Admission[] = [];
  for (let i = 0; i < n; i++) out.push(await limiter.admit(keyId, limits));
  return out;
}

/** What a counter item holds, read straight from the table. */
async function storedCount(keyId: string, kind: 'minute' | 'day'): Promise<number> {
  const pk = counterKey(keyId, windowAt(kind, Math.floor(nowMs / 1000)));
  const { Item } = await tables.doc.send(new GetCommand({ TableName: tables.names.rateLimits, Key: { pk }, ConsistentRead: true }));
  return Number((Item?.count as { value: string } | undefined)?.value ?? 0);
}

test('Remaining counts down exactly and Reset is the next minute boundary', async () => {
  const key = newKey();
  const admissions = await admitMany(key, free, 60);
  admissions.forEach((a, i) => {
    expect(a).toEqual({ admitted: true, headers: { limit: 60, remaining: 59 - i, resetAt: seconds('2026-11-22T10:01:00Z') } });
  });
});

test('the 61st request of a free key within a minute is RATE_LIMITED, Retry-After in 1..60, Remaining 0', async () => {
  const key = newKey();
  await admitMany(key, free, 60);
  nowMs = Date.parse('2026-11-22T10:00:59.400Z');
  expect(await limiter.admit(key, free)).toEqual({
    admitted: false,
    reason: 'RATE_LIMITED',
    retryAfterSeconds: 1,
    headers: { limit: 60, remaining: 0, resetAt: seconds('2026-11-22T10:01:00Z') },
  });
  nowMs = Date.parse('2026-11-22T10:00:15.000Z');
  const again = await limiter.admit(key, free);
  expect(again.admitted === false && again.retryAfterSeconds).toBe(45);
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
    retryAfterSeconds: midnight - nowMs / 1000,
    headers: { limit: 5, remaining: 0, resetAt: midnight },
  });
  // A new minute does not help; a new day does.
  nowMs = Date.parse('2026-11-22T23:59:59.000Z');
  expect(await limiter.admit(key, limits)).toMatchObject({ admitted: false, reason: 'QUOTA_EXCEEDED', retryAfterSeconds: 1 });
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
  expect(admissions.at(-1)).toMatchObject({ admitted: false, reason: 'QUOTA_EXCEEDED', headers: { limit: 25, remaining: 0 } });
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
  expect(refused.map((a) => a.admitted === false && a.reason)).toEqual(['RATE_LIMITED', 'RATE_LIMITED', 'RATE_LIMITED']);
  expect(await storedCount(key, 'day')).toBe(3);

  nowMs += 60_000;
  const next = await admitMany(key, limits, 3);
  expect(next.map((a) => a.headers.remaining)).toEqual([1, 0, 0]);
  expect(next[2]).toMatchObject({ admitted: false, reason: 'QUOTA_EXCEEDED' });
  expect(await storedCount(key, 'minute')).toBe(2);
  expect(await storedCount(key, 'day')).toBe(5);
});

test('200 concurrent requests on a fresh free key serve exactly 60', async () => {
  const key = newKey();
  const admissions = await Promise.all(Array.from({ length: 200 }, () => limiter.admit(key, free)));
  const outcomes = admissions.map((a) => (a.admitted ? 'served' : a.reason));
  expect(outcomes.filter((o) => o === 'served')).toHaveLength(60);
  // 140 refusals in one minute are more than 60: the 61st counted refusal bans the key, and the
  // requests that then find the ban are not counted.
  expect(outcomes.filter((o) => o === 'RATE_LIMITED')).toHaveLength(60);
  expect(outcomes.filter((o) => o === 'KEY_TEMPORARILY_BANNED')).toHaveLength(80);
  // Every refused request took its increments back.
  expect(await storedCount(key, 'minute')).toBe(60);
  expect(await storedCount(key, 'day')).toBe(60);
});

test('concurrent requests are exact when the day window binds too', async () => {
  const key = newKey();
  const limits = { perMinute: 100, perDay: 7 };
  const admissions = await Promise.all(Array.from({ length: 50 }, () => limiter.admit(key, limits)));
  expect(admissions.filter((a) => a.admitted)).toHaveLength(7);
  expect(admissions.every((a) => a.admitted || a.reason === 'QUOTA_EXCEEDED')).toBe(true);
  expect(await storedCount(key, 'minute')).toBe(7);
  expect(await storedCount(key, 'day')).toBe(7);
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
    retryAfterSeconds: BAN.durationSeconds,
    headers: { limit: 60, remaining: 0, resetAt: banEnd },
  };
  // The refusal that crosses the threshold imposes the ban; the next finds it in force.
  expect(await limiter.admit(key, free)).toEqual({ ...banned, banStarted: true });
  expect(await limiter.admit(key, free)).toEqual(banned);

  nowMs = banStart + 5 * 60_000;
  expect(await limiter.admit(key, free)).toEqual({ ...banned, retryAfterSeconds: 600 });
  nowMs = banStart + BAN.durationSeconds * 1000 - 500;
  expect(await limiter.admit(key, free)).toEqual({ ...banned, retryAfterSeconds: 1 });
  expect(await storedCount(key, 'minute')).toBe(0);

  nowMs = banStart + BAN.durationSeconds * 1000;
  expect(await limiter.admit(key, free)).toEqual({
    admitted: true,
    headers: { limit: 60, remaining: 59, resetAt: seconds('2026-11-22T10:16:00Z') },
  });
  expect(await storedCount(key, 'day')).toBe(61);
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
  expect(await limiter.admit(key, limits)).toMatchObject({ reason: 'KEY_TEMPORARILY_BANNED', headers: { resetAt: banEnd } });

  nowMs = Date.parse('2026-11-23T00:00:10.000Z');
  expect(await limiter.admit(key, limits)).toEqual({
    admitted: false,
    reason: 'KEY_TEMPORARILY_BANNED',
    retryAfterSeconds: 620,
    headers: { limit: 2, remaining: 0, resetAt: banEnd },
  });
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
  expect(await limiter.admit(key, free)).toMatchObject({ admitted: false, reason: 'RATE_LIMITED', retryAfterSeconds: 1 });
  nowMs = Date.parse('2026-11-22T10:01:00.000Z');
  expect(await limiter.admit(key, free)).toEqual({
    admitted: true,
    headers: { limit: 60, remaining: 59, resetAt: seconds('2026-11-22T10:02:00Z') },
  });
  expect(await storedCount(key, 'day')).toBe(61);
});

test('different keys never share counters', async () => {
  const limits = { perMinute: 1, perDay: 10 };
  const [a, b] = [newKey(), newKey()];
  expect((await admitMany(a, limits, 2)).map((x) => x.admitted)).toEqual([true, false]);
  expect((await admitMany(b, limits, 1)).map((x) => x.admitted)).toEqual([true]);
});
